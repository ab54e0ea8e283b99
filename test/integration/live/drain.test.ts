/**
 * cordon / drain / uncordon against a real kube-apiserver + 3-member etcd (test/integration/apiserver.ts), next to
 * `kubectl drain` on the same pods. There is no kubelet and no controller-manager here, which decides how eviction
 * behaves, and the test plays those parts the way they really act:
 *   - an eviction of a Running pod checks its PodDisruptionBudget's *status* (written by the disruption controller):
 *     a fresh PDB answers 429 "still being processed"; the test writes the status (disruptionsAllowed) itself;
 *   - an accepted eviction only marks a bound pod for deletion (deletionTimestamp); the pod object stays until its
 *     kubelet confirms. `fakeKubelet` does what the kubelet does when the containers stopped: DELETE with grace 0 —
 *     optionally re-creating a pod of the same name (a StatefulSet replacement, new UID) to exercise the UID wait.
 * The guard reads the real etcd cluster with etcdctl (the SSH source's command, run by a local shell); control-plane
 * nodes carry the etcd members' names (kubeadm names a stacked member after its node).
 */
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { join } from 'node:path';
import { createDrainCluster } from '../../../src/adapters/kube/drain';
import type { KubeConnection } from '../../../src/adapters/kube/index';
import { loadKubeAdapter } from '../../../src/adapters/kube/load';
import { DEFAULT_DRAIN_OPTIONS } from '../../../src/core/drain/classify';
import { runDrain, setCordon, type DrainCluster, type DrainLine, type DrainRunOptions } from '../../../src/core/drain/drainNode';
import { buildEtcd } from '../../../src/core/live/etcd';
import { etcdctlTlsArgs, readEtcd, sshEtcdctl, type ExecResult, type RemoteExec } from '../../../src/core/live/etcdSource';
import { createNode, findBinary, putLeaderLease, putNodeLease, restartEtcdMember, startTestCluster, waitFor, type TestCluster } from '../apiserver';
import { parseDrainOutput, withoutNamespaces } from '../drainOutput';

const REPO = join(__dirname, '../../..');
const NODE = 'w02';
const CP = ['etcd1', 'etcd2', 'etcd3'];

let c: TestCluster;
let conn: KubeConnection;
let cluster: DrainCluster;
let kubelet: { stop(): void; replaceSameName: Set<string>; hold: Set<string> };

const localShell: RemoteExec = {
  exec: (_host, command) =>
    new Promise<ExecResult>((resolve) => {
      const child = spawn('sh', ['-c', command], { env: { ...process.env, PATH: `${join(findBinary('etcdctl'), '..')}:${process.env.PATH}` } });
      let stdout = '';
      let stderr = '';
      child.stdout.on('data', (d: Buffer) => (stdout += d));
      child.stderr.on('data', (d: Buffer) => (stderr += d));
      child.on('close', (code) => resolve({ code: code ?? -1, stdout, stderr }));
    }),
};

/** Runs a command without blocking the event loop (the fake kubelet must keep working meanwhile). */
function run(cmd: string, args: string[], timeoutMs = 60_000): Promise<{ code: number | null; stdout: string; stderr: string; ms: number }> {
  return new Promise((resolve) => {
    const t0 = Date.now();
    const child = spawn(cmd, args, { stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (d: Buffer) => (stdout += d));
    child.stderr.on('data', (d: Buffer) => (stderr += d));
    const timer = setTimeout(() => child.kill('SIGKILL'), timeoutMs);
    child.on('close', (code) => {
      clearTimeout(timer);
      resolve({ code, stdout, stderr, ms: Date.now() - t0 });
    });
  });
}
const kubectl = (...args: string[]) => run(findBinary('kubectl'), ['--kubeconfig', c.kubeconfig, ...args]);
const ours = (...args: string[]) => run(process.execPath, [join(REPO, 'dist/cli.js'), ...args, '--kubeconfig', c.kubeconfig]);

interface PodJson {
  metadata: { name: string; namespace: string; uid: string; deletionTimestamp?: string; labels?: Record<string, string>; ownerReferences?: unknown[] };
  spec: { nodeName?: string; volumes?: unknown[]; containers: unknown[] };
}

async function createPod(ns: string, name: string, opts: { labels?: Record<string, string>; owner?: { kind: string; name: string; uid: string }; emptyDir?: boolean; node?: string } = {}): Promise<string> {
  const body = {
    apiVersion: 'v1',
    kind: 'Pod',
    metadata: { name, namespace: ns, labels: opts.labels ?? {}, ...(opts.owner ? { ownerReferences: [{ apiVersion: 'apps/v1', ...opts.owner, controller: true }] } : {}) },
    spec: { nodeName: opts.node ?? NODE, terminationGracePeriodSeconds: 30, containers: [{ name: 'c', image: '10.3.60.1:5000/kwlab/web:1.0' }], ...(opts.emptyDir ? { volumes: [{ name: 'scratch', emptyDir: {} }] } : {}) },
  };
  const r = await c.api<PodJson>('POST', `/api/v1/namespaces/${ns}/pods`, body);
  assert.equal(r.status, 201, `pod ${ns}/${name}: ${JSON.stringify(r.body)}`);
  // What its kubelet would report: Running and Ready (a Pending pod is evicted without asking its PDB).
  const s = await c.api('PATCH', `/api/v1/namespaces/${ns}/pods/${name}/status`, { status: { phase: 'Running', conditions: [{ type: 'Ready', status: 'True' }] } }, 'application/merge-patch+json');
  assert.equal(s.status, 200);
  return r.body.metadata.uid;
}

async function createOwner(ns: string, kind: 'ReplicaSet' | 'DaemonSet', name: string): Promise<{ kind: string; name: string; uid: string }> {
  const labels = { app: name };
  const spec = kind === 'ReplicaSet' ? { replicas: 1, selector: { matchLabels: labels }, template: { metadata: { labels }, spec: { containers: [{ name: 'c', image: 'x' }] } } } : { selector: { matchLabels: labels }, template: { metadata: { labels }, spec: { containers: [{ name: 'c', image: 'x' }] } } };
  const r = await c.api<{ metadata: { uid: string } }>('POST', `/apis/apps/v1/namespaces/${ns}/${kind.toLowerCase()}s`, { apiVersion: 'apps/v1', kind, metadata: { name }, spec });
  assert.equal(r.status, 201, JSON.stringify(r.body));
  return { kind, name, uid: r.body.metadata.uid };
}

/** A PDB over app=NAME with the status the disruption controller would write. */
async function createPdb(ns: string, app: string, disruptionsAllowed: number): Promise<void> {
  const r = await c.api('POST', `/apis/policy/v1/namespaces/${ns}/poddisruptionbudgets`, { apiVersion: 'policy/v1', kind: 'PodDisruptionBudget', metadata: { name: app }, spec: { minAvailable: 1, selector: { matchLabels: { app } } } });
  assert.equal(r.status, 201, JSON.stringify(r.body));
  await setPdbAllowed(ns, app, disruptionsAllowed);
}

async function setPdbAllowed(ns: string, name: string, disruptionsAllowed: number): Promise<void> {
  const r = await c.api('PATCH', `/apis/policy/v1/namespaces/${ns}/poddisruptionbudgets/${name}/status`, { status: { observedGeneration: 1, disruptionsAllowed, currentHealthy: 1 + disruptionsAllowed, desiredHealthy: 1, expectedPods: 1 + disruptionsAllowed } }, 'application/merge-patch+json');
  assert.equal(r.status, 200, JSON.stringify(r.body));
}

/** The scenario on w02 in namespace `ns`: a PDB-protected Deployment's pod, a DaemonSet pod, an emptyDir pod, a bare pod. */
async function scenario(ns: string): Promise<void> {
  const nsr = await c.api('POST', '/api/v1/namespaces', { apiVersion: 'v1', kind: 'Namespace', metadata: { name: ns } });
  assert.equal(nsr.status, 201);
  const web = await createOwner(ns, 'ReplicaSet', 'web');
  const cache = await createOwner(ns, 'ReplicaSet', 'cache');
  const agent = await createOwner(ns, 'DaemonSet', 'agent');
  await createPdb(ns, 'web', 1);
  await createPod(ns, 'web-7d4b9-x2kqp', { labels: { app: 'web' }, owner: web });
  await createPod(ns, 'cache-5f6c8-9zt2w', { labels: { app: 'cache' }, owner: cache, emptyDir: true });
  await createPod(ns, 'agent-q8v5n', { labels: { app: 'agent' }, owner: agent });
  await createPod(ns, 'bare');
}

/**
 * Plays the kubelet of w02: a pod marked for deletion is removed (grace 0), optionally replaced by a same-name pod;
 * pods in `hold` stay terminating (containers still stopping).
 */
function fakeKubelet(): { stop(): void; replaceSameName: Set<string>; hold: Set<string> } {
  const replaceSameName = new Set<string>();
  const hold = new Set<string>();
  let busy = false;
  const timer = setInterval(async () => {
    if (busy) return;
    busy = true;
    try {
      const r = await c.api<{ items: PodJson[] }>('GET', `/api/v1/pods?fieldSelector=spec.nodeName%3D${NODE}`);
      for (const p of r.body.items ?? []) {
        const { namespace: ns, name } = p.metadata;
        if (!p.metadata.deletionTimestamp || hold.has(`${ns}/${name}`)) continue;
        await c.api('DELETE', `/api/v1/namespaces/${ns}/pods/${name}`, { apiVersion: 'v1', kind: 'DeleteOptions', gracePeriodSeconds: 0, preconditions: { uid: p.metadata.uid } });
        if (replaceSameName.has(`${ns}/${name}`)) await createPod(ns, name, { labels: p.metadata.labels ?? {}, node: 'w01' });
      }
    } catch {
      // the next tick tries again
    } finally {
      busy = false;
    }
  }, 150);
  return { stop: () => clearInterval(timer), replaceSameName, hold };
}

async function nodeUnschedulable(name: string): Promise<boolean> {
  const r = await c.api<{ spec?: { unschedulable?: boolean } }>('GET', `/api/v1/nodes/${name}`);
  return r.body.spec?.unschedulable === true;
}

async function podUid(ns: string, name: string): Promise<string | undefined> {
  const r = await c.api<PodJson>('GET', `/api/v1/namespaces/${ns}/pods/${name}`);
  return r.status === 200 ? r.body.metadata.uid : undefined;
}

/** Removes whatever the previous drain left on w02 and makes it schedulable again. */
async function reset(): Promise<void> {
  const r = await c.api<{ items: PodJson[] }>('GET', `/api/v1/pods?fieldSelector=spec.nodeName%3D${NODE}`);
  for (const p of r.body.items ?? []) await c.api('DELETE', `/api/v1/namespaces/${p.metadata.namespace}/pods/${p.metadata.name}`, { apiVersion: 'v1', kind: 'DeleteOptions', gracePeriodSeconds: 0 });
  await c.api('PATCH', `/api/v1/nodes/${NODE}`, { spec: { unschedulable: null } }, 'application/strategic-merge-patch+json');
}

const opts = (extra: Partial<DrainRunOptions> = {}, lines: DrainLine[] = []): DrainRunOptions => ({
  ...DEFAULT_DRAIN_OPTIONS,
  gracePeriodSeconds: -1,
  dryRun: 'none',
  readyTimeoutSeconds: 60,
  uncordonAfter: false,
  timeoutSeconds: 60,
  onLine: (l) => lines.push(l),
  ...extra,
});

before(async () => {
  loadKubeAdapter(); // fails with a clear message when dist/kube.js was not built
  c = await startTestCluster({ etcdMembers: 3 });
  for (const n of CP) await createNode(c, n, { controlPlane: true });
  await createNode(c, 'w01');
  await createNode(c, NODE);
  await putNodeLease(c, NODE, Date.now());
  conn = await loadKubeAdapter().connect({ kubeconfig: c.kubeconfig });
  const etcdArgs = () => etcdctlTlsArgs(c.etcd.find((m) => m.child.exitCode === null && !m.child.signalCode)!.clientUrl, c.pki.dir);
  cluster = createDrainCluster(conn.transport, { readEtcd: async () => buildEtcd(await readEtcd(sshEtcdctl(localShell, 'etcd1'), etcdArgs()), 'etcdctl', Date.now()) });
  kubelet = fakeKubelet();
});

after(async () => {
  kubelet?.stop();
  conn?.dispose();
  await c?.stop();
});

test('cordon / uncordon: the same spec.unschedulable kubectl sets and clears, and kubectl\'s words', async () => {
  const lines: DrainLine[] = [];
  await setCordon(cluster, 'w01', true, 'none', (l) => lines.push(l));
  assert.equal(await nodeUnschedulable('w01'), true);
  const k = await kubectl('cordon', 'w01');
  assert.equal(k.stdout.trim(), 'node/w01 already cordoned', 'kubectl sees our cordon');
  await setCordon(cluster, 'w01', false, 'none', (l) => lines.push(l));
  assert.equal(await nodeUnschedulable('w01'), false);
  const n = await c.api<{ spec?: Record<string, unknown> }>('GET', '/api/v1/nodes/w01');
  assert.ok(!('unschedulable' in (n.body.spec ?? {})), 'uncordon removes the field, as kubectl does');
  assert.deepEqual(lines.map((l) => l.text), ['node/w01 cordoned', 'node/w01 uncordoned']);
  // The CLI verbs, end to end.
  const cordon = await ours('cordon', 'w01', '--yes');
  assert.equal(cordon.code, 0, cordon.stderr);
  assert.match(cordon.stdout, /node\/w01 cordoned$/m);
  assert.equal((await kubectl('get', 'node', 'w01', '-o', 'jsonpath={.spec.unschedulable}')).stdout, 'true');
  const again = await ours('cordon', 'w01');
  assert.match(again.stdout, /^node\/w01 already cordoned$/m, 'nothing to confirm when there is nothing to do');
  const un = await ours('uncordon', 'w01', '--yes');
  assert.equal(un.code, 0, un.stderr);
  assert.equal((await kubectl('get', 'node', 'w01', '-o', 'jsonpath={.spec.unschedulable}')).stdout, '');
  const missing = await ours('cordon', 'nope', '--yes');
  assert.equal(missing.code, 1);
  assert.match(missing.stderr, /unable to cordon node "nope": nodes "nope" not found/);
});

test('default flags: kubectl drain and ours refuse the same pods for the same reasons; both leave the node cordoned', async () => {
  await scenario('k1');
  const k = await kubectl('drain', NODE, '--timeout=30s');
  assert.notEqual(k.code, 0);
  const kubectlOut = withoutNamespaces(parseDrainOutput(k.stdout, k.stderr));
  assert.equal(await nodeUnschedulable(NODE), true, 'kubectl cordons before refusing');
  await reset();

  await scenario('o1');
  const o = await ours('drain', NODE, '--yes');
  assert.equal(o.code, 1);
  const ourOut = withoutNamespaces(parseDrainOutput(o.stdout, o.stderr));
  assert.equal(await nodeUnschedulable(NODE), true, 'we cordon before refusing too');
  assert.deepEqual(ourOut.refused, kubectlOut.refused);
  assert.deepEqual(Object.keys(ourOut.refused).sort(), [
    'cannot delete DaemonSet-managed Pods (use --ignore-daemonsets to ignore)',
    'cannot delete Pods that declare no controller (use --force to override)',
    'cannot delete Pods with local storage (use --delete-emptydir-data to override)',
  ]);
  assert.deepEqual(ourOut.evicted, []);
  assert.deepEqual(kubectlOut.evicted, []);
  // Our plan said so before acting, and the failure names node and step.
  assert.match(o.stdout, /refuse +o1\/bare +Pods that declare no controller/);
  assert.match(o.stderr, /FAILED at step "classify" on node w02/);
  await reset();
});

test('every override: kubectl drain and ours evict, keep and print the same; pods waited for until gone', async () => {
  const flags = ['--ignore-daemonsets', '--delete-emptydir-data', '--force', '--timeout=60s'];
  await scenario('k2');
  const k = await kubectl('drain', NODE, ...flags);
  assert.equal(k.code, 0, k.stderr);
  const kubectlOut = withoutNamespaces(parseDrainOutput(k.stdout, k.stderr));
  const left = await c.api<{ items: PodJson[] }>('GET', `/api/v1/namespaces/k2/pods`);
  assert.deepEqual(left.body.items.map((p) => p.metadata.name), ['agent-q8v5n'], 'only the DaemonSet pod stays');
  await reset();

  await scenario('o2');
  const o = await ours('drain', NODE, ...flags, '--yes');
  assert.equal(o.code, 0, o.stderr);
  const ourOut = withoutNamespaces(parseDrainOutput(o.stdout, o.stderr));
  const ourLeft = await c.api<{ items: PodJson[] }>('GET', `/api/v1/namespaces/o2/pods`);
  assert.deepEqual(ourLeft.body.items.map((p) => p.metadata.name), ['agent-q8v5n']);
  assert.deepEqual(ourOut.evicted, kubectlOut.evicted);
  assert.deepEqual(ourOut.evicted, ['bare', 'cache-5f6c8-9zt2w', 'web-7d4b9-x2kqp']);
  assert.deepEqual(ourOut.keptDaemonSet, kubectlOut.keptDaemonSet);
  assert.deepEqual(ourOut.refused, {});
  assert.equal(ourOut.drained && kubectlOut.drained, true);
  // The same warnings, word for word (namespaces aside). kubectl joins them in Go map order, which
  // changes from run to run: compared as a set of "reason: pods" parts.
  const warning = (s: string) => s.split('\n').find((l) => l.startsWith('Warning:'))?.replace(/[kc]\d\/|o\d\//g, '').replace(/^Warning: /, '').split('; ').sort();
  assert.deepEqual(warning(o.stderr), warning(k.stderr));
  console.log(`drain of the scenario against the test apiserver: kubectl ${k.ms} ms, ours ${o.ms} ms (CLI process included)`);
  await reset();
});

test('PDB: 429 "would violate the disruption budget" is retried after 5 s, or as soon as the budget it names allows it', async () => {
  await c.api('POST', '/api/v1/namespaces', { apiVersion: 'v1', kind: 'Namespace', metadata: { name: 'pdb' } });
  const web = await createOwner('pdb', 'ReplicaSet', 'web');
  const uid = await createPod('pdb', 'web-0', { labels: { app: 'web' }, owner: web });
  await createPdb('pdb', 'web', 0);
  const lines: DrainLine[] = [];
  const attempts: number[] = [];
  const t0 = Date.now();
  const r = await runDrain(cluster, NODE, opts({
    onLine: (l) => {
      lines.push(l);
      if (l.text.startsWith('evicting pod')) attempts.push(Date.now() - t0);
      // The second 429: the budget frees up (a replacement became Ready elsewhere).
      if (l.text.startsWith('error when evicting') && lines.filter((x) => x.text.startsWith('error when evicting')).length === 2) void setPdbAllowed('pdb', 'web', 1);
    },
  }));
  assert.equal(r.ok, true, r.error);
  assert.deepEqual(r.evicted, ['pdb/web-0']);
  assert.equal(await podUid('pdb', 'web-0'), undefined);
  assert.equal(attempts.length, 3);
  // While the budget allows nothing, kubectl's 5 s; once it allows one (set right after the second 429), the next read
  // of it — every half second — retries at once.
  assert.ok(attempts[1]! - attempts[0]! >= 4900 && attempts[1]! - attempts[0]! < 7000, `retry after ${attempts[1]! - attempts[0]!} ms`);
  assert.ok(attempts[2]! - attempts[1]! < 2000, `retried ${attempts[2]! - attempts[1]!} ms after the budget allowed it, not 5 s later`);
  assert.deepEqual(lines.filter((l) => l.stream === 'stderr').map((l) => l.text), [
    `error when evicting pods/"web-0" -n "pdb" (will retry after 5s): Cannot evict pod as it would violate the pod's disruption budget.`,
    `error when evicting pods/"web-0" -n "pdb" (will retry after 5s): Cannot evict pod as it would violate the pod's disruption budget.`,
  ]);
  assert.ok(uid);
  await reset();
});

test('a budget that never allows it: the CLI fails at the finite --timeout naming node and pod; the node stays cordoned', async () => {
  await c.api('POST', '/api/v1/namespaces', { apiVersion: 'v1', kind: 'Namespace', metadata: { name: 'stuck' } });
  const web = await createOwner('stuck', 'ReplicaSet', 'web');
  await createPod('stuck', 'web-0', { labels: { app: 'web' }, owner: web });
  await createPdb('stuck', 'web', 0);
  const o = await ours('drain', NODE, '--timeout=7s', '--yes');
  assert.equal(o.code, 1);
  assert.match(o.stderr, /unable to drain node "w02" due to error: error when evicting pods\/"web-0" -n "stuck": global timeout reached: 7s/);
  assert.match(o.stderr, /FAILED at step "evict" on node w02 \(pods: stuck\/web-0\)/);
  assert.ok(o.ms < 15_000, `${o.ms} ms`);
  assert.equal(await nodeUnschedulable(NODE), true);
  assert.ok(await podUid('stuck', 'web-0'), 'the protected pod is still there');
  await c.api('DELETE', '/apis/policy/v1/namespaces/stuck/poddisruptionbudgets/web');
  await reset();
});

test('waiting by UID: a same-name replacement (new UID) counts as gone; cancel stops a drain and says so', async () => {
  await c.api('POST', '/api/v1/namespaces', { apiVersion: 'v1', kind: 'Namespace', metadata: { name: 'sts' } });
  const db = await createOwner('sts', 'ReplicaSet', 'db');
  const oldUid = await createPod('sts', 'db-0', { labels: { app: 'db' }, owner: db });
  kubelet.replaceSameName.add('sts/db-0');
  const lines: DrainLine[] = [];
  const r = await runDrain(cluster, NODE, opts({}, lines));
  kubelet.replaceSameName.clear();
  assert.equal(r.ok, true, r.error);
  const newUid = await podUid('sts', 'db-0');
  assert.ok(newUid && newUid !== oldUid, 'a new db-0 exists');
  assert.ok(lines.some((l) => l.text === 'pod/db-0 evicted'));
  await reset();

  // Cancel while a budget blocks the eviction.
  await c.api('POST', '/api/v1/namespaces', { apiVersion: 'v1', kind: 'Namespace', metadata: { name: 'cancel' } });
  const web = await createOwner('cancel', 'ReplicaSet', 'web');
  await createPod('cancel', 'web-0', { labels: { app: 'web' }, owner: web });
  await createPdb('cancel', 'web', 0);
  const abort = new AbortController();
  const t0 = Date.now();
  const cancelled = await runDrain(cluster, NODE, opts({ signal: abort.signal, onLine: (l) => l.text.startsWith('error when evicting') && abort.abort() }));
  assert.equal(cancelled.cancelled, true);
  assert.equal(cancelled.failedStep, 'evict');
  assert.match(cancelled.error!, /pods not evicted: cancel\/web-0; node\/w02 stays cordoned/);
  assert.ok(Date.now() - t0 < 3000, 'the 5 s retry wait is cut short');
  assert.equal(await nodeUnschedulable(NODE), true);
  await c.api('DELETE', '/apis/policy/v1/namespaces/cancel/poddisruptionbudgets/web');
  await reset();
});

test('terminating namespace: 403 NamespaceTerminating is retried every 5 s; once the pod is deleting, it is waited for', async () => {
  await c.api('POST', '/api/v1/namespaces', { apiVersion: 'v1', kind: 'Namespace', metadata: { name: 'term' } });
  const web = await createOwner('term', 'ReplicaSet', 'web');
  await createPod('term', 'web-0', { labels: { app: 'web' }, owner: web });
  // Without a namespace controller the namespace stays Terminating: creating an eviction there is forbidden.
  await c.api('DELETE', '/api/v1/namespaces/term');
  kubelet.hold.add('term/web-0');
  const lines: DrainLine[] = [];
  const r = await runDrain(cluster, NODE, opts({
    onLine: (l) => {
      lines.push(l);
      if (l.stream === 'stderr' && lines.filter((x) => x.stream === 'stderr').length === 1) {
        // What the namespace controller does next: delete the pod (it stays terminating while the containers stop).
        void c.api('DELETE', '/api/v1/namespaces/term/pods/web-0', { apiVersion: 'v1', kind: 'DeleteOptions', gracePeriodSeconds: 30 });
        setTimeout(() => kubelet.hold.delete('term/web-0'), 6500);
      }
    },
  }));
  assert.equal(r.ok, true, r.error);
  const errs = lines.filter((l) => l.stream === 'stderr').map((l) => l.text);
  assert.equal(errs.length, 1, errs.join('\n'));
  assert.match(errs[0]!, /^error when evicting pod "web-0" from terminating namespace "term" \(will retry after 5s\): .*unable to create new content in namespace term because it is being terminated/);
  assert.ok(lines.some((l) => l.text === 'pod/web-0 evicted'));
  assert.equal(await podUid('term', 'web-0'), undefined);
  await reset();
});

test('control-plane guard: refused before cordoning when an etcd member is down; held leader leases are named', async () => {
  await putLeaderLease(c, 'kube-scheduler', 'etcd1_0b1f6c1e-2f0a-4c36-9d1e-5b3f2a7c9e11', 0, Date.now());
  await putLeaderLease(c, 'kube-controller-manager', 'etcd2_7a9c3e51-8d2b-4f6e-a1c0-3e5d7b9f1a24', 0, Date.now());
  const healthy = await runDrain(cluster, 'etcd1', opts({ dryRun: 'server' }));
  assert.equal(healthy.ok, true, healthy.error);
  assert.deepEqual(healthy.guard?.heldLeases.map((l) => l.name), ['kube-scheduler']);
  assert.match(healthy.guard?.ok ? healthy.guard.warnings.join() : '', /tolerates no further failure/);

  const m3 = c.etcd[2]!;
  await m3.stop();
  try {
    const lines: DrainLine[] = [];
    const r = await runDrain(cluster, 'etcd1', opts({}, lines));
    assert.equal(r.failedStep, 'guard');
    assert.match(r.error!, /refusing to drain control-plane node "etcd1": etcd would lose quorum: 3 members need 2, and only 1 other healthy member would remain/);
    assert.match(r.error!, /the etcd member on etcd3 is unhealthy/);
    assert.equal(await nodeUnschedulable('etcd1'), false, 'nothing was cordoned');
    assert.ok(lines.some((l) => l.text === 'node/etcd1 holds leader leases: kube-system/kube-scheduler (they move when it goes down)'));
    // The CLI shows the verdict in its plan and exits 1 without asking.
    const o = await ours('drain', 'etcd1', '--yes');
    assert.equal(o.code, 1);
    assert.match(o.stdout, /Control-plane guard: REFUSED/);
    assert.match(o.stdout, /Leader leases held by etcd1/);
  } finally {
    c.etcd[2] = restartEtcdMember(m3);
    await waitFor(async () => (await cluster.controlPlaneMembers()).every((m) => m.etcdHealthy), 30_000, 'etcd3 healthy again');
  }
});
