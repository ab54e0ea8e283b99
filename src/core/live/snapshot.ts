/**
 * One consistent picture of the cluster for the views and the CLI: the watched objects plus the last
 * etcd read, and every model built from them.
 */
import type { Inventory } from '../inventory/types';
import { buildControlPlane, hostForNode, nodeReadiness, type ControlPlaneModel, type NodeReadiness } from './controlPlane';
import type { EtcdMember, EtcdModel } from './etcd';
import { buildLeases, type LeasesModel } from './leases';
import type { DaemonSet, Deployment, Lease, Node, Pod } from './types';

export interface ClusterObjects {
  pods: Pod[];
  nodes: Node[];
  nodeLeases: Lease[];
  systemLeases: Lease[];
  daemonSets: DaemonSet[];
  deployments: Deployment[];
}

export interface HostLive {
  host: string;
  address: string;
  roles: string[];
  node: string | undefined;
  readiness: NodeReadiness | 'no node';
  readyReason: string | undefined;
  kubeletVersion: string | undefined;
  pods: { name: string; phase: string; ready: string; restarts: number }[];
  etcdMember: EtcdMember | undefined;
  /** Leases this host holds: its node lease, leader leases, its apiserver identity lease. */
  leases: string[];
}

export interface LiveModel {
  now: number;
  controlPlane: ControlPlaneModel;
  leases: LeasesModel;
  etcd: EtcdModel | undefined;
  hosts: HostLive[];
}

export function buildLiveModel(objects: ClusterObjects, now: number, inventory?: Inventory, etcd?: EtcdModel): LiveModel {
  const controlPlane = buildControlPlane({ now, pods: objects.pods, nodes: objects.nodes, daemonSets: objects.daemonSets, deployments: objects.deployments, inventory });
  const leases = buildLeases({ now, nodeLeases: objects.nodeLeases, systemLeases: objects.systemLeases, inventory });
  return { now, controlPlane, leases, etcd, hosts: joinHosts(objects, leases, etcd, inventory) };
}

/** Inventory host → its Node, its kube-system pods, its etcd member and the leases it holds. */
export function joinHosts(objects: ClusterObjects, leases: LeasesModel, etcd: EtcdModel | undefined, inventory?: Inventory): HostLive[] {
  if (!inventory) return [];
  const nodeOfHost = new Map<string, Node>();
  for (const n of objects.nodes) {
    const h = hostForNode(inventory, n.metadata.name, n);
    if (h && !nodeOfHost.has(h.name)) nodeOfHost.set(h.name, n);
  }
  return inventory.hosts.map((h): HostLive => {
    const node = nodeOfHost.get(h.name);
    const nodeName = node?.metadata.name;
    const r = nodeReadiness(node);
    const pods = nodeName
      ? objects.pods
          .filter((p) => p.spec?.nodeName === nodeName)
          .map((p) => {
            const st = p.status?.containerStatuses ?? [];
            return { name: p.metadata.name, phase: p.status?.phase ?? 'Unknown', ready: `${st.filter((s) => s.ready).length}/${Math.max(st.length, p.spec?.containers?.length ?? 0)}`, restarts: st.reduce((n, s) => n + s.restartCount, 0) };
          })
          .sort((a, b) => a.name.localeCompare(b.name))
      : [];
    const held: string[] = [];
    for (const l of leases.nodes) if (l.host === h.name || (nodeName && l.node === nodeName)) held.push(`kube-node-lease/${l.node}`);
    for (const l of leases.leaders) if (l.inventoryHost === h.name || (nodeName && l.holderHost === nodeName)) held.push(`kube-system/${l.name} (leader)`);
    for (const l of leases.apiservers) if (l.inventoryHost === h.name || (nodeName && l.hostname === nodeName)) held.push(`kube-system/${l.name}`);
    return {
      host: h.name,
      address: h.address,
      roles: h.roles,
      node: nodeName,
      readiness: node ? r.readiness : 'no node',
      readyReason: r.reason,
      kubeletVersion: node?.status?.nodeInfo?.kubeletVersion,
      pods,
      etcdMember: etcd?.members.find((m) => m.host === h.name || (nodeName !== undefined && m.name === nodeName)),
      leases: held,
    };
  });
}
