/** sysctl.d and modules-load.d files for Kubernetes nodes and for the load balancers (see ../sysctl/lint.ts for the convention). */
import { BALANCER_SYSCTLS, NODE_MODULES, NODE_SYSCTLS } from '../sysctl/lint';

export function generateNodeSysctl(): string {
  const width = Math.max(...Object.keys(NODE_SYSCTLS).map((k) => k.length));
  return [
    '# Kubernetes nodes: bridged pod traffic must pass through iptables (kube-proxy, flannel) and nodes must route.',
    ...Object.entries(NODE_SYSCTLS).map(([k, v]) => `${k.padEnd(width)} = ${v}`),
  ].join('\n') + '\n';
}

export function generateBalancerSysctl(): string {
  return [
    '# kubeadm-workbench: roles=loadbalancer',
    '# HAProxy binds the VIP even before Keepalived has put it on the interface (boot order, BACKUP balancers).',
    ...Object.entries(BALANCER_SYSCTLS).map(([k, v]) => `${k} = ${v}`),
  ].join('\n') + '\n';
}

export function generateModules(): string {
  return ['# overlay for containerd\'s overlayfs snapshotter, br_netfilter for the bridge-nf-call sysctls', ...NODE_MODULES].join('\n') + '\n';
}
