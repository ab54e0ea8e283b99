/**
 * The lab's acceptance suite (issue 4, "Done when"): brings up the whole air-gapped datacenter with
 * `lab up --cluster`, checks the cluster the reference procedure built, injects the failures and measures
 * how long each failover takes. Needs root on Linux; run with `npm run test:lab`.
 *
 * KW_LAB_KEEP=1 leaves the lab up afterwards; KW_LAB_REUSE=1 reuses a running cluster instead of rebuilding it.
 */
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync, spawn, spawnSync } from 'node:child_process';
import { readFileSync, existsSync, writeFileSync, mkdirSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { recordBench } from './bench';
import { leaderLeasesOnto } from './leaderLeases';
import { tempDir } from '../tempDir';

const LAB = resolve(__dirname, '../../lab/lab.sh');
const VIP = '10.3.60.100';
const MASTERS = ['labs-k8s-m01', 'labs-k8s-m02', 'labs-k8s-m03'];
const report: Record<string, unknown> = {};
let env: Record<string, string> = {};

function lab(args: string[], timeoutMs = 30 * 60_000): string {
  const r = spawnSync('bash', [LAB, ...args], { encoding: 'utf8', timeout: timeoutMs });
  if (r.status !== 0) throw new Error(`lab ${args.join(' ')} failed (${r.status}):\n${r.stdout}\n${r.stderr}`);
  return r.stdout;
}
function labEnv(): Record<string, string> {
  const out: Record<string, string> = {};
  for (const m of lab(['env']).matchAll(/^export (\w+)="(.*)"$/gm)) out[m[1]!] = m[2]!.replace('$PATH', process.env.PATH ?? '');
  return out;
}
function sh(cmd: string, args: string[], timeoutMs = 30_000): string {
  return execFileSync(cmd, args, { encoding: 'utf8', timeout: timeoutMs, env: { ...process.env, ...env }, stdio: ['ignore', 'pipe', 'pipe'] });
}
const kubectl = (...args: string[]) => sh('kubectl', ['--request-timeout=10s', ...args]);
const ssh = (host: string, command: string, timeoutMs = 20_000) =>
  sh('ssh', ['-F', env.LAB_SSH_CONFIG!, '-o', 'ConnectTimeout=3', '-o', 'BatchMode=yes', host, command], timeoutMs);
const trySh = <T>(f: () => T): T | undefined => { try { return f(); } catch { return undefined; } };
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
/** Polls f until it returns a value; `seconds` counts from `since` (default: now), e.g. the moment a fault began. */
async function waitFor<T>(what: string, f: () => T | undefined | false, timeoutMs: number, everyMs = 250, since = Date.now()): Promise<{ value: T; seconds: number }> {
  const t0 = since;
  for (;;) {
    const v = trySh(f);
    if (v !== undefined && v !== false) return { value: v as T, seconds: (Date.now() - t0) / 1000 };
    if (Date.now() - t0 > timeoutMs) throw new Error(`timed out after ${timeoutMs / 1000} s waiting for ${what}`);
    await sleep(everyMs);
  }
}

/** etcd's JSON has uint64 member ids as bare numbers; keep them as strings so JSON.parse does not round them. */
interface EtcdEndpointStatus { Endpoint: string; Status: { header: { member_id: string }; leader: string } }
function parseEtcdJson(s: string): EtcdEndpointStatus[] {
  return JSON.parse(s.replace(/(:\s*)(\d{16,})/g, '$1"$2"')) as EtcdEndpointStatus[];
}
let etcdCerts = '';
function etcdStatus(endpoints: string[]): { endpoint: string; id: string; leader: string }[] {
  const out = sh('etcdctl', ['--endpoints', endpoints.join(','), '--cacert', `${etcdCerts}/ca.crt`, '--cert', `${etcdCerts}/client.crt`,
    '--key', `${etcdCerts}/client.key`, '--command-timeout=3s', '--dial-timeout=2s', 'endpoint', 'status', '-w', 'json'], 15_000);
  return parseEtcdJson(out).map((e) => ({ endpoint: e.Endpoint, id: String(e.Status.header.member_id), leader: String(e.Status.leader) }));
}
/** `etcdctl` with the lab's client certificate against `endpoints`. */
function etcdctl(endpoints: string[], ...args: string[]): string {
  return sh('etcdctl', ['--endpoints', endpoints.join(','), '--cacert', `${etcdCerts}/ca.crt`, '--cert', `${etcdCerts}/client.crt`, '--key', `${etcdCerts}/client.key`, '--command-timeout=10s', ...args], 20_000);
}
const ETCD_ENDPOINTS = MASTERS.map((_, i) => `https://10.3.60.5${i + 1}:2379`);
/**
 * Puts on m01 what the power-off test watches move: etcd's leadership (move-leader) and both leader leases (the
 * scheduler and controller-manager of m02 and m03 stopped until m01's have taken them, then started again as
 * stand-bys). Without that the test could pass with nothing to elect and nothing to move.
 */
async function concentrateOnM01(): Promise<void> {
  const st = etcdStatus(ETCD_ENDPOINTS);
  const m01 = st.find((s) => s.endpoint.includes('10.3.60.51'))!;
  const leader = st.find((s) => s.id === s.leader)!;
  if (leader.id !== m01.id) etcdctl([leader.endpoint], 'move-leader', BigInt(m01.id).toString(16));
  await waitFor('etcd leader on m01', () => etcdStatus(ETCD_ENDPOINTS).every((s) => s.leader === m01.id), 30_000, 250);
  await leaderLeasesOnto('labs-k8s-m01', env);
}
function leaseHolder(name: string): string {
  return JSON.parse(kubectl('-n', 'kube-system', 'get', 'lease', name, '-o', 'json')).spec.holderIdentity as string;
}
function vipHolder(): string | undefined {
  for (const b of ['labs-k8s-balancer', 'labs-k8s-balancer2']) {
    if (trySh(() => ssh(b, 'ip -br addr show ens192'))?.includes(VIP)) return b;
  }
  return undefined;
}

function prerequisites(): string[] {
  const missing: string[] = [];
  if (process.platform !== 'linux') missing.push('Linux (the lab builds machines from namespaces and systemd-nspawn)');
  if (process.getuid?.() !== 0) missing.push('root (run the suite as root: sudo npm run test:lab)');
  for (const [tool, pkg] of [['systemd-nspawn', 'systemd-container'], ['debootstrap', 'debootstrap'], ['apt-ftparchive', 'apt-utils'],
    ['go', 'a Go toolchain (Go >= 1.24)'], ['gcc', 'gcc (static pause binary)'], ['gpg', 'gnupg'], ['ssh', 'openssh-client'], ['curl', 'curl']]) {
    if (spawnSync('sh', ['-c', `command -v ${tool}`]).status !== 0) missing.push(`${tool} (apt-get install ${pkg})`);
  }
  return missing;
}

describe('lab: air-gapped HA kubeadm cluster on one machine', { timeout: 90 * 60_000 }, () => {
  before(async () => {
    const missing = prerequisites();
    if (missing.length) {
      throw new Error(`lab prerequisites missing:\n  - ${missing.join('\n  - ')}`);
    }
    let t0 = Date.now();
    // The lab tier (test/lab/run.sh) has built it and may be building the previous minor beside: no second build.
    if (process.env.KW_LAB_BUILT !== '1') lab(['build'], 90 * 60_000);
    report.buildOrCacheCheckSeconds = (Date.now() - t0) / 1000;
    env = labEnv();
    const reuse = process.env.KW_LAB_REUSE === '1' && existsSync(env.KUBECONFIG!) &&
      trySh(() => kubectl('get', 'nodes', '--no-headers').trim().split('\n').length === 5);
    if (!reuse) {
      lab(['down']);
      t0 = Date.now();
      lab(['up']);
      report.upSeconds = (Date.now() - t0) / 1000;
      // The nodes stay up: the reference script's time is then the cluster alone, like the engine's `up` on booted nodes.
      t0 = Date.now();
      const up = spawnSync('bash', [LAB, 'up', '--cluster'], { encoding: 'utf8', timeout: 40 * 60_000 });
      if (up.status !== 0) throw new Error(`lab up --cluster failed (${up.status}):\n${up.stdout}\n${up.stderr}`);
      report.upClusterSeconds = (Date.now() - t0) / 1000;
      const cluster = /cluster up in (\d+) s/.exec(`${up.stdout}${up.stderr}`);
      recordBench({ referenceClusterSeconds: cluster ? Number(cluster[1]) : (report.upClusterSeconds as number), referenceClusterVersion: labEnv().LAB_KUBE_VERSION ?? '' });
    }
    env = labEnv();
    etcdCerts = tempDir('kwlab-etcd-');
    for (const [src, dst] of [['ca.crt', 'ca.crt'], ['healthcheck-client.crt', 'client.crt'], ['healthcheck-client.key', 'client.key']]) {
      writeFileSync(join(etcdCerts, dst), ssh('labs-k8s-m01', `cat /etc/kubernetes/pki/etcd/${src}`), { mode: 0o600 });
    }
  });

  after(() => {
    if (env.LAB_SSH_CONFIG && !process.env.KW_LAB_KEEP) trySh(() => lab(['down']));
    const dir = join(process.env.KW_LAB_CACHE ?? '/var/cache/kubeadm-workbench/lab', 'report');
    trySh(() => { mkdirSync(dir, { recursive: true }); writeFileSync(join(dir, 'last-run.json'), JSON.stringify(report, null, 2)); });
    console.log('lab report:', JSON.stringify(report, null, 2));
  });

  test('5 nodes are Ready', () => {
    type NodeJson = { metadata: { name: string }; status: { conditions: { type: string; status: string }[] } };
    const nodes = JSON.parse(kubectl('get', 'nodes', '-o', 'json')).items as NodeJson[];
    const ready = nodes.filter((n) => n.status.conditions.some((c) => c.type === 'Ready' && c.status === 'True'));
    assert.deepEqual(ready.map((n) => n.metadata.name).sort(),
      ['labs-k8s-m01', 'labs-k8s-m02', 'labs-k8s-m03', 'labs-k8s-w01', 'labs-k8s-w02']);
  });

  test('etcd has 3 members and exactly one leader', () => {
    const st = etcdStatus(MASTERS.map((_m, i) => `https://10.3.60.5${i + 1}:2379`));
    assert.equal(st.length, 3);
    assert.equal(new Set(st.map((s) => s.leader)).size, 1, 'all members agree on one leader');
    assert.ok(st.some((s) => s.id === s.leader), 'the leader is one of the members');
  });

  test('HAProxy reports 3 UP backends, on both balancers', () => {
    for (const b of ['labs-k8s-balancer', 'labs-k8s-balancer2']) {
      const csv = ssh(b, 'echo "show stat" | socat stdio /run/haproxy/admin.sock');
      const up = csv.split('\n').filter((l) => l.startsWith('kubernetes-master-nodes,labs-k8s-m') && l.split(',')[17] === 'UP');
      assert.equal(up.length, 3, `${b}: ${csv}`);
    }
  });

  test('the VIP is on the MASTER balancer and the API answers through it', () => {
    assert.equal(vipHolder(), 'labs-k8s-balancer');
    assert.match(readFileSync(env.KUBECONFIG!, 'utf8'), new RegExp(`server: https://${VIP.replace(/\./g, '\\.')}:6443`));
    assert.equal(kubectl('get', '--raw', '/readyz').trim(), 'ok');
  });

  test('CoreDNS is Running', () => {
    const pods = JSON.parse(kubectl('-n', 'kube-system', 'get', 'pods', '-l', 'k8s-app=kube-dns', '-o', 'json')).items;
    assert.ok(pods.length >= 1);
    for (const p of pods) assert.equal(p.status.phase, 'Running', p.metadata.name);
  });

  test('kubectl run of the lab web image: Running, with events Scheduled, Pulling, Pulled, Created, Started', async () => {
    trySh(() => kubectl('delete', 'pod', 'kwlab-web', '--ignore-not-found', '--wait=true'));
    const t0 = Date.now();
    kubectl('run', 'kwlab-web', '--image=10.3.60.1:5000/kwlab/web:1.0', '--restart=Never', '--port=8080');
    const { value: pod } = await waitFor('pod kwlab-web Running', () => {
      const p = JSON.parse(kubectl('get', 'pod', 'kwlab-web', '-o', 'json'));
      return p.status.phase === 'Running' ? p : undefined;
    }, 180_000, 1000);
    report.podRunningSeconds = (Date.now() - t0) / 1000;
    const { value: reasons } = await waitFor('all five events', () => {
      const ev = JSON.parse(kubectl('get', 'events', '--field-selector', 'involvedObject.name=kwlab-web', '-o', 'json')).items;
      const r = new Set((ev as { reason: string }[]).map((e) => e.reason));
      return ['Scheduled', 'Pulling', 'Pulled', 'Created', 'Started'].every((x) => r.has(x)) ? r : undefined;
    }, 30_000, 1000);
    assert.ok(reasons.has('Started'));
    // and it serves, across the flannel overlay, from a control-plane node
    const body = ssh('labs-k8s-m01', `curl -fsS --max-time 5 http://${pod.status.podIP}:8080/`);
    assert.match(body, /^kwlab-web kwlab-web/);
  });

  test('power off m01: API answers via VIP, etcd elects a leader, scheduler and controller-manager leases move', async () => {
    await concentrateOnM01();
    const before = etcdStatus(ETCD_ENDPOINTS);
    const leaderEndpoint = before.find((s) => s.id === s.leader)!.endpoint;
    const leaseBefore = { scheduler: leaseHolder('kube-scheduler'), cm: leaseHolder('kube-controller-manager') };
    assert.match(leaderEndpoint, /10\.3\.60\.51/, 'm01 leads etcd before the power-off');
    assert.ok(leaseBefore.scheduler.startsWith('labs-k8s-m01_') && leaseBefore.cm.startsWith('labs-k8s-m01_'), JSON.stringify(leaseBefore));
    report.beforePowerOff = { etcdLeader: leaderEndpoint, leases: leaseBefore };
    const t0 = Date.now();
    // the power-off runs in the background so that the etcd election is timed from the kill itself
    const off = new Promise<void>((res, rej) => {
      const p = spawn('bash', [LAB, 'fault', 'power-off', 'm01'], { stdio: 'ignore' });
      p.on('exit', (code) => (code === 0 ? res() : rej(new Error(`lab fault power-off m01 exited ${code}`))));
    });
    const survivors = ['https://10.3.60.52:2379', 'https://10.3.60.53:2379'];
    const etcd = await waitFor('an etcd leader among m02/m03', () => {
      const st = etcdStatus(survivors);
      const l = new Set(st.map((s) => s.leader));
      // A new leader: m01's id (the old one) does not count, though a survivor may still name it for a moment.
      return l.size === 1 && st.some((s) => s.id === s.leader) ? st.find((s) => s.id === s.leader)!.endpoint : undefined;
    }, 60_000, 100, t0);
    await off;
    report.powerOffCommandSeconds = (Date.now() - t0) / 1000;
    assert.ok(!trySh(() => ssh('labs-k8s-m01', 'true', 3000)), 'm01 is off');
    // the API still answers through the VIP once m01 is gone. Until HAProxy's checks (fall 3) take m01 out of
    // the pool, a connection that round-robin sends to m01 hangs: short timeouts, and time both.
    const api = await waitFor('API through the VIP', () => sh('kubectl', ['--request-timeout=2s', 'get', '--raw', '/readyz']).trim() === 'ok', 120_000, 250, t0);
    const down = await waitFor('HAProxy marks m01 DOWN', () => /kubernetes-master-nodes,labs-k8s-m01,(?:[^,]*,){15}DOWN/.test(
      ssh('labs-k8s-balancer', 'echo "show stat" | socat stdio /run/haproxy/admin.sock')), 60_000, 250, t0);
    const apiAfterDown = await waitFor('API through the VIP, every time', () => {
      for (let i = 0; i < 6; i++) if (sh('kubectl', ['--request-timeout=3s', 'get', '--raw', '/readyz']).trim() !== 'ok') return undefined;
      return true;
    }, 30_000, 250, t0);
    const leases = await waitFor('scheduler and controller-manager leases off m01', () => {
      const s = leaseHolder('kube-scheduler'), c = leaseHolder('kube-controller-manager');
      return !s.startsWith('labs-k8s-m01') && !c.startsWith('labs-k8s-m01') ? { scheduler: s, cm: c } : undefined;
    }, 180_000, 500, t0);
    report.powerOffM01 = {
      apiAnswersViaVipAfterSeconds: api.seconds,
      haproxyMarksM01DownAfterSeconds: down.seconds,
      apiAnswersEveryRequestAfterSeconds: apiAfterDown.seconds,
      etcdLeaderWasOnM01: leaderEndpoint.includes('10.3.60.51'),
      etcdLeaderAfterSeconds: etcd.seconds,
      etcdLeader: etcd.value,
      leasesOffM01AfterSeconds: leases.seconds,
      leasesBefore: leaseBefore,
      leasesAfter: leases.value,
    };
    assert.ok(etcd.value.includes('10.3.60.52') || etcd.value.includes('10.3.60.53'));
    assert.ok(etcd.seconds >= 1, `an election takes at least etcd's election timeout (1 s): ${etcd.seconds} s`);
    assert.match(leases.value.scheduler, /^labs-k8s-m0[23]_/, 'the scheduler lease is taken by m02 or m03');
    assert.match(leases.value.cm, /^labs-k8s-m0[23]_/, 'the controller-manager lease is taken by m02 or m03');
    assert.ok(leases.seconds >= 10, `a lease moves only once it expired (15 s after the last renewal): ${leases.seconds} s`);
    // power back on: m01 rejoins etcd on its own
    const t1 = Date.now();
    lab(['fault', 'power-on', 'm01']);
    await waitFor('m01 back in etcd', () => etcdStatus(['https://10.3.60.51:2379']).length === 1, 180_000, 1000);
    report.m01RejoinedEtcdAfterSeconds = (Date.now() - t1) / 1000;
    // The reference cluster's HAProxy checks the API servers by TCP: it sends requests to m01's API server as soon as
    // its port opens, before its post-start hooks are done (seen in the tier: /readyz through the VIP answered
    // "[-]poststarthook/rbac/bootstrap-roles failed" right after the next test moved the VIP). Settled when m01's
    // own /readyz says ok, so the VIP test below starts from a healthy cluster, as each test here does.
    await waitFor('m01\'s API server ready', () => kubectl('--server', 'https://10.3.60.51:6443', 'get', '--raw', '/readyz').trim() === 'ok', 180_000, 1000);
    report.m01ApiReadyAfterSeconds = (Date.now() - t1) / 1000;
  });

  test('stop HAProxy on the MASTER balancer: the VIP moves to balancer2, and back', async () => {
    assert.equal(vipHolder(), 'labs-k8s-balancer');
    const t0 = Date.now();
    ssh('labs-k8s-balancer', 'systemctl stop haproxy');
    const moved = await waitFor('VIP on balancer2', () => vipHolder() === 'labs-k8s-balancer2', 30_000, 200);
    report.vipFailoverSeconds = moved.seconds;
    assert.equal(kubectl('get', '--raw', '/readyz').trim(), 'ok', 'the API answers through the VIP on balancer2');
    ssh('labs-k8s-balancer', 'systemctl start haproxy');
    const back = await waitFor('VIP back on balancer', () => vipHolder() === 'labs-k8s-balancer', 30_000, 200);
    report.vipFailbackSeconds = back.seconds;
    report.totalFailoverCheckSeconds = (Date.now() - t0) / 1000;
  });

  test('idle resources of the 7 nodes (reported)', () => {
    const out = lab(['stats', '10']);   // CPU averaged over 10 s: enough for an idle figure, 10 s less of the tier
    report.idleStats = out;
    const total = /^TOTAL\s+(\d+)\s+([\d.]+)/m.exec(out);
    assert.ok(total, out);
    report.idleMemoryMiB = Number(total![1]); report.idleCpuPercentOfOneCore = Number(total![2]);
  });
});
