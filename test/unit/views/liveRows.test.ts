/**
 * The live views' rows as plain data, built without VS Code (views/controlPlaneRows.ts, leaseRows.ts,
 * etcdMemberRows.ts, rowLook.ts's connection rows): what each row says, its icon and colour by state — and the same
 * rows in Russian when the catalogue speaks it, with kubectl's and etcdctl's own words (Ready, Running, the IDs) kept.
 */
import { after, test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { useMessages } from '../../../src/core/l10n';
import type { ComponentPod, ControlPlaneModel } from '../../../src/core/live/controlPlane';
import type { EtcdMember, EtcdModel } from '../../../src/core/live/etcd';
import type { LeasesModel } from '../../../src/core/live/leases';
import type { LiveNode, Markdown } from '../../../src/editor/treeNodes';
import { buildControlPlaneTree } from '../../../src/views/controlPlaneRows';
import { buildEtcdTree } from '../../../src/views/etcdMemberRows';
import { buildLeasesTree } from '../../../src/views/leaseRows';
import { connectionProblemRows, ERR, MUTED, OK, WARN } from '../../../src/views/rowLook';
import { ROOT } from '../haproxy/helpers';

after(() => useMessages('en', undefined));

const NOW = Date.parse('2026-12-05T12:00:00Z');
const CYRILLIC = /[А-Яа-яЁё]/;

const pod = (component: string, node: string, over: Partial<ComponentPod> = {}): ComponentPod => ({
  component: component as ComponentPod['component'], podName: `${component}-${node}`, present: true, phase: 'Running', readyContainers: 1, totalContainers: 1,
  ready: true, restarts: 0, ageMs: 3_600_000, mirror: true, source: 'file', configHash: 'abc', mirrorStale: false, reason: undefined, ...over,
});

function controlPlane(): ControlPlaneModel {
  return {
    nodes: [
      { name: 'm01', host: 'm01', readiness: 'Ready', readyReason: 'KubeletReady', taints: ['node-role.kubernetes.io/control-plane:NoSchedule'], unschedulable: false, kubeletVersion: 'v1.33.2', apiServerVersion: 'v1.33.2', components: [pod('etcd', 'm01'), pod('kube-apiserver', 'm01', { drift: { drift: true, differences: ['kube-apiserver: --v 2 only in the manifest'] } }), pod('kube-scheduler', 'm01', { phase: 'Running', ready: false, readyContainers: 0, reason: 'CrashLoopBackOff', restarts: 7 })] },
      { name: 'm02', host: 'lab-m02', readiness: 'NotReady', readyReason: 'NodeStatusUnknown', taints: [], unschedulable: true, kubeletVersion: 'v1.33.2', components: [pod('etcd', 'm02', { stale: true }), pod('kube-apiserver', 'm02', { present: false, phase: '', readyContainers: 0, totalContainers: 0 })] },
    ],
    addons: [
      { name: 'coredns', kind: 'Deployment', namespace: 'kube-system', role: 'dns', desired: 2, ready: 2, healthy: true },
      { name: 'kube-proxy', kind: 'DaemonSet', namespace: 'kube-system', role: 'proxy', desired: 3, ready: 2, healthy: false },
    ],
  };
}

function leases(): LeasesModel {
  return {
    leaders: [
      { name: 'kube-scheduler', holderIdentity: 'm01_1234', holderHost: 'm01', inventoryHost: 'm01', transitions: 1, durationSeconds: 15, sinceRenewMs: 1_000, acquiredAgoMs: 600_000, health: 'healthy' },
      { name: 'kube-controller-manager', holderIdentity: undefined, holderHost: undefined, inventoryHost: undefined, transitions: 4, durationSeconds: 15, sinceRenewMs: 30_000, acquiredAgoMs: undefined, health: 'expired' },
    ],
    nodes: [
      { node: 'm01', host: 'm01', holder: 'm01', durationSeconds: 40, renewTime: NOW - 2000, sinceRenewMs: 2_000, health: 'healthy', notReadyInMs: undefined },
      { node: 'w02', host: 'w02', holder: 'w02', durationSeconds: 40, renewTime: NOW - 30_000, sinceRenewMs: 30_000, health: 'late', notReadyInMs: 20_000 },
      { node: 'w03', host: 'w03', holder: 'w03', durationSeconds: 40, renewTime: NOW - 90_000, sinceRenewMs: 90_000, health: 'expired', notReadyInMs: -40_000 },
    ],
    apiservers: [{ name: 'apiserver-abc', hostname: 'm01', inventoryHost: 'm01', holderIdentity: 'apiserver-abc_x', durationSeconds: 3600, sinceRenewMs: 4_000, health: 'healthy' }],
  };
}

const member = (name: string, id: string, over: Partial<EtcdMember> = {}): EtcdMember => ({
  id, name, peerURLs: [`https://10.3.60.${id}:2380`], clientURLs: [`https://10.3.60.${id}:2379`], isLearner: false, host: name, reachable: true, isLeader: false,
  raftTerm: 4, raftIndex: 1200, raftAppliedIndex: 1190, dbSize: 20_000_000, dbSizeInUse: 8_000_000, quota: 2 * 1024 ** 3, version: '3.5.21', alarms: [], problem: undefined, healthy: true, ...over,
});

function etcd(): EtcdModel {
  return {
    via: 'exec etcd-m01', fetchedAt: NOW - 20_000, clusterId: 'cdf818194e3a8c32', leaderId: '11', voting: 3, healthyVoting: 2, quorum: 2, tolerates: 0,
    quorumLine: '2/3 voting members healthy, quorum 2 (at risk)',
    problems: ['etcd member m03 (13): unreachable: context deadline exceeded', 'etcd quorum at risk: one more failure loses quorum (2/3 healthy)'],
    members: [
      member('m01', '11', { isLeader: true }),
      member('m02', '12', { alarms: ['NOSPACE'], problem: 'alarm NOSPACE', healthy: false }),
      member('m03', '13', { reachable: false, problem: 'unreachable: context deadline exceeded', healthy: false, unreachableSince: NOW - 9_000, lastSeen: { role: 'follower', version: '3.5.21', at: NOW - 12_000 }, raftTerm: undefined, raftIndex: undefined, raftAppliedIndex: undefined, dbSize: undefined, dbSizeInUse: undefined, version: undefined }),
    ],
  };
}

const byId = (nodes: readonly LiveNode[], id: string): LiveNode => {
  const found = nodes.flatMap((n) => [n, ...(n.children ?? [])]).find((n) => n.id === id);
  assert.ok(found, `row ${id}`);
  return found;
};
const tip = (n: LiveNode): string => (typeof n.tooltip === 'string' ? n.tooltip : (n.tooltip as Markdown | undefined)?.markdown ?? '');
/** Every text a row shows: label, description and each paragraph of its tooltip, its children's too. */
const texts = (nodes: readonly LiveNode[]): [string, string][] =>
  nodes.flatMap((n): [string, string][] => [[`${n.id} label`, n.label], [`${n.id} description`, n.description ?? ''], ...tip(n).split('\n\n').map((p, i): [string, string] => [`${n.id} tooltip ${i}`, p]), ...texts(n.children ?? [])]);

test('control plane: a Ready node with its pods, drift and a crash; a node not Ready says its pods are a last report; the add-ons', () => {
  const tree = buildControlPlaneTree(controlPlane());
  const m01 = byId(tree, 'cpnode:m01');
  assert.equal(m01.description, 'Ready · 2/3 pods ready · kubelet v1.33.2 · apiserver v1.33.2');
  assert.equal(m01.color, WARN, 'a pod not ready: the warning colour');
  assert.equal(byId(tree, 'cp:m01:etcd').description, 'Running · ready 1/1 · restarts 0 · 60m · static (mirror)');
  assert.equal(byId(tree, 'cp:m01:kube-apiserver').icon, 'diff', 'the manifest on disk differs');
  assert.match(tip(byId(tree, 'cp:m01:kube-apiserver')), /Manifest on disk differs from the running pod:\n\n- kube-apiserver: --v 2 only in the manifest/);
  assert.equal(byId(tree, 'cp:m01:kube-scheduler').color, WARN);
  const m02 = byId(tree, 'cpnode:m02');
  assert.equal(m02.description, 'NotReady,SchedulingDisabled · pods last reported 1/2 ready · kubelet v1.33.2');
  assert.equal(m02.color, ERR);
  assert.match(tip(m02), /^\*\*m02\*\* \(inventory host lab-m02\)\n\nNode NotReady — NodeStatusUnknown\n\nNo taints/);
  assert.equal(byId(tree, 'cp:m02:etcd').color, MUTED, 'a stale pod is not judged');
  assert.equal(byId(tree, 'cp:m02:kube-apiserver').description, 'missing');
  const addons = byId(tree, 'addons');
  assert.deepEqual([addons.label, addons.description, addons.color], ['Add-ons', '1 not ready', WARN]);
  assert.equal(byId(tree, 'addon:kube-system/coredns').description, 'Deployment · ready 2/2');
  assert.match(tip(byId(tree, 'addon:kube-system/coredns')), /^\*\*coredns\*\* \(Deployment in `kube-system`, cluster DNS\)\n\ndesired 2, ready 2$/);
});

test('leases: the leaders with their holder, the node heartbeats with the NotReady countdown, the API server identities', () => {
  const tree = buildLeasesTree(leases());
  assert.equal(byId(tree, 'leaders').description, '2 leases');
  assert.equal(byId(tree, 'leader:kube-scheduler').description, 'm01 · 1 transition · renewed 1s ago');
  assert.equal(byId(tree, 'leader:kube-controller-manager').description, 'no holder · 4 transitions · expired, renewed 30s ago');
  assert.equal(byId(tree, 'leader:kube-controller-manager').color, ERR);
  assert.match(tip(byId(tree, 'leader:kube-scheduler')), /Holder `m01_1234` → inventory host \*\*m01\*\*/);
  assert.equal(byId(tree, 'nodeLeases').description, '3 nodes · 2 not renewing');
  assert.equal(byId(tree, 'nodeLease:m01').description, 'healthy · renewed 2s ago · 40s lease');
  assert.equal(byId(tree, 'nodeLease:w02').description, 'late · renewed 30s ago · NotReady in 20s');
  assert.equal(byId(tree, 'nodeLease:w03').description, 'expired · renewed 90s ago · past grace period');
  assert.deepEqual([byId(tree, 'nodeLease:w02').color, byId(tree, 'nodeLease:w03').contextValue], [WARN, 'lease-node-expired']);
  assert.equal(byId(tree, 'apiserver:apiserver-abc').description, 'apiserver-abc · healthy');
});

test('etcd members: the quorum at risk, a member with NOSPACE, an unreachable one labelled by what was last seen', () => {
  const tree = buildEtcdTree(etcd(), undefined, NOW);
  const quorum = tree[0]!;
  assert.equal(quorum.label, '2/3 voting members healthy, quorum 2 (at risk)');
  assert.equal(quorum.description, 'via exec etcd-m01 · 20s old');
  assert.equal(quorum.color, WARN);
  assert.match(tip(quorum), /- etcd quorum at risk: one more failure loses quorum \(2\/3 healthy\)\n\nRead via exec etcd-m01\n\ncluster ID `cdf818194e3a8c32`$/);
  assert.match(byId(tree, 'etcd:11').description!, /^11 · leader · voter · v3\.5\.21 · term 4 · index 1200 · applied 1190 · db 20\.0 MB \(1% of quota\)$/);
  assert.equal(byId(tree, 'etcd:11').color, OK);
  assert.match(byId(tree, 'etcd:12').description!, / · ALARM NOSPACE · alarm NOSPACE$/);
  assert.match(tip(byId(tree, 'etcd:12')), /Alarms: NOSPACE \(every write is refused: \*Recover etcd from NOSPACE…\*\)/);
  const m03 = byId(tree, 'etcd:13');
  assert.match(m03.description!, /^13 · unreachable since \d\d:\d\d:\d\d \(9s ago\) · last seen follower v3\.5\.21 at \d\d:\d\d:\d\d · context deadline exceeded$/);
  assert.match(tip(m03), /Unreachable: unreachable: context deadline exceeded — since \d\d:\d\d:\d\d \(9s ago\); last seen as follower/);
  assert.deepEqual(byId(tree, 'etcd:11').children!.map((c) => c.label), ['peer', 'client', 'database']);
  assert.deepEqual(buildEtcdTree(undefined, 'no etcd pod to read through', NOW).map((n) => [n.label, n.description]), [['etcd not read', 'no etcd pod to read through']]);
  assert.deepEqual(buildEtcdTree(undefined, undefined, NOW), [], 'nothing read yet: the welcome content');
});

test('a cluster that cannot be reached: the reason, then another context or the same again', () => {
  const rows = connectionProblemRows('connection refused (https://10.3.60.100:6443): ECONNREFUSED');
  assert.deepEqual(rows.map((r) => [r.label, r.command?.command]), [['Cannot connect to the cluster', undefined], ['Select Cluster Context…', 'kubeadm.selectClusterContext'], ['Reconnect', 'kubeadm.reconnectCluster']]);
  assert.equal(rows[0]!.color, ERR);
});

test('the same rows in Russian: no English sentence left, kubectl\'s and etcdctl\'s words and the names kept', () => {
  const bundle = JSON.parse(readFileSync(join(ROOT, 'l10n/bundle.l10n.ru.json'), 'utf8')) as Record<string, string>;
  assert.deepEqual(useMessages('ru', bundle), []);
  try {
    const all = [...texts(buildControlPlaneTree(controlPlane())), ...texts(buildLeasesTree(leases())), ...texts(buildEtcdTree(etcd(), 'x', NOW)), ...texts(connectionProblemRows('x'))];
    // The cluster's own words stay: names, versions, IDs, URLs, counts, kubectl's node status and Kubernetes' objects
    // (Node, Taint); etcd's quorum line and problems and the manifest's differences are the model's, not the rows'.
    const own = /^(m0\d|w0\d|lab-m02|coredns|kube-proxy|etcd|kube-apiserver|kube-scheduler|kube-controller-manager|apiserver-abc|peer|client|taints|x|\d+|node-role\S+|https:\S+|(kubelet|kube-apiserver) v[\d.]+)$|^\*\*[\w/-]+\*\*( `\d+`)?$|^(peer|client) https:\S+$|^Node (Ready|NotReady) — \w+$|^Taint: `|^- etcd |^- kube-apiserver: |^config\.hash `\w+`$|^\*\*m0\d\*\* `\d+` · etcd [\d.]+$|quorum 2 \(at risk\)/;
    const left = all.filter(([k, v]) => v && !own.test(v) && !CYRILLIC.test(v) && !/^etcd:1\d (label|description)$/.test(k)).map(([k, v]) => `${k}: ${v}`);
    assert.deepEqual(left, []);
    assert.equal(byId(buildControlPlaneTree(controlPlane()), 'addons').label, bundle['Add-ons']);
    assert.equal(byId(buildLeasesTree(leases()), 'nodeLease:w02').description!.split(' · ')[0], bundle['late']);
    // the member rows: every part but etcdctl's own words (the ID, the version, the problem etcd reported) in Russian
    const m03 = byId(buildEtcdTree(etcd(), undefined, NOW), 'etcd:13');
    assert.deepEqual(m03.description!.split(' · ').slice(1, -1).filter((p) => !CYRILLIC.test(p)), []);
  } finally {
    useMessages('en', undefined);
  }
});
