/**
 * What the balancer and partition lab tests share: the drill verb run as an admin runs it (its JSON report, the moment
 * its fault began), and probes of their own, independent of the drill's: ssh + `ip -o addr` for who holds the VIP,
 * HAProxy's `show stat` on a balancer, the lab's keepalived.conf read with plain regular expressions.
 */
import assert from 'node:assert/strict';
import { execFileSync, spawn, spawnSync } from 'node:child_process';
import { join, resolve } from 'node:path';
import type { DrillReport, Measurement } from '../../src/core/drill/report';
import { showStat } from '../../src/core/nodes/commands';

export const ROOT = resolve(__dirname, '../..');
export const LAB = join(ROOT, 'lab/lab.sh');
const CLI = join(ROOT, 'dist/cli.js');
export const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

export interface DrillRun {
  code: number;
  report: DrillReport | undefined;
  out: string;
  /** The JSON report's text and the running commentary, apart (a test reads the commentary's lines). */
  stdout: string;
  stderr: string;
  /** Date.now() when the drill printed its fault line (the drill's own t = 0 is a few ms before). */
  faultAt: number | undefined;
  /** Date.now() when it printed its restore line. */
  restoreAt: number | undefined;
}

/** `kubeadm-workbench drill --yes --json ...` on the lab; the commentary echoed to stderr as it comes. */
export function runDrill(env: Record<string, string>, home: string, args: string[], timeoutMs = 6 * 60_000): Promise<DrillRun> {
  return new Promise((res, rej) => {
    const p = spawn(process.execPath, [CLI, 'drill', '--inventory', env.LAB_INVENTORY!, '--ssh-config', env.LAB_SSH_CONFIG!, '--known-hosts', env.LAB_KNOWN_HOSTS!, '--kubeconfig', env.KUBECONFIG!, '--yes', '--json', ...args], {
      cwd: ROOT,
      env: { ...process.env, PATH: env.PATH!, HOME: home },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stdout = '';
    let stderr = '';
    let faultAt: number | undefined;
    let restoreAt: number | undefined;
    p.stdout.on('data', (d: Buffer) => (stdout += d.toString()));
    p.stderr.on('data', (d: Buffer) => {
      stderr += d.toString();
      if (faultAt === undefined && /\] fault: /.test(stderr)) faultAt = Date.now();
      if (restoreAt === undefined && /\] restore: /.test(stderr)) restoreAt = Date.now();
      process.stderr.write(d);
    });
    const timer = setTimeout(() => p.kill('SIGINT'), timeoutMs);
    p.on('error', rej);
    p.on('exit', (code) => {
      clearTimeout(timer);
      let report: DrillReport | undefined;
      try {
        report = JSON.parse(stdout) as DrillReport;
      } catch {
        report = undefined;
      }
      res({ code: code ?? -1, report, out: `${stdout}\n${stderr}`, stdout, stderr, faultAt, restoreAt });
    });
  });
}

export function measured(r: DrillReport, id: string): Measurement {
  const m = r.measurements.find((x) => x.id === id);
  assert.ok(m, `no measurement ${id} in the report: ${r.measurements.map((x) => x.id).join(', ')}`);
  return m;
}

/** A command on a lab host over the lab's ssh (its own connection, not the product's pool). */
export function ssh(env: Record<string, string>, host: string, cmd: string, timeoutMs = 15_000): { code: number | null; stdout: string } {
  const r = spawnSync('ssh', ['-F', env.LAB_SSH_CONFIG!, '-o', 'ConnectTimeout=2', '-o', 'BatchMode=yes', host, cmd], { encoding: 'utf8', timeout: timeoutMs });
  return { code: r.status, stdout: r.stdout ?? '' };
}

export function lab(...args: string[]): void {
  const r = spawnSync('bash', [LAB, ...args], { encoding: 'utf8', timeout: 180_000 });
  assert.equal(r.status, 0, `lab ${args.join(' ')}: ${r.stderr}`);
}

/** The numbers of a balancer's keepalived.conf, read with regular expressions (not the product's parser). */
export function keepalivedNumbers(env: Record<string, string>, host: string): { priority: number; advert: number; interval: number; fall: number; rise: number; weight: number; nopreempt: boolean } {
  const text = ssh(env, host, 'cat /etc/keepalived/keepalived.conf').stdout;
  const n = (re: RegExp, d: number) => Number(re.exec(text)?.[1] ?? d);
  return { priority: n(/^\s*priority\s+(\d+)/m, 100), advert: n(/^\s*advert_int\s+([\d.]+)/m, 1), interval: n(/^\s*interval\s+(\d+)/m, 1), fall: n(/^\s*fall\s+(\d+)/m, 1), rise: n(/^\s*rise\s+(\d+)/m, 1), weight: n(/^\s*weight\s+(-?\d+)/m, 0), nopreempt: /^\s*nopreempt\b/m.test(text) };
}

/** The seed's formula. */
export const masterDownSeconds = (advert: number, priority: number) => 3 * advert + ((256 - priority) / 256) * advert;

/**
 * Who holds the VIP, every 250 ms, by its own ssh per balancer (a multiplexed master connection each, so a poll costs a
 * round trip): the moments the holders changed, in Date.now() milliseconds.
 */
export interface VipWatch {
  /** Waits (up to `timeoutMs`) until `holder` alone holds the VIP at or after `fromMs`; true when seen. */
  seenAlone(holder: string, fromMs: number, timeoutMs: number): Promise<boolean>;
  /** Waits (up to `timeoutMs`) for the first change at or after `fromMs` whose holders pass `test`: its moment, or undefined. */
  seen(test: (holders: string[]) => boolean, fromMs: number, timeoutMs: number): Promise<number | undefined>;
  stop(): Promise<{ at: number; holders: string[] }[]>;
}

export function watchVip(env: Record<string, string>, vip: string, balancers: string[]): VipWatch {
  const changes: { at: number; holders: string[] }[] = [];
  let stopped = false;
  const control = ['-o', 'ControlMaster=auto', '-o', `ControlPath=/run/kw-lab-vip-%C`, '-o', 'ControlPersist=120'];
  const dropMaster = (host: string) => spawn('ssh', ['-F', env.LAB_SSH_CONFIG!, ...control, '-O', 'exit', host], { stdio: 'ignore' }).on('error', () => undefined);
  // A host that did not answer three times running (4.5 s): its master connection may be to the machine before a
  // power-off (hung until TCP gives up), and every probe through it would fail after the machine is back — the next
  // probe opens a fresh one. Not at the first miss: a probe slow on a loaded machine would drop a good master, and
  // the probes after it pay a new handshake each.
  const misses = new Map<string, number>();
  const one = (host: string) =>
    new Promise<boolean>((res) => {
      const p = spawn('ssh', ['-F', env.LAB_SSH_CONFIG!, '-o', 'ConnectTimeout=1', '-o', 'BatchMode=yes', ...control, host, 'ip -o -4 addr show'], { stdio: ['ignore', 'pipe', 'ignore'] });
      let out = '';
      const timer = setTimeout(() => p.kill('SIGKILL'), 1500);
      p.stdout.on('data', (d: Buffer) => (out += d.toString()));
      p.on('exit', (code) => {
        clearTimeout(timer);
        const missed = code === 0 ? 0 : (misses.get(host) ?? 0) + 1;
        misses.set(host, missed === 3 ? 0 : missed);
        if (missed === 3) dropMaster(host);
        res(out.includes(` ${vip}/`));
      });
      p.on('error', () => (clearTimeout(timer), res(false)));
    });
  const loop = (async () => {
    let last = '';
    while (!stopped) {
      const held = await Promise.all(balancers.map(one));
      const holders = balancers.filter((_, i) => held[i]);
      if (holders.join() !== last) changes.push({ at: Date.now(), holders });
      last = holders.join();
      await sleep(250);
    }
  })();
  const seen: VipWatch['seen'] = async (test, fromMs, timeoutMs) => {
    // a look at the list every 50 ms: a caller that acts on the change starts at most that late
    for (const end = Date.now() + timeoutMs; ; await sleep(50)) {
      const c = changes.find((x) => x.at >= fromMs && test(x.holders));
      if (c) return c.at;
      if (Date.now() > end || stopped) return undefined;
    }
  };
  return {
    seen,
    async seenAlone(holder, fromMs, timeoutMs) {
      return (await seen((h) => h.length === 1 && h[0] === holder, fromMs, timeoutMs)) !== undefined;
    },
    async stop() {
      stopped = true;
      await loop;
      for (const b of balancers) spawnSync('ssh', ['-F', env.LAB_SSH_CONFIG!, ...control, '-O', 'exit', b], { timeout: 5000 });
      return changes;
    },
  };
}

/** A command over a multiplexed ssh master connection per host (a round trip per call, not a handshake). */
export function sshQuick(env: Record<string, string>, host: string, cmd: string, timeoutMs = 3000): Promise<string> {
  return new Promise((res) => {
    const p = spawn('ssh', ['-F', env.LAB_SSH_CONFIG!, '-o', 'ConnectTimeout=2', '-o', 'BatchMode=yes', '-o', 'ControlMaster=auto', '-o', 'ControlPath=/run/kw-lab-q-%C', '-o', 'ControlPersist=120', host, cmd], { stdio: ['ignore', 'pipe', 'ignore'] });
    let out = '';
    const timer = setTimeout(() => p.kill('SIGKILL'), timeoutMs);
    p.stdout.on('data', (d: Buffer) => (out += d.toString()));
    p.on('exit', () => (clearTimeout(timer), res(out)));
    p.on('error', () => (clearTimeout(timer), res(out)));
  });
}

/**
 * `show stat` of one server through HAProxy's admin socket on a balancer: its status (UP, DOWN, UP 1/3…), read as the
 * product's plans read it (socat where the reference procedure installed it, else perl: our own bring-up installs none).
 */
export async function serverStatus(env: Record<string, string>, balancer: string, server: string): Promise<string | undefined> {
  const csv = await sshQuick(env, balancer, showStat().text);
  const header = csv.split('\n').find((l) => l.startsWith('# '))?.slice(2).split(',') ?? [];
  const [sv, st] = [header.indexOf('svname'), header.indexOf('status')];
  return csv.split('\n').map((l) => l.split(',')).find((f) => f[sv] === server)?.[st];
}

/** The lab's etcd leader, by `etcdctl endpoint status --cluster` in an etcd pod (through kubectl exec). */
export function etcdLeader(env: Record<string, string>, via: string): string {
  const out = execFileSync('kubectl', ['--kubeconfig', env.KUBECONFIG!, '--request-timeout=15s', '-n', 'kube-system', 'exec', `etcd-${via}`, '--', 'etcdctl', '--endpoints=https://127.0.0.1:2379', '--cacert=/etc/kubernetes/pki/etcd/ca.crt', '--cert=/etc/kubernetes/pki/etcd/healthcheck-client.crt', '--key=/etc/kubernetes/pki/etcd/healthcheck-client.key', 'endpoint', 'status', '--cluster', '-w', 'json'], { encoding: 'utf8', env: { ...process.env, PATH: env.PATH! } });
  const rows = JSON.parse(out) as { Endpoint: string; Status: { header: { member_id: number | string }; leader: number | string } }[];
  const leader = rows.find((r) => String(r.Status.header.member_id) === String(r.Status.leader));
  assert.ok(leader, `no etcd leader in ${out}`);
  return leader.Endpoint;
}
