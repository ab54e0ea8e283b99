/** The lab's shape for the upgrade tests: two balancers, three control-plane nodes, three workers, per-minor sources. */
import { parseInventory } from '../../../src/core/inventory/parse';
import type { Inventory } from '../../../src/core/inventory/types';
import type { UpgradeHooks } from '../../../src/core/upgrade/plan';
import type { NodeFacts, UpgradeFacts } from '../../../src/core/upgrade/preflight';
import { parseVersion } from '../../../src/core/upgrade/versions';

export const labText = `cluster:
  name: labs-k8s
  kubernetesVersion: "1.33.13"
  controlPlaneEndpoint: 10.3.60.100:6443
  podSubnet: 10.244.0.0/16
  serviceSubnet: 10.96.0.0/12
  cni: flannel
  packages:
    kubernetesApt: "deb [signed-by=/etc/apt/keyrings/kubernetes-apt-keyring.gpg] http://10.3.60.1:8080/kubernetes/core:/stable:/v1.33/deb/ /"
    kubernetesAptKey: http://10.3.60.1:8080/kubernetes/core:/stable:/v1.33/deb/Release.key
    kubernetesAptKeySha256: 3b5e1f0c9a7d2e4b6c8a0f1e3d5b7a9c2e4f6a8b0c1d3e5f7a9b2c4d6e8f0a1b
  ignorePreflightErrors: [SystemVerification]
ssh: { user: root, port: 22 }
hosts:
  - { name: labs-k8s-balancer, address: 10.3.60.50, roles: [loadbalancer], vrrp: { state: MASTER, priority: 100, interface: ens192 } }
  - { name: labs-k8s-balancer2, address: 10.3.60.56, roles: [loadbalancer], vrrp: { state: BACKUP, priority: 90, interface: ens192 } }
  - { name: labs-k8s-m01, address: 10.3.60.51, roles: [control-plane] }
  - { name: labs-k8s-m02, address: 10.3.60.52, roles: [control-plane] }
  - { name: labs-k8s-m03, address: 10.3.60.53, roles: [control-plane] }
  - { name: labs-k8s-w01, address: 10.3.60.54, roles: [worker] }
  - { name: labs-k8s-w02, address: 10.3.60.55, roles: [worker] }
  - { name: labs-k8s-w03, address: 10.3.60.57, roles: [worker] }
`;

export function lab(text = labText): Inventory {
  const r = parseInventory(text);
  if (!r.inventory) throw new Error(JSON.stringify(r.findings));
  return r.inventory;
}

export const CPS = ['labs-k8s-m01', 'labs-k8s-m02', 'labs-k8s-m03'];
export const WORKERS = ['labs-k8s-w01', 'labs-k8s-w02', 'labs-k8s-w03'];
export const BALANCERS = ['labs-k8s-balancer', 'labs-k8s-balancer2'];

/** Hooks that record what the plan asked of the API and the backup. */
export function recordingHooks(calls: string[] = []): UpgradeHooks & { calls: string[] } {
  return {
    calls,
    snapshot: { run: async () => void calls.push('snapshot'), display: 'a folder outside the git tree' },
    drain: async (node) => void calls.push(`drain ${node}`),
    uncordon: async (node) => void calls.push(`uncordon ${node}`),
  };
}

const GIB = 1024 ** 3;

export function node(name: string, role: NodeFacts['role'], v = 'v1.33.13'): NodeFacts {
  return {
    name, role, kubeadm: v, kubelet: v, kubectl: v, ready: true,
    ...(role === 'control-plane' ? { staticPods: { apiserver: v, controllerManager: v, scheduler: v, etcd: '3.5.21-0' } } : {}),
    diskFree: { etcd: 20 * GIB, containerd: 20 * GIB },
    offered: { kubeadm: ['1.34.12-1.1'], kubelet: ['1.34.12-1.1', '1.34.11-1.1'], kubectl: ['1.34.12-1.1'] },
  };
}

/** A healthy 1.33.13 cluster asked about 1.34.12 (every image present, every package offered). */
export function healthyFacts(target = parseVersion('v1.34.12')!): UpgradeFacts {
  return {
    target,
    nodes: [...CPS.map((n) => node(n, 'control-plane')), ...WORKERS.map((n) => node(n, 'worker'))],
    coreDns: 'v1.12.0', kubeProxy: 'v1.33.13',
    etcd: CPS.map((name) => ({ name, learner: false, healthy: true })),
    certificates: [{ name: 'apiserver', daysLeft: 300 }],
    images: ['registry.k8s.io/kube-apiserver:v1.34.12', 'registry.k8s.io/etcd:3.6.4-0', 'registry.k8s.io/pause:3.10.1'].map((image) => ({ image, present: true })),
    served: [{ groupVersion: 'flowcontrol.apiserver.k8s.io/v1', resource: 'flowschemas', count: 13 }],
  };
}

