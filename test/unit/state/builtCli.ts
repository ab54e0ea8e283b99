/**
 * The real command line for the tests of what it prints and writes: src/cli/main.ts and its lint worker bundled by
 * esbuild with the build's own configs (scripts/bundles.mjs), into this test process's temp folder — so the test runs
 * what `node dist/cli.js` runs, built from the source under test, not a dist/ left from an earlier build (about a
 * second). Each run gets a fresh HOME and XDG_STATE_HOME unless the test gives them.
 */
import { spawn, type SpawnOptions } from 'node:child_process';
import { join } from 'node:path';
import { tempDir } from '../../tempDir';

let built: Promise<string> | undefined;

export function builtCli(): Promise<string> {
  built ??= (async () => {
    const out = tempDir('kw-cli-bundle-');
    const esbuild = await import('esbuild');
    type Config = { outdir?: string; outfile?: string };
    // @ts-expect-error: a plain .mjs module of the build
    const bundles = (await import('../../../scripts/bundles.mjs')) as { bundleConfigs: (o: object) => Config[]; entryFiles: (c: Config) => string[]; withPasses: (c: Config) => Config };
    // Both are split builds (each verb, the linters: files of their own), built whole into the temp folder.
    const wanted = bundles.bundleConfigs({ production: false, sourcemaps: false }).filter((c) => bundles.entryFiles(c).some((f) => /\/(cli|lintWorker)\.js$/.test(f)));
    if (wanted.length !== 2) throw new Error(`scripts/bundles.mjs has no cli.js and lintWorker.js bundles (found ${wanted.flatMap(bundles.entryFiles).join(', ')})`);
    await Promise.all(wanted.map((c) => esbuild.build({ ...bundles.withPasses({ ...c, outdir: out }), logLevel: 'error' })));
    return join(out, 'cli.js');
  })();
  return built;
}

export interface CliRun {
  code: number | null;
  signal: NodeJS.Signals | null;
  out: string;
  err: string;
  ms: number;
  /** Killed at the time limit: the command hung. */
  timedOut: boolean;
}

/** Runs the CLI with `args`; a run past `timeoutMs` is killed and reported as timed out (a FIFO hangs a read forever). */
export async function runCli(args: string[], opts: { env?: NodeJS.ProcessEnv; cwd?: string; timeoutMs?: number; input?: string } = {}): Promise<CliRun> {
  const cli = await builtCli();
  const home = opts.env?.HOME ?? tempDir('kw-cli-home-');
  const env = { ...process.env, HOME: home, XDG_STATE_HOME: join(home, '.local', 'state'), ...opts.env };
  const t0 = Date.now();
  const spawnOpts: SpawnOptions = { env, stdio: ['pipe', 'pipe', 'pipe'], ...(opts.cwd ? { cwd: opts.cwd } : {}) };
  const child = spawn(process.execPath, [cli, ...args], spawnOpts);
  let out = '';
  let err = '';
  child.stdout!.on('data', (d: Buffer) => (out += d.toString('utf8')));
  child.stderr!.on('data', (d: Buffer) => (err += d.toString('utf8')));
  child.stdin!.end(opts.input ?? '');
  let timedOut = false;
  const timer = setTimeout(() => {
    timedOut = true;
    child.kill('SIGKILL');
  }, opts.timeoutMs ?? 30_000);
  const [code, signal] = await new Promise<[number | null, NodeJS.Signals | null]>((res) => child.on('close', (c, s) => res([c, s])));
  clearTimeout(timer);
  return { code, signal, out, err, ms: Date.now() - t0, timedOut };
}
