/**
 * The inventory's addresses against each other and the cluster's subnets, each finding at the line that must
 * change: a node or the VIP inside the pod or service subnet, a VIP no host can hold (special ranges, its subnet's
 * network or broadcast address). Host addresses of the special ranges are refused by their field (nodeAddress).
 */
import { cidrContains, cidrEnds, isIPv4, parseCidr, specialIPv4, type Cidr } from '../net';
import type { Reporter } from './parse';
import { hostsWithRole, splitEndpoint, type Inventory } from './types';
import { t } from '../l10n';

/** The narrowest prefix the VIP and the balancers' addresses must share (see the vip-subnet rule). */
export const MIN_VIP_PREFIX = 16;

/** The longest prefix (at most /24) that holds the VIP and every balancer: what keepalived.conf gives the VIP. */
export function vipPrefix(vip: string, balancers: string[]): number {
  for (let bits = 24; bits >= MIN_VIP_PREFIX; bits--) {
    const cidr = parseCidr(`${vip}/${bits}`);
    if (cidr && balancers.every((a) => cidrContains(cidr, a))) return bits;
  }
  return 24;
}

export function networkChecks(inv: Inventory, r: Reporter): void {
  const subnets: { key: 'podSubnet' | 'serviceSubnet'; cidr: Cidr | undefined; why: string }[] = [
    { key: 'podSubnet', cidr: parseCidr(inv.cluster.podSubnet), why: t('the CNI routes the pod subnet through its own device (flannel: the VXLAN device)') },
    { key: 'serviceSubnet', cidr: parseCidr(inv.cluster.serviceSubnet), why: t("kube-proxy captures every service-subnet address in each node's iptables rules") },
  ];
  for (const host of inv.hosts) {
    for (const s of subnets) {
      if (!s.cidr || !isIPv4(host.address) || !cidrContains(s.cidr, host.address)) continue;
      const rule = s.key === 'podSubnet' ? 'inventory/node-in-pod-subnet' : 'inventory/node-in-service-subnet';
      r.push(rule, 'error', t("{0}'s address {1} lies inside {2} {3}: {4}, so the node becomes unreachable from the others.", host.name, host.address, s.key, inv.cluster[s.key], s.why), r.hostRange(host.name));
    }
  }
  const endpoint = splitEndpoint(inv.cluster.controlPlaneEndpoint);
  const node = r.clusterField('controlPlaneEndpoint');
  if (!endpoint || !node || !isIPv4(endpoint.host)) return;
  const vip = endpoint.host;
  for (const s of subnets) {
    if (s.cidr && cidrContains(s.cidr, vip)) {
      r.report('inventory/vip-in-cluster-subnet', 'error', t('The VIP {0} lies inside {1} {2}: {3}, so no node would reach the API through it.', vip, s.key, inv.cluster[s.key], s.why), node);
    }
  }
  const special = specialIPv4(vip);
  if (special) {
    r.report('inventory/vip-address', 'error', t('The VIP {0} {1}.', vip, special), node);
    return;
  }
  const balancers = hostsWithRole(inv, 'loadbalancer').map((h) => h.address).filter(isIPv4);
  if (!balancers.length) return;
  const bits = vipPrefix(vip, balancers);
  const ends = cidrEnds(parseCidr(`${vip}/${bits}`)!);
  const which = vip === ends.network ? 'network' : vip === ends.broadcast ? 'broadcast' : undefined;
  if (which) {
    r.report('inventory/vip-address', 'error', t("The VIP {0} is the {1} address of the balancers' subnet {2}/{3}, which keepalived.conf gives it: choose an address inside the subnet.", vip, which, ends.network, bits), node);
  }
}
