/**
 * The lab's cluster as a node drill reads it, without a lab: the example inventory, its generated haproxy.cfg, Nodes,
 * leader Leases, the three etcd members and a Deployment's pods — for the drill's plan, observer and report tests
 * (drill.test.ts) and the same drills read in Russian (test/unit/l10n/drillRussian.test.ts).
 */
import { generateHaproxyConfig } from '../../../src/core/generate/haproxy';
import type { Inventory } from '../../../src/core/inventory/types';
import { buildEtcd, type EtcdRaw } from '../../../src/core/live/etcd';
import type { Lease, Node } from '../../../src/core/live/types';
import { haproxyCfgInfo } from '../../../src/core/drill/params';
import type { DrillPodJson, DrillRequest, DrillSnapshot } from '../../../src/core/drill/plan';
import { loadInventory } from '../haproxy/helpers';

export const inv: Inventory = loadInventory('examples/labs-k8s/inventory.yaml');
export const cfg = haproxyCfgInfo(generateHaproxyConfig(inv));

export const node = (name: string, ready = 'True', extra: Partial<Node> = {}): Node => ({ metadata: { name }, status: { conditions: [{ type: 'Ready', status: ready }] }, ...extra });
export const lease = (name: string, holder: string): Lease => ({ metadata: { name, namespace: 'kube-system' }, spec: { holderIdentity: `${holder}_0f3c`, leaseDurationSeconds: 15 } });
export const ids = { m01: '8e9e05c52164694d', m02: '91bc3c398fb3c146', m03: 'fd422379fda50e48' };

export function etcdModel(leader: keyof typeof ids, down: (keyof typeof ids)[] = []): DrillSnapshot['etcd'] {
  const raw: EtcdRaw = {
    members: (Object.keys(ids) as (keyof typeof ids)[]).map((m) => ({ ID: BigInt(`0x${ids[m]}`).toString(), name: `labs-k8s-${m}`, peerURLs: [`https://10.3.60.5${m.slice(-1)}:2380`], clientURLs: [`https://10.3.60.5${m.slice(-1)}:2379`] })),
    statuses: (Object.keys(ids) as (keyof typeof ids)[]).map((m) =>
      down.includes(m)
        ? { endpoint: `https://10.3.60.5${m.slice(-1)}:2379`, error: 'context deadline exceeded' }
        : { endpoint: `https://10.3.60.5${m.slice(-1)}:2379`, status: { header: { member_id: BigInt(`0x${ids[m]}`).toString() }, leader: BigInt(`0x${ids[leader]}`).toString(), raftTerm: 4, raftIndex: 5000, raftAppliedIndex: 5000 } },
    ),
  };
  return buildEtcd(raw, 'test', 0, inv);
}

export const pod = (name: string, extra: Partial<DrillPodJson['metadata']> = {}, tolerationSeconds: number | 'forever' = 300): DrillPodJson => ({
  metadata: { name, namespace: 'default', ownerReferences: [{ kind: 'ReplicaSet', name: 'web-5d9c', controller: true }], ...extra },
  spec: { nodeName: 'labs-k8s-w01', tolerations: [{ key: 'node.kubernetes.io/unreachable', operator: 'Exists', effect: 'NoExecute', ...(tolerationSeconds === 'forever' ? {} : { tolerationSeconds }) }] },
  status: { phase: 'Running' },
});

/** A healthy cluster: five Ready nodes, m01 the etcd leader and the scheduler's, every backend UP on the balancer (read by `method`). */
export function snapshot(over: Partial<DrillSnapshot> = {}, method: 'socat' | 'journal' = 'socat'): DrillSnapshot {
  const state = (s: string) => ({ status: s });
  return {
    apiServer: 'https://10.3.60.100:6443',
    nodes: ['m01', 'm02', 'm03', 'w01', 'w02'].map((n) => node(`labs-k8s-${n}`)),
    leaderLeases: [lease('kube-scheduler', 'labs-k8s-m01'), lease('kube-controller-manager', 'labs-k8s-m02')],
    kubeVersion: 'v1.34.12',
    componentArgs: {},
    etcd: etcdModel('m01'),
    balancers: [{ host: 'labs-k8s-balancer', cfg, method, clockEpoch: 1_700_000_000, states: { 'kubernetes-master-nodes/labs-k8s-m01': state('UP'), 'kubernetes-master-nodes/labs-k8s-m02': state('UP'), 'kubernetes-master-nodes/labs-k8s-m03': state('UP') } }],
    pods: [],
    replicaSets: [],
    ...over,
  };
}

export const powerOff: DrillRequest = { host: 'labs-k8s-m01', kind: 'power-off', powerOffCommand: 'bash lab/lab.sh fault power-off {host}', powerOnCommand: 'bash lab/lab.sh fault power-on {host}' };
