/** The resources the live views watch, with the narrowest selectors that still show what they need. */
import type { ResourceSpec } from './watch';

export const Resources = {
  /** Control-plane mirror pods, CoreDNS, kube-proxy and CNI pods on each node. */
  pods: { key: 'pods', path: '/api/v1/namespaces/kube-system/pods' },
  nodes: { key: 'nodes', path: '/api/v1/nodes' },
  /** Node heartbeats: one Lease per node, renewed every 10 s by its kubelet. */
  nodeLeases: { key: 'nodeLeases', path: '/apis/coordination.k8s.io/v1/namespaces/kube-node-lease/leases' },
  /** Leader-election leases (kube-scheduler, kube-controller-manager) and apiserver identity leases. */
  systemLeases: { key: 'systemLeases', path: '/apis/coordination.k8s.io/v1/namespaces/kube-system/leases' },
  /** kube-proxy and the CNI DaemonSet (flannel lives in kube-flannel, calico in kube-system or calico-system). */
  daemonSets: { key: 'daemonSets', path: '/apis/apps/v1/daemonsets' },
  /** CoreDNS. */
  deployments: { key: 'deployments', path: '/apis/apps/v1/namespaces/kube-system/deployments', fieldSelector: 'metadata.name=coredns' },
} as const satisfies Record<string, ResourceSpec>;

export type ResourceKey = keyof typeof Resources;
export const ALL_RESOURCES = Object.keys(Resources) as ResourceKey[];
