/**
 * An independent record of what a balancer's HAProxy did while a lab test disturbed the cluster: one SSH session to
 * the balancer reads the API backend's server states through the admin socket twice a second, with the balancer's
 * clock, and keeps every change. A test judges with it what the product's own report says (how long a server was
 * DOWN, whether a server was in maintenance while its node restarted) instead of taking the report's word for it.
 */
import { spawn } from 'node:child_process';
import { showStat } from '../../src/core/nodes/commands';

export interface StateChange {
  /** Epoch milliseconds (the balancer's clock; the lab's nodes share this machine's). */
  at: number;
  server: string;
  /** HAProxy's status column: UP, DOWN, MAINT, UP 1/2, DOWN 1/2, … */
  status: string;
}

export interface HaproxyWatch {
  stop(): Promise<StateChange[]>;
}

const BACKEND = 'kubernetes-master-nodes';

/** Parses the watch's lines (`<epoch seconds> server=STATUS,server=STATUS …`) into the changes per server. */
export function changesOf(lines: string[]): StateChange[] {
  const last = new Map<string, string>();
  const out: StateChange[] = [];
  for (const line of lines) {
    const m = /^(\d+(?:\.\d+)?)\s+(.*)$/.exec(line.trim());
    if (!m) continue;
    const at = Math.round(Number(m[1]) * 1000);
    for (const pair of m[2]!.split(';')) {
      const eq = pair.indexOf('=');
      if (eq <= 0) continue;
      const server = pair.slice(0, eq);
      const status = pair.slice(eq + 1);
      if (last.get(server) === status) continue;
      last.set(server, status);
      out.push({ at, server, status });
    }
  }
  return out;
}

/** Seconds each server spent in a status matching `re` between `from` and `to` (epoch ms), from the changes. */
export function secondsIn(changes: StateChange[], server: string, re: RegExp, from: number, to: number): number {
  const mine = changes.filter((c) => c.server === server).sort((a, b) => a.at - b.at);
  let total = 0;
  for (let i = 0; i < mine.length; i++) {
    if (!re.test(mine[i]!.status)) continue;
    const start = Math.max(from, mine[i]!.at);
    const end = Math.min(to, mine[i + 1]?.at ?? to);
    if (end > start) total += end - start;
  }
  return total / 1000;
}

export function watchHaproxy(sshConfig: string, balancer: string): HaproxyWatch {
  // The status column is found by its header name, as HAProxy's CSV may grow columns.
  // show stat as the product's plans read it: socat where the reference procedure installed it, else perl (a balancer
  // our own bring-up made has no socat).
  const script = `while :; do printf '%s ' "$(date +%s.%N)"; ${showStat().text} | awk -F, 'NR == 1 { for (i = 1; i <= NF; i++) if ($i == "status") c = i; next } $1 == "${BACKEND}" && $2 != "BACKEND" { printf "%s=%s;", $2, $c } END { print "" }'; sleep 0.5; done`;
  const child = spawn('ssh', ['-F', sshConfig, '-o', 'BatchMode=yes', '-o', 'ServerAliveInterval=5', balancer, script], { stdio: ['ignore', 'pipe', 'ignore'] });
  let buf = '';
  child.stdout.setEncoding('utf8');
  child.stdout.on('data', (d: string) => (buf += d));
  return {
    async stop() {
      child.kill('SIGTERM');
      await new Promise((r) => (child.exitCode !== null || child.signalCode !== null ? r(undefined) : child.once('exit', r)));
      return changesOf(buf.split('\n'));
    },
  };
}
