import { describeComponent, describeMember, memberFacts } from '../../../src/core/live/render';
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { hexId, parseJsonBigSafe } from '../../../src/core/live/bigjson';
import { buildControlPlane, manifestDrift } from '../../../src/core/live/controlPlane';
import { buildEtcd, memberRole, parseEndpointStatus, parseMemberList, quorumLine, type MemberHistory } from '../../../src/core/live/etcd';
import { buildLeases, leaseHealth } from '../../../src/core/live/leases';
import { buildLiveModel } from '../../../src/core/live/snapshot';
import { verdict } from '../../../src/core/live/status';
import { formatAge } from '../../../src/core/live/format';
import type { Inventory } from '../../../src/core/inventory/types';
import type { Lease, Node, Pod } from '../../../src/core/live/types';

const NOW = Date.parse('2026-11-29T12:00:00Z');
const ago = (s: number) => new Date(NOW - s * 1000).toISOString();

const inventory: Inventory = {
  cluster: { name: 'lab', kubernetesVersion: 'v1.34.12', controlPlaneEndpoint: '10.3.60.100:6443', podSubnet: '10.244.0.0/16', serviceSubnet: '10.96.0.0/12', cni: 'flannel' },
  ssh: {},
  hosts: [
    { name: 'lb', address: '10.3.60.50', roles: ['loadbalancer'] },
    { name: 'm01', address: '10.3.60.51', roles: ['control-plane'] },
    { name: 'm02', address: '10.3.60.52', roles: ['control-plane'] },
    { name: 'm03', address: '10.3.60.53', roles: ['control-plane'] },
    { name: 'w01', address: '10.3.60.54', roles: ['worker'] },
  ],
};

function node(name: string, ready: 'True' | 'False' | 'Unknown', cp: boolean): Node {
  return {
    metadata: { name, labels: cp ? { 'node-role.kubernetes.io/control-plane': '' } : {} },
    spec: cp ? { taints: [{ key: 'node-role.kubernetes.io/control-plane', effect: 'NoSchedule' }] } : {},
    status: { conditions: [{ type: 'Ready', status: ready, reason: ready === 'True' ? 'KubeletReady' : 'NodeStatusUnknown' }], addresses: [{ type: 'InternalIP', address: `10.3.60.5${name.slice(-1)}` }], nodeInfo: { kubeletVersion: 'v1.34.12' } },
  };
}

function staticPod(component: string, nodeName: string, opts: { ready?: boolean; restarts?: number; hash?: string; mirror?: string } = {}): Pod {
  const hash = opts.hash ?? 'abc';
  return {
    metadata: {
      name: `${component}-${nodeName}`, namespace: 'kube-system', labels: { component, tier: 'control-plane' },
      annotations: { 'kubernetes.io/config.hash': hash, 'kubernetes.io/config.mirror': opts.mirror ?? hash, 'kubernetes.io/config.source': 'file' },
      ownerReferences: [{ kind: 'Node', name: nodeName }],
    },
    spec: { nodeName, containers: [{ name: component, image: `registry.k8s.io/${component}:v1.34.12`, command: [component, '--v=2'] }] },
    status: {
      phase: 'Running', startTime: ago(3 * 3600),
      conditions: [{ type: 'Ready', status: opts.ready === false ? 'False' : 'True' }],
      containerStatuses: [{ name: component, ready: opts.ready !== false, restartCount: opts.restarts ?? 0, state: opts.ready === false ? { waiting: { reason: 'CrashLoopBackOff' } } : { running: {} } }],
    },
  };
}

const COMPONENTS = ['etcd', 'kube-apiserver', 'kube-controller-manager', 'kube-scheduler'];

test('BigInt-safe JSON keeps uint64 IDs exact; hex like etcdctl', () => {
  const text = '{"header":{"cluster_id":14841639068965178418,"raft_term":2},"members":[{"ID":10276657743932975437,"name":"m01","peerURLs":["https://10.3.60.51:2380"],"clientURLs":["https://10.3.60.51:2379"]}],"s":"a 12345678901234567890 b"}';
  assert.notEqual(JSON.parse(text).members[0].ID.toString(), '10276657743932975437');
  const o = parseJsonBigSafe(text) as { members: { ID: string }[]; s: string; header: { raft_term: number } };
  assert.equal(o.members[0]!.ID, '10276657743932975437');
  assert.equal(o.s, 'a 12345678901234567890 b');
  assert.equal(o.header.raft_term, 2);
  assert.equal(hexId(o.members[0]!.ID), '8e9e05c52164694d');
  assert.equal(hexId('10276657743932975437'), '8e9e05c52164694d');
});

const IDS = { m01: '10276657743932975437', m02: '9372538179322589801', m03: '17662163412340010451' };
const memberList = `{"header":{"cluster_id":14841639068965178418,"member_id":${IDS.m01},"raft_term":7},"members":[` +
  Object.entries(IDS).map(([n, id], i) => `{"ID":${id},"name":"${n}","peerURLs":["https://10.3.60.5${i + 1}:2380"],"clientURLs":["https://10.3.60.5${i + 1}:2379"]}`).join(',') + ']}';
const statusOf = (n: string, i: number) => `{"Endpoint":"https://10.3.60.5${i + 1}:2379","Status":{"header":{"cluster_id":14841639068965178418,"member_id":${IDS[n as keyof typeof IDS]},"revision":1234,"raft_term":7},"version":"3.6.5","dbSize":25034752,"leader":${IDS.m02},"raftIndex":5000,"raftTerm":7,"raftAppliedIndex":4998,"dbSizeInUse":12001280}}`;

test('etcd model: members, leader, raft, DB, quorum line, all healthy', () => {
  const { members, clusterId } = parseMemberList(memberList);
  const statuses = parseEndpointStatus(`[${Object.keys(IDS).map(statusOf).join(',')}]`);
  const m = buildEtcd({ members, clusterId, statuses }, 'exec etcd-m01', NOW, inventory);
  assert.equal(m.members.length, 3);
  assert.equal(m.leaderId, hexId(IDS.m02));
  assert.deepEqual(m.members.map((x) => [x.name, x.host, x.isLeader, x.healthy]), [['m01', 'm01', false, true], ['m02', 'm02', true, true], ['m03', 'm03', false, true]]);
  assert.equal(m.members[0]!.raftIndex, 5000);
  assert.equal(m.members[0]!.raftAppliedIndex, 4998);
  assert.equal(m.members[0]!.dbSizeInUse, 12001280);
  assert.equal(m.quorumLine, '3 members · quorum 2 · tolerates 1 failure');
  assert.deepEqual(m.problems, []);
});

test('etcd model: one member down → quorum at risk; two down → quorum lost; learner not voting', () => {
  const { members } = parseMemberList(memberList);
  const stderr = 'Failed to get the status of endpoint https://10.3.60.53:2379 (context deadline exceeded)\n';
  const statuses = parseEndpointStatus(`[${['m01', 'm02'].map(statusOf).join(',')}]`, stderr);
  const m = buildEtcd({ members, statuses }, 'x', NOW, inventory);
  const m03 = m.members.find((x) => x.name === 'm03')!;
  assert.equal(m03.reachable, false);
  assert.match(m03.problem!, /context deadline exceeded/);
  assert.equal(m.quorumLine, '3 members · 2 healthy · quorum 2 · tolerates 0 failures (at risk)');
  assert.ok(m.problems.some((p) => /quorum at risk/.test(p)));
  const lost = buildEtcd({ members, statuses: parseEndpointStatus(`[${statusOf('m01', 0)}]`) }, 'x', NOW);
  assert.match(lost.quorumLine, /QUORUM LOST/);
  const learner = buildEtcd({ members: [...members.slice(0, 2), { ...members[2]!, isLearner: true }], statuses: parseEndpointStatus(`[${['m01', 'm02'].map(statusOf).join(',')}]`) }, 'x', NOW);
  assert.equal(learner.voting, 2);
  assert.equal(quorumLine(5, 5), '5 members · quorum 3 · tolerates 2 failures');
});

test('etcd: an unreachable member is labelled by what earlier reads saw (last role, since when), not as a follower', () => {
  const { members } = parseMemberList(memberList);
  const history: MemberHistory = new Map();
  const all = buildEtcd({ members, statuses: parseEndpointStatus(`[${['m01', 'm02', 'm03'].map(statusOf).join(',')}]`) }, 'x', NOW, inventory, history);
  const m03Before = all.members.find((x) => x.name === 'm03')!;
  assert.deepEqual(memberFacts(m03Before, NOW).slice(0, 2), [m03Before.isLeader ? 'leader' : 'follower', 'voter']);
  const stderr = 'Failed to get the status of endpoint https://10.3.60.53:2379 (context deadline exceeded)\n';
  const down = () => parseEndpointStatus(`[${['m01', 'm02'].map(statusOf).join(',')}]`, stderr);
  buildEtcd({ members, statuses: down() }, 'x', NOW + 3000, inventory, history);
  const later = buildEtcd({ members, statuses: down() }, 'x', NOW + 9000, inventory, history);
  const m03 = later.members.find((x) => x.name === 'm03')!;
  assert.equal(m03.unreachableSince, NOW + 3000);
  assert.equal(m03.lastSeen?.role, memberRole(m03Before));
  const facts = memberFacts(m03, NOW + 9000);
  assert.match(facts[0]!, /^unreachable since \d\d:\d\d:\d\d \(6s ago\)$/);
  assert.match(facts[1]!, new RegExp(`^last seen ${memberRole(m03Before)} v3\\.`));
  assert.ok(!facts.includes('follower') && !facts.includes('leader'));
  assert.match(describeMember(m03, NOW + 9000), /^m03 · [0-9a-f]+ · unreachable since .* · DOWN: unreachable: context deadline exceeded$/);
  // Reachable members carry etcdctl's columns: ID, version, learner flag, raft term, index, applied index.
  assert.match(describeMember(later.members[0]!, NOW), /^m01 · [0-9a-f]+ · (leader|follower) · voter · v3\.\S+ · term \d+ · index \d+ · applied \d+ · db /);
  // Back: the label goes, the history keeps the new role.
  const back = buildEtcd({ members, statuses: parseEndpointStatus(`[${['m01', 'm02', 'm03'].map(statusOf).join(',')}]`) }, 'x', NOW + 12000, inventory, history);
  assert.equal(back.members.find((x) => x.name === 'm03')!.unreachableSince, undefined);
});

test('etcd model from the JSON gateway (IDs as decimal strings, false fields omitted) and alarms', () => {
  const members = [{ ID: IDS.m01, name: 'm01', peerURLs: ['https://10.3.60.51:2380'], clientURLs: ['https://10.3.60.51:2379'] }];
  const status = { header: { member_id: IDS.m01, raft_term: '3' }, version: '3.4.23', dbSize: '20480', leader: IDS.m01, raftIndex: '10', raftTerm: '3', raftAppliedIndex: '10', dbSizeInUse: '16384', errors: ['memberID:8e9e05c52164694d alarm:NOSPACE '] };
  const m = buildEtcd({ members, statuses: [{ endpoint: 'https://10.3.60.51:2379', status }] }, 'gw', NOW);
  assert.equal(m.members[0]!.id, '8e9e05c52164694d');
  assert.equal(m.members[0]!.isLeader, true);
  assert.equal(m.members[0]!.raftTerm, 3);
  assert.deepEqual(m.members[0]!.alarms, ['NOSPACE']);
  assert.equal(m.members[0]!.healthy, false);
});

test('control plane: four mirror pods per node, markers, restarts, age, add-ons, taints', () => {
  const pods = ['m01', 'm02', 'm03'].flatMap((n) => COMPONENTS.map((c) => staticPod(c, n, n === 'm02' && c === 'kube-scheduler' ? { ready: false, restarts: 7 } : n === 'm03' && c === 'etcd' ? { hash: 'new', mirror: 'old' } : {})));
  const cp = buildControlPlane({
    now: NOW, pods, nodes: [node('m01', 'True', true), node('m02', 'True', true), node('m03', 'Unknown', true), node('w01', 'True', false)], inventory,
    daemonSets: [
      { metadata: { name: 'kube-proxy', namespace: 'kube-system' }, status: { desiredNumberScheduled: 4, numberReady: 4 } },
      { metadata: { name: 'kube-flannel-ds', namespace: 'kube-flannel' }, status: { desiredNumberScheduled: 4, numberReady: 3 } },
    ],
    deployments: [{ metadata: { name: 'coredns', namespace: 'kube-system' }, spec: { replicas: 2 }, status: { readyReplicas: 2 } }],
  });
  assert.deepEqual(cp.nodes.map((n) => `${n.name}:${n.readiness}:${n.host}`), ['m01:Ready:m01', 'm02:Ready:m02', 'm03:NotReady:m03']);
  const m01 = cp.nodes[0]!;
  assert.deepEqual(m01.components.map((c) => c.component), COMPONENTS);
  assert.deepEqual(m01.taints, ['node-role.kubernetes.io/control-plane:NoSchedule']);
  const etcd = m01.components[0]!;
  assert.equal(etcd.mirror, true);
  assert.equal(etcd.source, 'file');
  assert.equal(etcd.ageMs, 3 * 3600 * 1000);
  assert.equal(formatAge(etcd.ageMs), '3h');
  const sched = cp.nodes[1]!.components[3]!;
  assert.deepEqual([sched.ready, sched.restarts, sched.reason], [false, 7, 'CrashLoopBackOff']);
  assert.equal(cp.nodes[2]!.components[0]!.mirrorStale, true);
  // m03 is NotReady (kubectl's word for Ready=Unknown): its pods' status is the last report, never counted ready.
  const m03 = cp.nodes[2]!.components;
  assert.deepEqual(m03.map((c) => [c.ready, c.stale, c.readyContainers]), COMPONENTS.map(() => [false, true, 1]));
  assert.match(describeComponent(m03[1]!), /^kube-apiserver · Running · ready 1\/1 · .* · as last reported \(node not Ready\)/);
  assert.equal(m01.components.some((c) => c.stale), false);
  assert.deepEqual(cp.addons.map((a) => `${a.name} ${a.ready}/${a.desired} ${a.healthy}`), ['coredns 2/2 true', 'kube-proxy 4/4 true', 'kube-flannel-ds 3/4 false']);
});

test('control plane: an inventory control-plane host without a Node still shows, components missing', () => {
  const cp = buildControlPlane({ now: NOW, pods: [], nodes: [], daemonSets: [], deployments: [], inventory });
  assert.deepEqual(cp.nodes.map((n) => n.name), ['m01', 'm02', 'm03']);
  assert.equal(cp.nodes[0]!.components[0]!.present, false);
});

test('manifest drift compares image, command and args with the mirror pod', () => {
  const pod = staticPod('kube-apiserver', 'm01');
  assert.deepEqual(manifestDrift({ spec: { containers: pod.spec!.containers! } }, pod), { drift: false, differences: [] });
  const changed = manifestDrift({ spec: { containers: [{ name: 'kube-apiserver', image: 'registry.k8s.io/kube-apiserver:v1.34.13', command: ['kube-apiserver', '--v=4'] }] } }, pod);
  assert.equal(changed.drift, true);
  assert.equal(changed.differences.length, 3);
});

test('leases: node heartbeat health, NotReady countdown by the 50 s grace period, leaders mapped to hosts, identity leases', () => {
  const nodeLeases: Lease[] = [
    { metadata: { name: 'm01', namespace: 'kube-node-lease' }, spec: { holderIdentity: 'm01', leaseDurationSeconds: 40, renewTime: ago(5) } },
    { metadata: { name: 'm02', namespace: 'kube-node-lease' }, spec: { holderIdentity: 'm02', leaseDurationSeconds: 40, renewTime: ago(30) } },
    { metadata: { name: 'm03', namespace: 'kube-node-lease' }, spec: { holderIdentity: 'm03', leaseDurationSeconds: 40, renewTime: ago(45) } },
  ];
  const systemLeases: Lease[] = [
    { metadata: { name: 'kube-scheduler', namespace: 'kube-system' }, spec: { holderIdentity: 'm02_3a7d9e0b-2c4f-4b1a-8e6d-7c5b9a0f1e23', leaseDurationSeconds: 15, renewTime: ago(1), acquireTime: ago(600), leaseTransitions: 2 } },
    { metadata: { name: 'kube-controller-manager', namespace: 'kube-system' }, spec: { holderIdentity: 'm01_8f2e6c1a', leaseDurationSeconds: 15, renewTime: ago(20), leaseTransitions: 0 } },
    { metadata: { name: 'apiserver-q7bx3mfl2kcnq4zt6r5h2dvw4e', namespace: 'kube-system', labels: { 'apiserver.kubernetes.io/identity': 'kube-apiserver', 'kubernetes.io/hostname': 'm03' } }, spec: { holderIdentity: 'apiserver-q7bx_1c9d', leaseDurationSeconds: 3600, renewTime: ago(4) } },
  ];
  const l = buildLeases({ now: NOW, nodeLeases, systemLeases, inventory });
  assert.deepEqual(l.nodes.map((n) => n.health), ['healthy', 'late', 'expired']);
  assert.deepEqual(l.nodes.map((n) => n.notReadyInMs), [45_000, 20_000, 5_000]);
  assert.deepEqual(l.leaders.map((x) => `${x.name}:${x.holderHost}:${x.inventoryHost}:${x.transitions}:${x.health}`), ['kube-controller-manager:m01:m01:0:expired', 'kube-scheduler:m02:m02:2:healthy']);
  assert.deepEqual(l.apiservers.map((a) => `${a.inventoryHost}:${a.health}`), ['m03:healthy']);
  assert.equal(leaseHealth(undefined, 40), 'unknown');
});

test('verdict: healthy cluster passes; NotReady node, member down and expired lease are degraded', () => {
  const objects = {
    pods: ['m01', 'm02', 'm03'].flatMap((n) => COMPONENTS.map((c) => staticPod(c, n))),
    nodes: [node('m01', 'True', true), node('m02', 'True', true), node('m03', 'True', true), node('w01', 'True', false)],
    nodeLeases: ['m01', 'm02', 'm03', 'w01'].map((n): Lease => ({ metadata: { name: n, namespace: 'kube-node-lease' }, spec: { leaseDurationSeconds: 40, renewTime: ago(3) } })),
    systemLeases: [], daemonSets: [], deployments: [],
  };
  const { members } = parseMemberList(memberList);
  const etcdOk = buildEtcd({ members, statuses: parseEndpointStatus(`[${Object.keys(IDS).map(statusOf).join(',')}]`) }, 'x', NOW, inventory);
  const ok = verdict(buildLiveModel(objects, NOW, inventory, etcdOk));
  assert.equal(ok.degraded, false, JSON.stringify(ok.problems));
  const live = buildLiveModel(objects, NOW, inventory, etcdOk);
  assert.equal(live.hosts.find((h) => h.host === 'm01')!.etcdMember?.name, 'm01');
  assert.ok(live.hosts.find((h) => h.host === 'm01')!.leases.includes('kube-node-lease/m01'));
  assert.equal(live.hosts.find((h) => h.host === 'm01')!.pods.length, 4);

  objects.nodes[3] = node('w01', 'False', false);
  const etcdDown = buildEtcd({ members, statuses: parseEndpointStatus(`[${['m01', 'm02'].map(statusOf).join(',')}]`) }, 'x', NOW, inventory);
  const bad = verdict(buildLiveModel(objects, NOW, inventory, etcdDown));
  assert.equal(bad.degraded, true);
  const text = bad.problems.map((p) => p.what).join('\n');
  assert.match(text, /node w01 is NotReady/);
  assert.match(text, /m03.*unreachable/);
  assert.match(text, /quorum at risk/);
});

import { kubeconfigPaths, mergeKubeconfigs } from '../../../src/core/live/kubeconfig';

test('kubeconfig paths: setting, then KUBECONFIG (colon list), then ~/.kube/config; merge first wins like kubectl', () => {
  assert.deepEqual(kubeconfigPaths('', '/a:/b::/a', '/home/u'), ['/a', '/b']);
  assert.deepEqual(kubeconfigPaths('~/lab.conf', '/a', '/home/u'), ['/home/u/lab.conf']);
  assert.deepEqual(kubeconfigPaths(undefined, undefined, '/home/u'), ['/home/u/.kube/config']);
  const merged = mergeKubeconfigs([
    { clusters: [{ name: 'c', v: 1 }], users: [{ name: 'u' }], contexts: [{ name: 'x' }], currentContext: '' },
    { clusters: [{ name: 'c', v: 2 }, { name: 'd', v: 3 }], users: [], contexts: [{ name: 'y' }], currentContext: 'y' },
    { clusters: [], users: [], contexts: [], currentContext: 'x' },
  ]);
  assert.deepEqual(merged.clusters, [{ name: 'c', v: 1 }, { name: 'd', v: 3 }]);
  assert.deepEqual(merged.contexts.map((c) => c.name), ['x', 'y']);
  assert.equal(merged.currentContext, 'y');
});

import { applyDrift, readManifests } from '../../../src/core/live/drift';

test('drift over SSH: manifests read in one command, compared with the mirror pods; a missing file is drift', async () => {
  const pods = COMPONENTS.map((c) => staticPod(c, 'm01'));
  const scripts: string[] = [];
  const remote = {
    exec: async (_host: string, script: string) => {
      scripts.push(script);
      const files: Record<string, string> = {
        etcd: `apiVersion: v1\nkind: Pod\nspec:\n  containers:\n  - name: etcd\n    image: registry.k8s.io/etcd:v1.34.12\n    command: [etcd, --v=2]\n`,
        'kube-apiserver': `spec:\n  containers:\n  - name: kube-apiserver\n    image: registry.k8s.io/kube-apiserver:v1.34.13\n    command: [kube-apiserver, --v=2]\n`,
        'kube-scheduler': `spec:\n  containers:\n  - name: kube-scheduler\n    image: registry.k8s.io/kube-scheduler:v1.34.12\n    command: [kube-scheduler, --v=2]\n`,
      };
      return { code: 0, stderr: '', stdout: ['etcd', 'kube-apiserver', 'kube-controller-manager', 'kube-scheduler'].map((c) => `=====KW-MANIFEST ${c}\n${files[c] ?? ''}`).join('') };
    },
  };
  const manifests = await readManifests(remote, 'm01');
  assert.equal(scripts.length, 1);
  assert.match(scripts[0]!, /cat \/etc\/kubernetes\/manifests\/etcd\.yaml/);
  const cp = buildControlPlane({ now: NOW, pods, nodes: [node('m01', 'True', true)], daemonSets: [], deployments: [] });
  applyDrift(cp, 'm01', manifests, pods);
  assert.deepEqual(cp.nodes[0]!.components.map((c) => c.drift?.drift), [false, true, true, false]);
  assert.match(cp.nodes[0]!.components[1]!.drift!.differences[0]!, /image .*v1\.34\.12 → .*v1\.34\.13/);
  assert.match(cp.nodes[0]!.components[2]!.drift!.differences[0]!, /missing on the host/);
});

import { serverMatchesEndpoint } from '../../../src/core/live/kubeconfig';

test('a kubeconfig server matches the inventory controlPlaneEndpoint by host and port', () => {
  assert.equal(serverMatchesEndpoint('https://10.3.60.100:6443', '10.3.60.100:6443'), true);
  assert.equal(serverMatchesEndpoint('https://K8S-API.lab:6443/', 'k8s-api.lab:6443'), true);
  assert.equal(serverMatchesEndpoint('https://10.3.60.51:6443', '10.3.60.100:6443'), false);
  assert.equal(serverMatchesEndpoint('https://[fd00::100]:6443', '[fd00::100]:6443'), true);
  assert.equal(serverMatchesEndpoint('https://api.lab', 'api.lab:443'), true);
  assert.equal(serverMatchesEndpoint(undefined, '10.3.60.100:6443'), false);
});

import { readEtcd, type MemberCache } from '../../../src/core/live/etcdSource';

test('etcd reads list members every 30 s (or on an unknown member), status every time', async () => {
  const calls: string[] = [];
  const statusAll = `[${Object.keys(IDS).map(statusOf).join(',')}]`;
  const run = async (args: string[]) => {
    const what = args.includes('member') ? 'list' : 'status';
    calls.push(what);
    return { code: 0, stderr: '', stdout: what === 'list' ? memberList : statusAll };
  };
  const cache: MemberCache = {};
  await readEtcd(run, [], false, cache, 0);
  await readEtcd(run, [], false, cache, 3000);
  await readEtcd(run, [], false, cache, 6000);
  assert.deepEqual(calls, ['list', 'status', 'status', 'status']);
  await readEtcd(run, [], false, cache, 31_000);
  assert.deepEqual(calls.slice(4), ['list', 'status']);
  cache.members = cache.members!.slice(0, 2); // a member the cache does not know answers
  const raw = await readEtcd(run, [], false, cache, 32_000);
  assert.deepEqual(calls.slice(6), ['status', 'list']);
  assert.equal(raw.members.length, 3);
});
