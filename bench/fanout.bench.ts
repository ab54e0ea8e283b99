/**
 * Fan-out at scale: N light hosts (network namespaces with their own sshd and host key on a bridge, made by
 * bench/fanout/hosts.sh and removed at the end, also on Ctrl-C or a failure), then facts (our facts script on every
 * host: Ansible runs the same script with its script module), a command and a 1 MiB upload with its checksum
 * verified on every host — by us, by Ansible at its default 5 forks and at forks = N, and by parallel-ssh. Prints
 * wall times, our peak RSS, failures and retries, and the ratios; then, as a separate labelled line that is not
 * like for like, Ansible's own fact gathering (`-m setup`, much more work than our script) beside our facts.
 *
 *   npm run bench:fanout [-- --hosts 500] [--tasks facts,command,upload] [--skip-ansible] [--skip-pssh] [--ansible-venv DIR]
 *
 * Root only (namespaces). Ansible comes from a venv outside the repository (default
 * ~/.cache/kubeadm-workbench/fanout-ansible; made with `python3 -m venv` + `pip install ansible-core` when missing).
 * Our side runs as an esbuild bundle with the shipped CLI's settings (what users run), built before the clock
 * starts, each task in a process of its own.
 */
import { spawnSync } from 'node:child_process';
import { build } from 'esbuild';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { cpus, homedir, loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { ansible, pssh, run, type Task, type ToolResult } from './fanout/others';

const HARNESS = join(__dirname, 'fanout', 'hosts.sh');
const TASKS: Task[] = ['facts', 'command', 'upload'];

interface Args {
  hosts: number;
  skipAnsible: boolean;
  skipPssh: boolean;
  venv: string;
  tasks: Task[];
}

function parseArgs(argv: string[]): Args {
  const a: Args = { hosts: 100, skipAnsible: false, skipPssh: false, venv: join(homedir(), '.cache', 'kubeadm-workbench', 'fanout-ansible'), tasks: TASKS };
  for (let i = 0; i < argv.length; i++) {
    const v = argv[i]!;
    if (v === '--hosts') a.hosts = Number(argv[++i]);
    else if (v.startsWith('--hosts=')) a.hosts = Number(v.slice(8));
    else if (v === '--skip-ansible') a.skipAnsible = true;
    else if (v === '--skip-pssh') a.skipPssh = true;
    else if (v === '--ansible-venv') a.venv = argv[++i]!;
    else if (v === '--tasks') a.tasks = argv[++i]!.split(',') as Task[];
    else throw new Error(`unknown option ${v}`);
  }
  if (!a.tasks.length || a.tasks.some((t) => !TASKS.includes(t))) throw new Error(`--tasks takes a list of ${TASKS.join(', ')}`);
  if (!Number.isInteger(a.hosts) || a.hosts < 1 || a.hosts > 1000) throw new Error('--hosts must be 1..1000');
  return a;
}

interface OursResult extends ToolResult {
  /** The machine's 1-minute load average as our run started. */
  load: number;
  retries: number;
  handshakes: number;
  rssMb: number;
}

let current: number | undefined;
const track = (pid: number | undefined) => (current = pid);

/** Bundles ours.ts like the CLI (scripts/bundles.mjs: node, cjs, ssh2's optional native parts left out). */
async function bundleOurs(dir: string): Promise<string> {
  const outfile = join(dir, 'ours.js');
  await build({ entryPoints: [join(__dirname, 'fanout', 'ours.ts')], outfile, bundle: true, platform: 'node', format: 'cjs', target: 'node20', minify: true, logLevel: 'warning', external: ['cpu-features', './crypto/build/Release/sshcrypto.node'] });
  return outfile;
}

async function ours(bundle: string, dir: string, task: Task): Promise<OursResult> {
  const load = loadavg()[0]!;
  const r = await run(process.execPath, [bundle, task, dir], { track });
  const line = r.stdout.trim().split('\n').pop() ?? '';
  if (r.code !== 0 || !line.startsWith('{')) throw new Error(`our ${task} run failed: ${r.stderr.trim().slice(-400)}`);
  const j = JSON.parse(line) as { ok: number; failed: number; failures: string[]; retries: number; handshakes: number; maxRssKb: number };
  if (j.failures.length) process.stderr.write(`  our ${task}: ${j.failures.join('\n    ')}\n`);
  return { load, wallMs: r.wallMs, ok: j.ok, failed: j.failed, retries: j.retries, handshakes: j.handshakes, rssMb: j.maxRssKb / 1024 };
}

function ensureAnsible(venv: string): boolean {
  if (existsSync(join(venv, 'bin', 'ansible'))) return true;
  process.stderr.write(`installing ansible-core into ${venv}…\n`);
  const mk = spawnSync('python3', ['-m', 'venv', venv], { stdio: 'inherit' });
  const pip = mk.status === 0 ? spawnSync(join(venv, 'bin', 'pip'), ['install', '-q', 'ansible-core'], { stdio: 'inherit' }) : mk;
  return pip.status === 0 && existsSync(join(venv, 'bin', 'ansible'));
}

function harness(...args: string[]): void {
  const r = spawnSync('bash', [HARNESS, ...args], { stdio: ['ignore', 'inherit', 'inherit'] });
  if (r.status !== 0) throw new Error(`hosts.sh ${args[0]} failed (exit ${r.status})`);
}

const secs = (ms: number) => `${(ms / 1000).toFixed(1)} s`;

async function main(): Promise<void> {
  const args = parseArgs(process.argv.slice(2));
  if (process.getuid?.() !== 0) throw new Error('the fan-out bench needs root (it creates network namespaces)');
  const haveAnsible = !args.skipAnsible && ensureAnsible(args.venv);
  const havePssh = !args.skipPssh && spawnSync('parallel-ssh', ['--version']).status === 0;
  const dir = mkdtempSync(join(tmpdir(), 'kwfan-'));
  let tornDown = false;
  const teardown = () => {
    if (tornDown) return;
    tornDown = true;
    if (current) {
      try {
        process.kill(current, 'SIGKILL');
      } catch {
        /* already gone */
      }
    }
    spawnSync('bash', [HARNESS, 'down', dir], { stdio: 'inherit' });
    rmSync(dir, { recursive: true, force: true });
  };
  for (const sig of ['SIGINT', 'SIGTERM', 'SIGHUP'] as const) {
    process.once(sig, () => {
      process.stderr.write(`\n${sig}: removing the bench hosts…\n`);
      teardown();
      process.exit(130);
    });
  }
  try {
    const t0 = performance.now();
    harness('up', String(args.hosts), dir);
    process.stderr.write(`${args.hosts} hosts up in ${secs(performance.now() - t0)}\n`);
    const bundle = await bundleOurs(dir);
    const rows: { task: Task; ours: OursResult; a5?: ToolResult; aN?: ToolResult; ps?: ToolResult }[] = [];
    for (const task of args.tasks) {
      process.stderr.write(`${task}: ours…`);
      const o = await ours(bundle, dir, task);
      const row: (typeof rows)[number] = { task, ours: o };
      if (haveAnsible) {
        process.stderr.write(' ansible -f 5…');
        row.a5 = await ansible(args.venv, dir, args.hosts, task, 5, track);
        process.stderr.write(` ansible -f ${args.hosts}…`);
        row.aN = await ansible(args.venv, dir, args.hosts, task, args.hosts, track);
      }
      if (havePssh) {
        process.stderr.write(` parallel-ssh -p ${args.hosts}…`);
        row.ps = await pssh(dir, args.hosts, task, args.hosts, track);
      }
      process.stderr.write(' done\n');
      rows.push(row);
    }
    // Ansible's own fact gathering, beside our facts: not the same work (setup collects far more), so its own line.
    let setup: { a5: ToolResult; aN: ToolResult } | undefined;
    if (haveAnsible && args.tasks.includes('facts')) {
      process.stderr.write(`setup (Ansible's fact gathering): ansible -f 5… ansible -f ${args.hosts}…`);
      setup = { a5: await ansible(args.venv, dir, args.hosts, 'setup', 5, track), aN: await ansible(args.venv, dir, args.hosts, 'setup', args.hosts, track) };
      process.stderr.write(' done\n');
    }
    printTable(args.hosts, rows);
    const ourFacts = rows.find((r) => r.task === 'facts')?.ours;
    if (setup && ourFacts) {
      console.log(`\nnot like for like — Ansible's own fact gathering (-m setup: hardware, mounts, network, packages…) beside our facts script: -f 5 ${secs(setup.a5.wallMs)}${setup.a5.failed ? ` (${setup.a5.failed} failed)` : ''}, -f ${args.hosts} ${secs(setup.aN.wallMs)}${setup.aN.failed ? ` (${setup.aN.failed} failed)` : ''}; ours ${secs(ourFacts.wallMs)} (${(setup.a5.wallMs / ourFacts.wallMs).toFixed(2)}× and ${(setup.aN.wallMs / ourFacts.wallMs).toFixed(2)}×: what a user who gathers facts with Ansible waits, not a measure of the transport)`);
    }
  } finally {
    teardown();
  }
}

function printTable(n: number, rows: { task: Task; ours: OursResult; a5?: ToolResult; aN?: ToolResult; ps?: ToolResult }[]): void {
  const cell = (r: ToolResult | undefined) => (r ? `${secs(r.wallMs)}${r.failed ? ` (${r.failed} failed)` : ''}` : '—');
  const ratio = (r: ToolResult | undefined, o: ToolResult) => (r ? `${(r.wallMs / o.wallMs).toFixed(2)}×` : '—');
  const head = ['task', 'load', 'ours', 'failed', 'retries', 'peak RSS', 'ansible -f 5', 'ansible -f N', `parallel-ssh -p ${n}`, 'vs -f 5', 'vs -f N', 'vs pssh'];
  const body = rows.map((r) => [
    r.task,
    r.ours.load.toFixed(1),
    secs(r.ours.wallMs),
    String(r.ours.failed),
    String(r.ours.retries),
    `${r.ours.rssMb.toFixed(0)} MB`,
    cell(r.a5),
    cell(r.aN),
    cell(r.ps),
    ratio(r.a5, r.ours),
    ratio(r.aN, r.ours),
    ratio(r.ps, r.ours),
  ]);
  const widths = head.map((h, i) => Math.max(h.length, ...body.map((b) => b[i]!.length)));
  const line = (cells: string[]) => `| ${cells.map((c, i) => c.padEnd(widths[i]!)).join(' | ')} |`;
  console.log(`\nfan-out over ${n} hosts, the same work on every side (facts: our facts script, Ansible's script module running it; ratios: their wall time / ours; > 1 means we are faster; load: 1-min load average as ours started, ${cpus().length} cores; now ${loadavg().map((l) => l.toFixed(1)).join(' ')})`);
  console.log(line(head));
  console.log(`|${widths.map((w) => '-'.repeat(w + 2)).join('|')}|`);
  for (const b of body) console.log(line(b));
  const worst = (pick: (r: (typeof rows)[number]) => ToolResult | undefined) => Math.min(...rows.map((r) => (pick(r) ? pick(r)!.wallMs / r.ours.wallMs : Infinity)));
  const peak = Math.max(...rows.map((r) => r.ours.rssMb));
  const failed = rows.reduce((s, r) => s + r.ours.failed, 0);
  console.log('\ngoals:');
  if (rows[0]?.a5) console.log(`  ≥ 5× faster than Ansible at 5 forks: worst ${worst((r) => r.a5).toFixed(2)}× ${worst((r) => r.a5) >= 5 ? 'met' : 'NOT met'}`);
  if (rows[0]?.aN) console.log(`  ≥ 1.5× faster than Ansible at ${n} forks: worst ${worst((r) => r.aN).toFixed(2)}× ${worst((r) => r.aN) >= 1.5 ? 'met' : 'NOT met'}`);
  console.log(`  peak RSS ${peak.toFixed(0)} MB${n === 100 ? ` (goal ≤ 200 MB at N = 100: ${peak <= 200 ? 'met' : 'NOT met'})` : ''}`);
  console.log(`  failed hosts (ours): ${failed}${failed === 0 ? '' : ' — NOT met'}`);
}

main().catch((e: unknown) => {
  process.stderr.write(`${(e as Error).message}\n`);
  process.exitCode = 1;
});
