/**
 * Runs a peer tool (`haproxy -c`) again and again from a helper shell, for benchmarks that time it between their
 * own measured runs. A spawnSync from the measuring process forks that process: after each fork, the next lints
 * of the same Node process ran at 13-20 ms instead of 8.5-9 (in bursts of up to three runs), while the same
 * interleaving through this helper left them steady and the peer's own time unchanged (110-121 ms either way).
 * The helper is forked once, before anything is measured; each run is a line written to it and its answer read
 * back, both through named pipes, so the benchmark stays synchronous.
 */
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { closeSync, mkdtempSync, openSync, readSync, rmSync, writeSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';

/** One run of the peer: wall time as seen from the benchmark, CPU time of the peer (user + system), exit status. */
export interface PeerRun {
  wallMs: number;
  cpuMs: number;
  status: number;
}

/**
 * The helper reads a line, runs the command (its output discarded) and answers with the exit status and the output
 * of `times`, whose second line is the CPU time of the shell's children so far (dash prints `0m0.100000s 0m0.050000s`).
 */
const HELPER = 'exec 3<"$1" 4>"$2"; shift 2; while read -r _ <&3; do "$@" >/dev/null 2>&1; echo "$?" >&4; times >&4; done';

export class PeerShell {
  private readonly dir: string;
  private readonly helper: ChildProcess;
  private readonly toHelper: number;
  private readonly fromHelper: number;
  private childCpuMs = 0;

  /** `shell`: bash's `times` reads getrusage (1 ms steps), dash's times() (10 ms clock ticks) — for short commands. */
  constructor(command: readonly string[], shell = 'sh') {
    this.dir = mkdtempSync(join(tmpdir(), 'kw-peer-'));
    const input = join(this.dir, 'in');
    const output = join(this.dir, 'out');
    const fifo = spawnSync('mkfifo', ['-m', '600', input, output]);
    if (fifo.status !== 0) throw new Error(`mkfifo failed: ${fifo.stderr}`);
    this.helper = spawn(shell, ['-c', HELPER, 'sh', input, output, ...command], { stdio: 'ignore' });
    // the helper opens `in` first, then `out`: the same order here, or both would wait for the other
    this.toHelper = openSync(input, 'w');
    this.fromHelper = openSync(output, 'r');
  }

  run(): PeerRun {
    const t0 = performance.now();
    writeSync(this.toHelper, 'run\n');
    const answer = this.readLines(3);
    const wallMs = performance.now() - t0;
    const cpu = /^(\d+)m([\d.]+)s (\d+)m([\d.]+)s$/.exec(answer[2]!);
    if (!cpu) throw new Error(`unexpected answer from the peer's shell: ${answer.join(' | ')}`);
    const total = (Number(cpu[1]) * 60 + Number(cpu[2]) + Number(cpu[3]) * 60 + Number(cpu[4])) * 1000;
    const cpuMs = total - this.childCpuMs;
    this.childCpuMs = total;
    return { wallMs, cpuMs, status: Number(answer[0]) };
  }

  close(): void {
    closeSync(this.toHelper);
    closeSync(this.fromHelper);
    this.helper.kill();
    rmSync(this.dir, { recursive: true, force: true });
  }

  private readLines(count: number): string[] {
    const buf = Buffer.alloc(256);
    let text = '';
    while (text.split('\n').length <= count) {
      const n = readSync(this.fromHelper, buf, 0, buf.length, null);
      if (n === 0) throw new Error("the peer's shell ended");
      text += buf.toString('utf8', 0, n);
    }
    return text.split('\n').slice(0, count);
  }
}
