/**
 * Start-up of the command line against the tools it stands beside, as whole processes, in pairs run in turn (A B A B
 * …) so that the machine's drift hits both sides alike, each side's wall and CPU time taken by a helper shell
 * (./peerShell.ts: bash's `times` gives its children's CPU):
 *   kubeadm-workbench --help                       against  node -e 0                goal ≤ 1.3x
 *   kubeadm-workbench lint <10,000-line haproxy.cfg> against haproxy -c -f (same file) goal ≤ 1.0x
 *   kubeadm-workbench lint examples/labs-k8s       (next to node -e 0)               goal ≤ 150 ms
 * The CLI is dist/cli.js as `npm run bench:startup` builds it (the production build the package ships). Printed
 * numbers with their goals, not a timed test. KW_BENCH_RUNS sets the pairs per row (default 20, after 3 unmeasured);
 * KW_CLI=path/to/cli.js measures another build instead.
 */
import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { bigConfig, TARGET_LINES } from './haproxyConfig';
import { PeerShell, type PeerRun } from './peerShell';

const ROOT = join(__dirname, '..');
/** KW_CLI names another build's cli.js (an older one, to compare on the same machine). */
const CLI = process.env.KW_CLI ?? join(ROOT, 'dist', 'cli.js');
const RUNS = Number(process.env.KW_BENCH_RUNS ?? 20);
const WARMUP = 3;

interface Row {
  name: string;
  ours: string[];
  peer: string[] | undefined;
  peerName: string;
  /** The goal as a ratio to the peer, or as milliseconds of our wall time. */
  goal: { ratio: number } | { ms: number };
}

function median(xs: number[]): number {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.floor(s.length / 2)]!;
}

/** Runs `ours` and `peer` in turn, RUNS measured pairs after WARMUP; the runs of each and the ratio of each pair. */
function pairs(ours: string[], peer: string[]): { a: PeerRun[]; b: PeerRun[] } {
  // bash: CPU times in 1 ms steps (these processes take tens of milliseconds)
  const A = new PeerShell(ours, 'bash');
  const B = new PeerShell(peer, 'bash');
  try {
    const a: PeerRun[] = [];
    const b: PeerRun[] = [];
    for (let i = 0; i < WARMUP + RUNS; i++) {
      const ra = A.run();
      const rb = B.run();
      if (i >= WARMUP) {
        a.push(ra);
        b.push(rb);
      }
    }
    return { a, b };
  } finally {
    A.close();
    B.close();
  }
}

const ms = (x: number): string => x.toFixed(0).padStart(5);

function main(): number {
  if (!existsSync(CLI)) {
    console.error('dist/cli.js is missing: npm run bench:startup builds it first');
    return 1;
  }
  const dir = mkdtempSync(join(tmpdir(), 'kw-startup-'));
  try {
    const cfg = join(dir, 'haproxy.cfg');
    writeFileSync(cfg, bigConfig());
    const haveHaproxy = !spawnSync('haproxy', ['-v']).error;
    const node = process.execPath;
    const rows: Row[] = [
      { name: 'kubeadm-workbench --help', ours: [node, CLI, '--help'], peer: [node, '-e', '0'], peerName: 'node -e 0', goal: { ratio: 1.3 } },
      { name: `kubeadm-workbench lint haproxy.cfg (${TARGET_LINES} lines)`, ours: [node, CLI, 'lint', cfg], peer: haveHaproxy ? ['haproxy', '-c', '-f', cfg] : undefined, peerName: 'haproxy -c -f', goal: { ratio: 1.0 } },
      { name: 'kubeadm-workbench lint examples/labs-k8s', ours: [node, CLI, 'lint', join(ROOT, 'examples/labs-k8s')], peer: [node, '-e', '0'], peerName: 'node -e 0', goal: { ms: 150 } },
    ];
    console.log(`${CLI}, Node ${process.version}; ${RUNS} pairs per row (A B A B …, after ${WARMUP} unmeasured); load average ${loadavg()[0]!.toFixed(1)} at the start`);
    console.log(`| ${'command (A)'.padEnd(50)} | A wall | A cpu | ${'peer (B)'.padEnd(13)} | B wall | B cpu | A/B wall | A/B cpu | goal            |`);
    console.log(`|${'-'.repeat(52)}|--------|-------|${'-'.repeat(15)}|--------|-------|----------|---------|-----------------|`);
    for (const row of rows) {
      if (!row.peer) {
        console.log(`| ${row.name.padEnd(50)} | ${row.peerName} is not installed (apt-get install -y haproxy): no pair`);
        continue;
      }
      const { a, b } = pairs(row.ours, row.peer);
      const bad = [...a, ...b].find((r) => r.status !== 0);
      if (bad) throw new Error(`${row.name}: a run exited ${bad.status}`);
      const wallRatio = median(a.map((r, i) => r.wallMs / b[i]!.wallMs));
      const cpuRatio = median(a.map((r, i) => r.cpuMs / b[i]!.cpuMs));
      const aWall = median(a.map((r) => r.wallMs));
      const met = 'ratio' in row.goal ? wallRatio <= row.goal.ratio : aWall <= row.goal.ms;
      const goal = 'ratio' in row.goal ? `≤ ${row.goal.ratio.toFixed(1)}x` : `≤ ${row.goal.ms} ms`;
      console.log(
        `| ${row.name.padEnd(50)} | ${ms(aWall)}  | ${ms(median(a.map((r) => r.cpuMs)))} | ${row.peerName.padEnd(13)} | ${ms(median(b.map((r) => r.wallMs)))}  | ${ms(median(b.map((r) => r.cpuMs)))} | ${wallRatio.toFixed(2).padStart(7)}x | ${cpuRatio.toFixed(2).padStart(6)}x | ${`${goal} ${met ? 'met' : 'missed'}`.padEnd(15)} |`,
      );
    }
    console.log('wall and cpu: medians in ms of whole processes (cpu = user + system of the process and its threads); A/B: median of the pairs\' ratios. The goals are judged on wall time.');
    console.log(`load average ${loadavg()[0]!.toFixed(1)} at the end`);
    return 0;
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

process.exitCode = main();
