/**
 * Two real keepalived (Debian 12's 2.2.7) on a private L2 segment: each in a network namespace of its own with an
 * `ens192` joined by a veth pair, its own /run and /tmp (pid files, the data dumps), so what the product reads on a
 * balancer — `ip -o addr`, keepalived's DATA and STATS dumps — is read here the same way (nsenter into keepalived's
 * namespaces). Root only (the keepalived oracle's requirement). Addresses 10.99.0.1/.2, VIP 10.99.0.100: inside the
 * namespaces, nothing reaches the machine's network.
 */
import { execFileSync, spawn, type ChildProcess } from 'node:child_process';
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { tempDir } from '../../tempDir';

export const VIP = '10.99.0.100';
export const ADDRESSES = { lb1: '10.99.0.1', lb2: '10.99.0.2' } as const;
export type Side = keyof typeof ADDRESSES;

export interface SideConfig {
  state: 'MASTER' | 'BACKUP';
  priority: number;
  weight: number;
  /** VRRPv3 lets advert_int go below a second, so a test's failovers take a fraction of the seed's seconds. */
  advertInt?: number;
  interval?: number;
  nopreempt?: boolean;
}

/** The seed's instance, with `test -e /tmp/ok` as the check in place of `killall -0 haproxy` (remove the file: HAProxy "dies"). */
export function config(side: Side, c: SideConfig): string {
  return [
    'global_defs {',
    `    router_id ${side}`,
    '    enable_script_security',
    '    script_user root',
    '    vrrp_version 3',
    '}',
    'vrrp_script chk_haproxy {',
    '    script "/usr/bin/test -e /tmp/ok"',
    `    interval ${c.interval ?? 1}`,
    '    fall 1',
    '    rise 1',
    `    weight ${c.weight}`,
    '}',
    'vrrp_instance VI_K8S_API {',
    `    state ${c.state}`,
    '    interface ens192',
    '    virtual_router_id 51',
    `    priority ${c.priority}`,
    `    advert_int ${c.advertInt ?? 0.25}`,
    ...(c.nopreempt ? ['    nopreempt'] : []),
    '    virtual_ipaddress {',
    `        ${VIP}/24`,
    '    }',
    '    track_script {',
    '        chk_haproxy',
    '    }',
    '}',
    '',
  ].join('\n');
}

export class VrrpPair {
  private readonly tag = `kwv${process.pid % 100000}`;
  private readonly dir = tempDir('kw-vrrp-');
  private readonly procs = new Map<Side, ChildProcess>();

  private ns(side: Side): string {
    return `${this.tag}-${side}`;
  }

  /** The namespaces and the link between them. */
  setUp(): void {
    const [a, b] = [this.ns('lb1'), this.ns('lb2')];
    for (const n of [a, b]) execFileSync('ip', ['netns', 'add', n]);
    execFileSync('ip', ['link', 'add', `${this.tag}a`, 'type', 'veth', 'peer', 'name', `${this.tag}b`]);
    for (const [side, end] of [['lb1', `${this.tag}a`], ['lb2', `${this.tag}b`]] as const) {
      const n = this.ns(side);
      execFileSync('ip', ['link', 'set', end, 'netns', n]);
      execFileSync('ip', ['-n', n, 'link', 'set', end, 'name', 'ens192']);
      execFileSync('ip', ['-n', n, 'addr', 'add', `${ADDRESSES[side]}/24`, 'dev', 'ens192']);
      execFileSync('ip', ['-n', n, 'link', 'set', 'ens192', 'up']);
      execFileSync('ip', ['-n', n, 'link', 'set', 'lo', 'up']);
    }
  }

  /** Starts keepalived on one side with this configuration (its check passes until `failCheck`). */
  start(side: Side, text: string): void {
    const run = join(this.dir, side, 'run');
    const tmp = join(this.dir, side, 'tmp');
    mkdirSync(run, { recursive: true });
    mkdirSync(tmp, { recursive: true });
    writeFileSync(join(run, 'keepalived.conf'), text);
    writeFileSync(join(tmp, 'ok'), '');
    const script = 'mount --bind "$1" /run && mount --bind "$2" /tmp && exec keepalived -n -l -D -f /run/keepalived.conf';
    // without the test runner's TMPDIR (a path this namespace's /tmp hides), as systemd starts it on a balancer
    const { TMPDIR: _tmp, ...env } = process.env;
    const p = spawn('ip', ['netns', 'exec', this.ns(side), 'unshare', '-m', 'sh', '-c', script, 'sh', run, tmp], { stdio: 'ignore', env });
    this.procs.set(side, p);
  }

  /** A shell script run in the side's keepalived namespaces (its /run, /tmp and ens192), as the product runs it over SSH. */
  exec(side: Side, script: string): string {
    // keepalived's own pid (its pid file on the host's side of the bind mount): the spawned `ip netns exec` is not in
    // the mount namespace `unshare -m` made for keepalived
    const pid = readFileSync(join(this.dir, side, 'run', 'keepalived.pid'), 'utf8').trim();
    const { TMPDIR: _tmp, ...env } = process.env;
    return execFileSync('nsenter', [`--mount=/proc/${pid}/ns/mnt`, `--net=/proc/${pid}/ns/net`, 'sh', '-c', script], { encoding: 'utf8', timeout: 10_000, env });
  }

  holdsVip(side: Side): boolean {
    return execFileSync('ip', ['-n', this.ns(side), '-o', 'addr', 'show', 'dev', 'ens192'], { encoding: 'utf8' }).includes(` ${VIP}/`);
  }

  /** The side's HAProxy check starts failing (or passing again). */
  failCheck(side: Side, failing = true): void {
    this.exec(side, failing ? 'rm -f /tmp/ok' : 'touch /tmp/ok');
  }

  /** Rewrites the side's configuration and reloads keepalived (SIGHUP), as `systemctl reload keepalived` does. */
  reload(side: Side, text: string): void {
    writeFileSync(join(this.dir, side, 'run', 'keepalived.conf'), text);
    this.procs.get(side)!.kill('SIGHUP');
  }

  /**
   * This side stops hearing the other one's adverts: a blackhole route to the other's address with strict reverse-path
   * filtering drops everything that comes from it (this machine's kernel has neither netfilter nor tc's drop action).
   */
  blockVrrp(side: Side, blocked = true): void {
    const n = this.ns(side);
    const other = ADDRESSES[side === 'lb1' ? 'lb2' : 'lb1'];
    if (blocked) {
      execFileSync('ip', ['netns', 'exec', n, 'sysctl', '-qw', 'net.ipv4.conf.all.rp_filter=1', 'net.ipv4.conf.ens192.rp_filter=1']);
      execFileSync('ip', ['-n', n, 'route', 'add', 'blackhole', `${other}/32`]);
    } else {
      execFileSync('ip', ['-n', n, 'route', 'del', 'blackhole', `${other}/32`]);
    }
  }

  async stop(side: Side): Promise<void> {
    const p = this.procs.get(side);
    if (!p || p.exitCode !== null) return;
    const exited = new Promise((r) => p.once('exit', r));
    p.kill('SIGTERM');
    await Promise.race([exited, new Promise((r) => setTimeout(r, 5000))]);
    this.procs.delete(side);
  }

  async tearDown(): Promise<void> {
    for (const side of [...this.procs.keys()]) await this.stop(side);
    for (const side of ['lb1', 'lb2'] as const) {
      try {
        execFileSync('ip', ['netns', 'del', this.ns(side)]);
      } catch {
        // not made (set-up failed early)
      }
    }
  }
}

/** Polls `fn` every 50 ms until it is true or `ms` passed; the milliseconds it took, or undefined. */
export async function within(ms: number, fn: () => boolean): Promise<number | undefined> {
  const t0 = performance.now();
  while (performance.now() - t0 < ms) {
    if (fn()) return performance.now() - t0;
    await new Promise((r) => setTimeout(r, 50));
  }
  return fn() ? performance.now() - t0 : undefined;
}
