import { test } from 'node:test';
import assert from 'node:assert/strict';
import { classifyPodsForDrain, DEFAULT_DRAIN_OPTIONS, type DrainPod, type DaemonSetLookup } from '../../../src/core/drain/classify';
import { evictPods, type EvictionClient, type EvictionResult } from '../../../src/core/drain/evict';
import { checkControlPlaneDrain } from '../../../src/core/drain/controlPlaneGuard';

const rs = { apiVersion: 'apps/v1', kind: 'ReplicaSet', name: 'web-5d9c' };
const ds = { apiVersion: 'apps/v1', kind: 'DaemonSet', name: 'kube-flannel-ds' };
const pod = (name: string, extra: Partial<DrainPod> = {}): DrainPod => ({ namespace: 'default', name, uid: `uid-${name}`, phase: 'Running', hasEmptyDir: false, ...extra });
const dsExists: DaemonSetLookup = () => ({ exists: true });

// The worker of the seed's drain scenario: a PDB-protected Deployment pod, a DaemonSet pod,
// an emptyDir pod, a bare pod, and a static pod's mirror.
const scenario: DrainPod[] = [
  pod('web-1', { controller: rs }),
  pod('flannel-x', { namespace: 'kube-flannel', controller: ds }),
  pod('cache-1', { controller: rs, hasEmptyDir: true }),
  pod('bare'),
  pod('etcd-m01', { namespace: 'kube-system', annotations: { 'kubernetes.io/config.mirror': 'abc' }, controller: { apiVersion: 'v1', kind: 'Node', name: 'm01' } }),
];

test('defaults refuse DaemonSet, emptyDir and bare pods like kubectl drain, and evict nothing', () => {
  const c = classifyPodsForDrain(scenario, DEFAULT_DRAIN_OPTIONS, dsExists);
  assert.deepEqual(c.errors.sort(), [
    'cannot delete DaemonSet-managed Pods (use --ignore-daemonsets to ignore): kube-flannel/flannel-x',
    'cannot delete Pods that declare no controller (use --force to override): default/bare',
    'cannot delete Pods with local storage (use --delete-emptydir-data to override): default/cache-1',
  ]);
});

test('with every override: DaemonSet and mirror pods stay, the rest are evicted, warnings as kubectl prints', () => {
  const c = classifyPodsForDrain(scenario, { ...DEFAULT_DRAIN_OPTIONS, ignoreDaemonSets: true, deleteEmptyDirData: true, force: true }, dsExists);
  assert.deepEqual(c.errors, []);
  assert.deepEqual(c.toEvict.map((p) => p.name), ['web-1', 'cache-1', 'bare']);
  const kept = c.pods.filter((p) => p.verdict.action === 'keep').map((p) => `${p.pod.name}:${p.verdict.action === 'keep' ? p.verdict.reason : ''}`);
  assert.deepEqual(kept, ['flannel-x:daemonset', 'etcd-m01:mirror']);
  assert.deepEqual(c.warnings.sort(), ['deleting Pods that declare no controller: default/bare', 'ignoring DaemonSet-managed Pods: kube-flannel/flannel-x']);
});

test('finished pods pass the emptyDir and controller rules; a missing DaemonSet needs force', () => {
  const done = pod('job-done', { phase: 'Succeeded', hasEmptyDir: true });
  const orphan = pod('orphan-ds', { controller: ds });
  const gone: DaemonSetLookup = () => ({ exists: false, notFound: true, error: 'daemonsets.apps "kube-flannel-ds" not found' });
  const plain = classifyPodsForDrain([done, orphan], DEFAULT_DRAIN_OPTIONS, gone);
  assert.deepEqual(plain.toEvict.map((p) => p.name), ['job-done']);
  assert.deepEqual(plain.errors, ['cannot delete daemonsets.apps "kube-flannel-ds" not found: default/orphan-ds']);
  const forced = classifyPodsForDrain([done, orphan], { ...DEFAULT_DRAIN_OPTIONS, force: true }, gone);
  assert.deepEqual(forced.toEvict.map((p) => p.name), ['job-done', 'orphan-ds']);
});

test('pods deleting longer than skip-wait-for-delete-timeout are skipped', () => {
  const now = Date.parse('2026-01-01T00:10:00Z');
  const stuck = pod('stuck', { controller: rs, deletionTimestamp: '2026-01-01T00:00:00Z' });
  const c = classifyPodsForDrain([stuck], { ...DEFAULT_DRAIN_OPTIONS, skipWaitForDeleteTimeoutSeconds: 60 }, dsExists, now);
  assert.deepEqual(c.toEvict, []);
});

/** A virtual clock so retries every 5 s take no real time. */
function clock() {
  let t = 0;
  return { now: () => t, sleep: async (ms: number) => void (t += ms) };
}

test('429 from a PodDisruptionBudget is retried every 5 s until accepted, then we wait for the UID to go', async () => {
  const c = clock();
  const answers: EvictionResult[] = [{ kind: 'too-many-requests', message: 'Cannot evict pod as it would violate the pod\'s disruption budget.' }, { kind: 'too-many-requests', message: 'pdb' }, { kind: 'accepted' }];
  let gets = 0;
  const client: EvictionClient = {
    evict: async () => answers.shift()!,
    // Still there twice, then replaced by a new pod of the same name (new UID): the old one is gone.
    getPod: async () => (++gets < 3 ? { uid: 'uid-web-1' } : { uid: 'uid-new' }),
  };
  const events: string[] = [];
  const out = await evictPods([pod('web-1', { controller: rs })], client, { timeoutMs: 60_000, ...c, onEvent: (e) => events.push(e.type) });
  assert.deepEqual(out.failed, []);
  assert.equal(out.evicted.length, 1);
  assert.equal(c.now(), 2 * 5000 + 2 * 1000);
  assert.deepEqual(events, ['evicting', 'retry', 'evicting', 'retry', 'evicting', 'waiting', 'gone']);
});

test('a 429 naming its budget is retried as soon as that budget allows a disruption, not a whole 5 s later', async () => {
  const c = clock();
  const answers: EvictionResult[] = [{ kind: 'too-many-requests', message: 'Cannot evict pod as it would violate the pod\'s disruption budget.', budget: 'web' }, { kind: 'accepted' }];
  const reads: number[] = [];
  const client: EvictionClient = {
    evict: async () => answers.shift()!,
    getPod: async () => undefined,
    // The replacement of the pod evicted before turns Ready 1.2 s into the wait: the budget allows one disruption.
    budgetAllows: async (ns, name) => (reads.push(c.now()), assert.equal(`${ns}/${name}`, 'default/web'), c.now() >= 1200),
  };
  const events: string[] = [];
  const out = await evictPods([pod('web-1', { controller: rs })], client, { timeoutMs: 60_000, ...c, onEvent: (e) => events.push(e.type) });
  assert.equal(out.evicted.length, 1);
  assert.deepEqual(reads, [500, 1000, 1500], 'the budget read every half second while the retry waits');
  assert.equal(c.now(), 1500, 'retried at the first read that allowed it');
  assert.deepEqual(events, ['evicting', 'retry', 'evicting', 'waiting', 'gone']);
});

test('a budget that does not allow it, or cannot be read, leaves the retry at 5 s', async () => {
  for (const allows of [async () => false, async () => undefined, async () => { throw new Error('403'); }]) {
    const c = clock();
    const answers: EvictionResult[] = [{ kind: 'too-many-requests', message: 'pdb', budget: 'web' }, { kind: 'accepted' }];
    const client: EvictionClient = { evict: async () => answers.shift()!, getPod: async () => undefined, budgetAllows: allows };
    await evictPods([pod('web-1', { controller: rs })], client, { timeoutMs: 60_000, ...c });
    assert.equal(c.now(), 5000);
  }
});

test('a PDB that never allows the eviction fails at the finite timeout, naming the pod', async () => {
  const c = clock();
  const client: EvictionClient = { evict: async () => ({ kind: 'too-many-requests', message: 'pdb' }), getPod: async () => ({ uid: 'x' }) };
  const out = await evictPods([pod('web-1', { controller: rs })], client, { timeoutMs: 30_000, ...c });
  assert.equal(out.failed.length, 1);
  assert.match(out.failed[0]!.error, /pods\/"web-1" -n "default": global timeout reached: 30s/);
  assert.ok(c.now() >= 30_000 && c.now() < 36_000);
});

test('control-plane guard refuses when etcd would lose quorum or another member is unhealthy, and names held leases', () => {
  const healthy = [
    { nodeName: 'labs-k8s-m01', nodeReady: true, etcdHealthy: true },
    { nodeName: 'labs-k8s-m02', nodeReady: true, etcdHealthy: true },
    { nodeName: 'labs-k8s-m03', nodeReady: true, etcdHealthy: true },
  ];
  const leases = [{ namespace: 'kube-system', name: 'kube-scheduler', holder: 'labs-k8s-m01_5b1c-4e2a' }];
  const ok = checkControlPlaneDrain('labs-k8s-m01', healthy, leases);
  assert.equal(ok.ok, true);
  assert.deepEqual(ok.heldLeases.map((l) => l.name), ['kube-scheduler']);
  assert.match(ok.ok ? ok.warnings.join() : '', /tolerates no further failure/);

  const m03down = healthy.map((m) => (m.nodeName === 'labs-k8s-m03' ? { ...m, nodeReady: false, etcdHealthy: false } : m));
  const refused = checkControlPlaneDrain('labs-k8s-m01', m03down, leases);
  assert.equal(refused.ok, false);
  assert.match(refused.ok ? '' : refused.reasons.join('\n'), /lose quorum: 3 members need 2, and only 1 other healthy member/);
  assert.match(refused.ok ? '' : refused.reasons.join('\n'), /labs-k8s-m03 is NotReady/);
});
