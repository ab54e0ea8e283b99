/**
 * The drain orchestration (cordon → classify → refuse or evict → maintenance → Ready → uncordon) over an
 * in-memory cluster with a virtual clock. The same path runs against a real kube-apiserver in
 * test/integration/live/drain.test.ts and against the lab cluster next to `kubectl drain` in test/lab/drain.test.ts.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { DEFAULT_DRAIN_OPTIONS, type DrainPod } from '../../../src/core/drain/classify';
import type { EvictionResult } from '../../../src/core/drain/evict';
import {
  controlPlaneMembersFrom,
  looksLikeReboot,
  planBlockers,
  planDrain,
  renderDrainPlan,
  runDrain,
  setCordon,
  type DaemonSetAnswer,
  type DrainCluster,
  type DrainLine,
  type DrainNodeInfo,
  type DrainRunOptions,
} from '../../../src/core/drain/drainNode';
import type { ControlPlaneMember, HeldLease } from '../../../src/core/drain/controlPlaneGuard';

const rs = { apiVersion: 'apps/v1', kind: 'ReplicaSet', name: 'web-5d9c' };
const ds = { apiVersion: 'apps/v1', kind: 'DaemonSet', name: 'kube-flannel-ds' };
const pod = (name: string, extra: Partial<DrainPod> = {}): DrainPod => ({ namespace: 'default', name, uid: `uid-${name}`, phase: 'Running', hasEmptyDir: false, ...extra });

/** A worker with the scenario: a PDB-protected Deployment pod, a DaemonSet pod, an emptyDir pod, a bare pod. */
function scenario(): DrainPod[] {
  return [pod('bare'), pod('cache-1', { controller: rs, hasEmptyDir: true }), pod('web-1', { controller: rs }), pod('kube-flannel-ds-abc', { namespace: 'kube-flannel', controller: ds })];
}

class FakeCluster implements DrainCluster {
  t = 0;
  nodes = new Map<string, DrainNodeInfo>();
  pods: DrainPod[] = [];
  patches: string[] = [];
  evictions: string[] = [];
  /** Answers per pod name, consumed in order; default accepted. */
  answers = new Map<string, EvictionResult[]>();
  /** Polls a pod survives after an accepted eviction. */
  terminatingPolls = 1;
  members: ControlPlaneMember[] | Error = [];
  leases: HeldLease[] = [];
  onGetNode?: (n: DrainNodeInfo) => void;
  private polls = new Map<string, number>();

  constructor(node: Partial<DrainNodeInfo> & { name: string }) {
    this.nodes.set(node.name, { unschedulable: false, ready: true, controlPlane: false, ...node });
  }
  clock() {
    return { now: () => this.t, sleep: async (ms: number) => void (this.t += ms) };
  }
  async getNode(name: string): Promise<DrainNodeInfo> {
    const n = this.nodes.get(name);
    if (!n) throw new Error(`nodes "${name}" not found`);
    this.onGetNode?.(n);
    return { ...n };
  }
  async setUnschedulable(name: string, value: boolean, dryRun: boolean): Promise<void> {
    this.patches.push(`${name}:${value}${dryRun ? ':dry' : ''}`);
    if (!dryRun) this.nodes.get(name)!.unschedulable = value;
  }
  async listPodsOnNode(): Promise<DrainPod[]> {
    return this.pods.map((p) => ({ ...p }));
  }
  async daemonSet(): Promise<DaemonSetAnswer> {
    return { exists: true };
  }
  eviction() {
    return {
      evict: async (p: DrainPod): Promise<EvictionResult> => {
        this.evictions.push(p.name);
        const a = this.answers.get(p.name)?.shift() ?? { kind: 'accepted' };
        if (a.kind === 'accepted') this.polls.set(p.name, this.terminatingPolls);
        return a;
      },
      getPod: async (_ns: string, name: string) => {
        const left = this.polls.get(name) ?? 0;
        if (left <= 0) {
          this.pods = this.pods.filter((p) => p.name !== name);
          return undefined;
        }
        this.polls.set(name, left - 1);
        return { uid: `uid-${name}`, deletionTimestamp: '2026-01-01T00:00:00Z' };
      },
    };
  }
  async controlPlaneMembers(): Promise<ControlPlaneMember[]> {
    if (this.members instanceof Error) throw this.members;
    return this.members;
  }
  async leaderLeases(): Promise<HeldLease[]> {
    return this.leases;
  }
}

function options(c: FakeCluster, extra: Partial<DrainRunOptions> = {}, lines: DrainLine[] = []): DrainRunOptions {
  return { ...DEFAULT_DRAIN_OPTIONS, gracePeriodSeconds: -1, dryRun: 'none', readyTimeoutSeconds: 600, uncordonAfter: false, ...c.clock(), onLine: (l) => lines.push(l), ...extra };
}
const ALL = { ignoreDaemonSets: true, deleteEmptyDirData: true, force: true };
const text = (lines: DrainLine[], stream?: 'stdout' | 'stderr') => lines.filter((l) => !stream || l.stream === stream).map((l) => l.text);

test('default flags: cordons, refuses with kubectl\'s messages before evicting anything, node stays cordoned', async () => {
  const c = new FakeCluster({ name: 'w02' });
  c.pods = scenario();
  const lines: DrainLine[] = [];
  const r = await runDrain(c, 'w02', options(c, {}, lines));
  assert.equal(r.ok, false);
  assert.equal(r.failedStep, 'classify');
  assert.deepEqual(c.evictions, []);
  assert.equal(c.nodes.get('w02')!.unschedulable, true);
  assert.deepEqual(r.refused.sort(), ['default/bare', 'default/cache-1', 'kube-flannel/kube-flannel-ds-abc']);
  assert.deepEqual(text(lines, 'stdout'), ['node/w02 cordoned']);
  assert.match(r.error!, /^unable to drain node "w02" due to error: \[cannot delete Pods that declare no controller \(use --force to override\): default\/bare, cannot delete Pods with local storage \(use --delete-emptydir-data to override\): default\/cache-1, cannot delete DaemonSet-managed Pods \(use --ignore-daemonsets to ignore\): kube-flannel\/kube-flannel-ds-abc\]/);
});

test('every override: a PDB 429 is retried every 5 s, each pod waited for, kubectl\'s lines, DaemonSet pod kept', async () => {
  const c = new FakeCluster({ name: 'w02' });
  c.pods = scenario();
  c.answers.set('web-1', [{ kind: 'too-many-requests', message: "Cannot evict pod as it would violate the pod's disruption budget." }]);
  const lines: DrainLine[] = [];
  const r = await runDrain(c, 'w02', options(c, ALL, lines));
  assert.equal(r.ok, true, r.error);
  assert.deepEqual(r.evicted.sort(), ['default/bare', 'default/cache-1', 'default/web-1']);
  assert.deepEqual(r.kept, ['kube-flannel/kube-flannel-ds-abc']);
  assert.deepEqual(r.refused, []);
  assert.equal(c.evictions.filter((n) => n === 'web-1').length, 2);
  assert.deepEqual(text(lines, 'stderr'), [
    'Warning: deleting Pods that declare no controller: default/bare; ignoring DaemonSet-managed Pods: kube-flannel/kube-flannel-ds-abc',
    `error when evicting pods/"web-1" -n "default" (will retry after 5s): Cannot evict pod as it would violate the pod's disruption budget.`,
  ]);
  const stdout = text(lines, 'stdout');
  assert.equal(stdout[0], 'node/w02 cordoned');
  assert.equal(stdout.at(-1), 'node/w02 drained');
  assert.deepEqual(stdout.filter((l) => l.startsWith('evicting')).sort(), ['evicting pod default/bare', 'evicting pod default/cache-1', 'evicting pod default/web-1', 'evicting pod default/web-1']);
  assert.deepEqual(stdout.filter((l) => l.endsWith(' evicted')).sort(), ['pod/bare evicted', 'pod/cache-1 evicted', 'pod/web-1 evicted']);
  // 5 s of retry plus a 1 s poll while each pod terminates (the virtual clock adds up the parallel waits).
  assert.equal(r.drainMs, 5000 + 3 * 1000);
  assert.equal(c.nodes.get('w02')!.unschedulable, true, 'a drain without --uncordon leaves the node cordoned');
});

test('client dry run changes nothing and prints kubectl\'s "(dry run)" lines; server dry run sends dry-run requests', async () => {
  const c = new FakeCluster({ name: 'w02' });
  c.pods = scenario();
  const lines: DrainLine[] = [];
  const r = await runDrain(c, 'w02', options(c, { ...ALL, dryRun: 'client' }, lines));
  assert.equal(r.ok, true);
  assert.deepEqual(c.patches, []);
  assert.deepEqual(c.evictions, []);
  assert.deepEqual(text(lines, 'stdout'), ['node/w02 cordoned (dry run)', 'evicting pod default/bare (dry run)', 'evicting pod default/cache-1 (dry run)', 'evicting pod default/web-1 (dry run)', 'node/w02 drained (dry run)']);

  const s = new FakeCluster({ name: 'w02' });
  s.pods = scenario();
  const r2 = await runDrain(s, 'w02', options(s, { ...ALL, dryRun: 'server' }));
  assert.equal(r2.ok, true);
  assert.deepEqual(s.patches, ['w02:true:dry']);
  assert.equal(s.nodes.get('w02')!.unschedulable, false);
});

test('cancel during PDB retries: the drain stops, names the pods not evicted, the node stays cordoned', async () => {
  const c = new FakeCluster({ name: 'w02' });
  c.pods = [pod('web-1', { controller: rs })];
  c.answers.set('web-1', Array.from({ length: 100 }, () => ({ kind: 'too-many-requests' as const, message: 'pdb' })));
  const abort = new AbortController();
  const clock = c.clock();
  const r = await runDrain(c, 'w02', options(c, { signal: abort.signal, sleep: async (ms) => { clock.sleep(ms); if (c.t >= 15_000) abort.abort(); } }));
  assert.equal(r.ok, false);
  assert.equal(r.cancelled, true);
  assert.equal(r.failedStep, 'evict');
  assert.match(r.error!, /pods not evicted: default\/web-1/);
  assert.ok(c.evictions.length <= 4);
  assert.equal(c.nodes.get('w02')!.unschedulable, true);
});

test('a PDB that never allows it fails at the finite timeout naming node and pod', async () => {
  const c = new FakeCluster({ name: 'w02' });
  c.pods = [pod('web-1', { controller: rs })];
  c.answers.set('web-1', Array.from({ length: 100 }, () => ({ kind: 'too-many-requests' as const, message: 'pdb' })));
  const r = await runDrain(c, 'w02', options(c, { timeoutSeconds: 20 }));
  assert.equal(r.failedStep, 'evict');
  assert.match(r.error!, /unable to drain node "w02".*pods\/"web-1" -n "default": global timeout reached: 20s/);
});

test('control-plane node: refused before cordoning when another member is down; held leases are named', async () => {
  const c = new FakeCluster({ name: 'm01', controlPlane: true });
  c.members = [
    { nodeName: 'm01', nodeReady: true, etcdHealthy: true },
    { nodeName: 'm02', nodeReady: true, etcdHealthy: true },
    { nodeName: 'm03', nodeReady: false, etcdHealthy: false },
  ];
  c.leases = [{ namespace: 'kube-system', name: 'kube-scheduler', holder: 'm01_1234' }, { namespace: 'kube-system', name: 'kube-controller-manager', holder: 'm02_5678' }];
  const lines: DrainLine[] = [];
  const r = await runDrain(c, 'm01', options(c, ALL, lines));
  assert.equal(r.failedStep, 'guard');
  assert.deepEqual(c.patches, [], 'nothing was cordoned');
  assert.match(r.error!, /refusing to drain control-plane node "m01": etcd would lose quorum.*m03 is NotReady/);
  assert.deepEqual(text(lines, 'stdout'), ['node/m01 holds leader leases: kube-system/kube-scheduler (they move when it goes down)']);

  c.members = new Error('no running etcd pod and no SSH fallback');
  const r2 = await runDrain(c, 'm01', options(c, ALL));
  assert.equal(r2.failedStep, 'guard');
  assert.match(r2.error!, /cannot check etcd quorum before taking m01 down: no running etcd pod/);
});

test('maintenance: runs after the drain, waits for a heartbeat after the command (and a new boot ID for a reboot), then uncordons', async () => {
  const c = new FakeCluster({ name: 'w02', bootId: 'boot-1', heartbeatMs: 0 });
  c.pods = [pod('web-1', { controller: rs })];
  const ran: string[] = [];
  // The machine reboots: the old kubelet renews once while shutting down (t+2 s), the new one comes up at t+40 s.
  let commandEnd = 0;
  c.onGetNode = (n) => {
    if (!commandEnd) return;
    const since = c.t - commandEnd;
    if (since >= 40_000) Object.assign(n, { bootId: 'boot-2', heartbeatMs: c.t, ready: true });
    else if (since >= 2_000) Object.assign(n, { heartbeatMs: commandEnd + 2_000 });
  };
  const lines: DrainLine[] = [];
  const r = await runDrain(c, 'w02', options(c, {
    uncordonAfter: true,
    maintenance: { host: 'labs-k8s-w02', display: "sh -c 'apt-get -y upgrade && reboot'", expectReboot: true, run: async ({ onOutput }) => { ran.push('run'); onOutput('stdout', 'upgraded'); commandEnd = c.t; return { disconnected: false }; } },
  }, lines));
  assert.equal(r.ok, true, r.error);
  assert.deepEqual(ran, ['run']);
  assert.ok(c.t - commandEnd >= 40_000, 'did not take the shutting-down kubelet\'s heartbeat for the node being back');
  assert.equal(c.nodes.get('w02')!.unschedulable, false);
  assert.deepEqual(lines.filter((l) => l.host).map((l) => l.text), ['upgraded']);
  assert.match(text(lines, 'stdout').join('\n'), /node\/w02 is Ready again after \d+s \(rebooted: new boot ID\)\nnode\/w02 uncordoned$/);
});

test('maintenance failure or a node that does not come back leaves the node cordoned, naming host, command and node', async () => {
  const c = new FakeCluster({ name: 'w02', heartbeatMs: 0 });
  const failing = await runDrain(c, 'w02', options(c, { uncordonAfter: true, maintenance: { host: 'labs-k8s-w02', display: 'false', expectReboot: false, run: async () => { throw new Error('labs-k8s-w02: `false` exited 1'); } } }));
  assert.equal(failing.failedStep, 'maintenance');
  assert.match(failing.error!, /maintenance of node "w02" failed: labs-k8s-w02: `false` exited 1; node\/w02 stays cordoned/);
  assert.equal(c.nodes.get('w02')!.unschedulable, true);

  const d = new FakeCluster({ name: 'w02', heartbeatMs: 0, bootId: 'b1' });
  const never = await runDrain(d, 'w02', options(d, { uncordonAfter: true, readyTimeoutSeconds: 60, maintenance: { host: 'labs-k8s-w02', display: 'reboot', expectReboot: true, run: async () => ({ disconnected: true }) } }));
  assert.equal(never.failedStep, 'ready');
  assert.match(never.error!, /node "w02" did not come back Ready within 60s after `reboot` on labs-k8s-w02/);
  assert.equal(d.nodes.get('w02')!.unschedulable, true);
});

test('cordon and uncordon print kubectl\'s words and patch only when needed', async () => {
  const c = new FakeCluster({ name: 'w01' });
  const lines: DrainLine[] = [];
  await setCordon(c, 'w01', true, 'none', (l) => lines.push(l));
  await setCordon(c, 'w01', true, 'none', (l) => lines.push(l));
  await setCordon(c, 'w01', false, 'none', (l) => lines.push(l));
  await setCordon(c, 'w01', false, 'none', (l) => lines.push(l));
  assert.deepEqual(text(lines), ['node/w01 cordoned', 'node/w01 already cordoned', 'node/w01 uncordoned', 'node/w01 already uncordoned']);
  assert.deepEqual(c.patches, ['w01:true', 'w01:false']);
  await assert.rejects(setCordon(c, 'nope', true, 'none'), /nodes "nope" not found/);
});

test('the plan lists evict / keep / refuse per pod, the guard verdict with held leases, and what runs on which host', async () => {
  const c = new FakeCluster({ name: 'm01', controlPlane: true });
  c.pods = [...scenario(), pod('etcd-m01', { namespace: 'kube-system', annotations: { 'kubernetes.io/config.mirror': 'x' } })];
  c.members = ['m01', 'm02', 'm03'].map((n) => ({ nodeName: n, nodeReady: true, etcdHealthy: true }));
  c.leases = [{ namespace: 'kube-system', name: 'kube-controller-manager', holder: 'm01_ab' }];
  const plan = await planDrain(c, 'm01', options(c, { ignoreDaemonSets: true, uncordonAfter: true, maintenance: { host: 'labs-k8s-m01', display: "sh -c 'systemctl restart kubelet'", expectReboot: false, run: async () => ({ disconnected: false }) } }));
  const t = renderDrainPlan(plan);
  assert.match(t, /Control-plane guard: OK — While m01 is down, etcd tolerates no further failure/);
  assert.match(t, /Leader leases held by m01 .*: kube-system\/kube-controller-manager/);
  assert.match(t, /evict +default\/web-1 +ReplicaSet web-5d9c/);
  assert.match(t, /keep +kube-flannel\/kube-flannel-ds-abc +DaemonSet-managed/);
  assert.match(t, /keep +kube-system\/etcd-m01 +mirror pod/);
  assert.match(t, /refuse +default\/bare +Pods that declare no controller \(use --force to override\)/);
  assert.match(t, /refuse +default\/cache-1 +Pods with local storage/);
  assert.match(t, /run on host labs-k8s-m01 over SSH: sh -c 'systemctl restart kubelet'/);
  assert.match(t, /uncordon node\/m01/);
  assert.equal(planBlockers(plan).length, 2);
  assert.deepEqual(c.patches, [], 'planning changes nothing');
});

test('guard members: etcd members matched to control-plane nodes by name or host; learners ignored', () => {
  const members = controlPlaneMembersFrom(
    [{ name: 'm01', ready: true, host: 'h1' }, { name: 'm02.example', ready: true, host: 'h2' }, { name: 'm03', ready: false, host: 'h3' }],
    [{ name: 'm01', healthy: true, isLearner: false }, { name: 'etcd-b', host: 'h2', healthy: true, isLearner: false }, { name: 'm03', healthy: false, isLearner: false }, { name: 'm04', healthy: true, isLearner: true }],
  );
  assert.deepEqual(members, [
    { nodeName: 'm01', nodeReady: true, etcdHealthy: true },
    { nodeName: 'm02.example', nodeReady: true, etcdHealthy: true },
    { nodeName: 'm03', nodeReady: false, etcdHealthy: false },
  ]);
});

test('reboot-like maintenance commands are recognised', () => {
  for (const cmd of ['reboot', 'apt-get -y upgrade && reboot', 'systemctl reboot', 'shutdown -r now', 'systemctl kexec']) assert.ok(looksLikeReboot(cmd), cmd);
  for (const cmd of ['systemctl restart kubelet', 'echo rebooted-before', 'apt-get upgrade']) assert.ok(!looksLikeReboot(cmd), cmd);
});
