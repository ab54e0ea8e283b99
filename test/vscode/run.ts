/**
 * Tier 2: runs the mocha suite in test/vscode/suite INSIDE real VS Code — code-server's Node extension host — the way
 * @vscode/test-electron runs it in desktop VS Code, against the extension as users get it: the .vsix is installed
 * into the run's code-server (harness/vsix.ts, the path `npm start` takes). code-server is started with the
 * smoke-test driver and the workbench is opened with a `payload` carrying extensionTestsPath (the suite, bundled into
 * the installed extension's folder so both share one `vscode` API object) and, because VS Code runs tests only in a
 * development window, extensionDevelopmentPath pointing at an empty stand-in extension (harness/bundle.ts), never at
 * the repository. mocha's output comes back through window.codeAutomationLog and the result through
 * window.codeAutomationExit. The workspace is a temporary copy of examples/labs-k8s.
 *
 * Usage: tsx test/vscode/run.ts   (npm run test:vscode packages the .vsix first)
 * Env: KW_VSCODE_TIMEOUT_MS (default 420000), KW_KEEP_RUN_DIR=1 keeps the run folder, VERBOSE=1 shows all logs.
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { format } from 'node:util';
import { bundleSuite, standInExtension } from './harness/bundle';
import { checkVsix, installVsix } from './harness/vsix';
import { REPO, extensionHostErrors, launchBrowser, makeRunDirs, remoteUri, removeRunDir, startCodeServer, workbenchUrl, type CodeServer } from './harness/codeServer';

// A hang catcher, not a speed goal: the suite takes about two minutes alone on two cores and went past three beside a
// lab run (each test has its own 30 s limit in the suite).
const TIMEOUT = Number(process.env.KW_VSCODE_TIMEOUT_MS ?? 420_000);
/** Workbench chatter that says nothing about the extension (no network, no GitHub auth, no marketplace). */
const NOISE = /open-vsx|Creating a socket|Service Worker|AgentHost|AccountPolicy|grace time|builtin extensions cache|ENOTFOUND|marketplace|gallery|authentication provider|Resolving connection token|Resolved connection token/i;

async function main(): Promise<number> {
  const t0 = Date.now();
  checkVsix();
  const dirs = makeRunDirs('vscode');
  const resultFile = join(REPO, 'test-results/vscode/result.json');
  mkdirSync(dirname(resultFile), { recursive: true });
  let cs: CodeServer | undefined;
  let close: (() => Promise<void>) | undefined;
  let code: number | 'TIMEOUT' = 2;
  let counts: { passed: number; failed: number; skipped: number } | undefined;
  let activationMs: number | undefined;
  let activationEndToEndMs: number | undefined;
  try {
    const installed = installVsix(dirs);
    console.log(`extension under test: ${installed.vsix} installed into code-server in ${installed.ms} ms`);
    const testsEntry = await bundleSuite(join(installed.path, 'vscode-test'));
    const standIn = standInExtension(join(dirs.root, 'test-runner'));
    cs = await startCodeServer({ dirs, smokeTestDriver: true });
    const { context, page } = await launchBrowser(dirs);
    close = () => context.close().catch(() => undefined);
    const done = new Promise<number>((resolve) => {
      void page.exposeFunction('codeAutomationLog', (type: string, args: unknown[]) => {
        let msg = format(...(args ?? []));
        const m = /KW_VSCODE_RESULT passed=(\d+) failed=(\d+) skipped=(\d+)/.exec(msg);
        if (m) counts = { passed: Number(m[1]), failed: Number(m[2]), skipped: Number(m[3]) };
        const a = /activate: ([\d.]+) ms/.exec(msg);
        if (a) activationMs = Number(a[1]);
        const e2e = /activation end to end: (\d+) ms/.exec(msg);
        if (e2e) activationEndToEndMs = Number(e2e[1]);
        if (!process.env.VERBOSE) {
          if (NOISE.test(msg.split('\n')[0] ?? '')) return;
          msg = msg.split('\n').filter((l) => !/^\s+at .*(workbench\.js|static\/out)/.test(l)).join('\n');
        }
        console.log(type === 'log' || type === 'info' ? msg : `[${type}] ${msg}`);
      });
      void page.exposeFunction('codeAutomationExit', (exitCode: number, logs?: { relativePath: string; contents: string }[]) => {
        for (const l of logs ?? []) {
          const p = join(dirs.logs, 'vscode', l.relativePath);
          mkdirSync(dirname(p), { recursive: true });
          writeFileSync(p, l.contents);
        }
        resolve(exitCode);
      });
    });
    const payload: [string, string][] = [
      ['extensionDevelopmentPath', remoteUri(cs, standIn)],
      ['extensionTestsPath', remoteUri(cs, testsEntry)],
      ['skipWelcome', 'true'],
    ];
    await page.goto(workbenchUrl(cs, dirs.workspace, payload));
    code = await Promise.race([done, new Promise<'TIMEOUT'>((r) => setTimeout(() => r('TIMEOUT'), TIMEOUT))]);
    if (code === 'TIMEOUT') {
      mkdirSync(join(REPO, 'test-results/vscode'), { recursive: true });
      await page.screenshot({ path: join(REPO, 'test-results/vscode/timeout.png') }).catch(() => undefined);
      console.error(`extension-host tests did not finish within ${TIMEOUT} ms (screenshot: test-results/vscode/timeout.png, code-server log: ${cs.log})`);
    }
  } finally {
    await close?.();
    await cs?.stop();
  }
  // No test ran (nothing bundled, nothing found, or no result line): a failure, whatever the host's exit code says.
  const ranNone = !counts || counts.passed + counts.failed === 0;
  const exitCode = code === 'TIMEOUT' ? 3 : code === 0 && ranNone ? 5 : code;
  if (ranNone) console.error('extension-host tier: no test ran');
  const wallMs = Date.now() - t0;
  if (exitCode !== 0 && counts && counts.failed === 0) counts.failed = 1; // the run itself failed
  const summary = counts ?? { passed: 0, failed: 1, skipped: 0 };
  console.log(
    `extension-host tier: ${summary.passed} passed, ${summary.failed} failed, ${summary.skipped} skipped; activation end to end ${activationEndToEndMs ?? '?'} ms (activate() ${activationMs ?? '?'} ms); ` +
      `code-server listening after ${cs?.listeningMs ?? '?'} ms; wall ${(wallMs / 1000).toFixed(1)} s`,
  );
  writeFileSync(resultFile, JSON.stringify({ exitCode, ...summary, activationEndToEndMs, activationMs, wallMs, listeningMs: cs?.listeningMs }, null, 2));
  if (exitCode === 0) removeRunDir(dirs);
  else {
    for (const e of extensionHostErrors(dirs)) console.error(`extension host: ${e}`);
    console.error(`run folder kept for inspection: ${dirs.root}`);
  }
  return exitCode;
}

main().then(
  (c) => process.exit(c),
  (e: unknown) => {
    console.error(e instanceof Error ? e.stack ?? e.message : e);
    process.exit(4);
  },
);
