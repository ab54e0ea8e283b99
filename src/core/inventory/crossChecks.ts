/** Checks across fields and hosts: unique names and addresses, quorum, VRRP, the endpoint and the subnets. */
import { isSeq, type Node } from 'yaml';
import { cidrContains, cidrsOverlap, isIPv4, parseCidr } from '../net';
import { canonicalIPv4 } from './fields';
import { MIN_VIP_PREFIX, networkChecks } from './networkChecks';
import type { Reporter } from './parse';
import { splitEndpoint, type HostSpec, type Inventory } from './types';
import { t } from '../l10n';

export function crossChecks(inv: Inventory, r: Reporter): void {
  const byName = new Map<string, HostSpec>();
  const byAddress = new Map<string, HostSpec>();
  for (const host of inv.hosts) {
    const range = r.hostRange(host.name);
    if (byName.has(host.name)) r.push('inventory/duplicate-name', 'error', t('Host name {0} is used twice.', host.name), range, t('Node names must be unique; a second kubeadm join with the same name replaces the first node.'));
    byName.set(host.name, host);
    const sameAddress = byAddress.get(host.address);
    if (sameAddress) r.push('inventory/duplicate-address', 'error', t('{0} and {1} share address {2}.', host.name, sameAddress.name, host.address), range, t('Two machines with one address break etcd peer URLs and the HAProxy backend.'));
    byAddress.set(host.address, host);
  }
  const cps = inv.hosts.filter((h) => h.roles.includes('control-plane'));
  const lbs = inv.hosts.filter((h) => h.roles.includes('loadbalancer'));
  const hostsNode = r.root().get('hosts', true) as Node | undefined;
  if (hostsNode && isSeq(hostsNode)) {
    if (cps.length === 0) r.report('inventory/no-control-plane', 'error', t('No host has the control-plane role.'), hostsNode);
    else if (cps.length % 2 === 0) r.report('inventory/even-control-plane', 'warning', t('{0} control-plane nodes: an even etcd cluster tolerates no more failures than one node fewer.', cps.length), hostsNode,
      false, t('etcd needs a majority (quorum); 4 members tolerate 1 failure, exactly like 3, but have one more machine to fail.'));
    const masters = lbs.filter((h) => h.vrrp?.state === 'MASTER');
    if (lbs.length > 1 && masters.length !== 1) r.report('inventory/vrrp-master', 'error', t('{0} load balancers are VRRP MASTER; exactly one must be.', masters.length), hostsNode,
      false, t('Keepalived elects by priority; two MASTERs with equal priority flap the VIP between them.'));
  }
  endpointChecks(inv, r, lbs);
  const pod = parseCidr(inv.cluster.podSubnet);
  const svc = parseCidr(inv.cluster.serviceSubnet);
  if (pod && svc && cidrsOverlap(pod, svc)) {
    r.report('inventory/subnet-overlap', 'error', t('podSubnet {0} overlaps serviceSubnet {1}.', inv.cluster.podSubnet, inv.cluster.serviceSubnet), r.clusterField('podSubnet') ?? r.root(),
      false, t('Pod and Service addresses must never collide, or kube-proxy rules capture pod traffic.'));
  }
  networkChecks(inv, r);
}

function endpointChecks(inv: Inventory, r: Reporter, lbs: HostSpec[]): void {
  const endpoint = splitEndpoint(inv.cluster.controlPlaneEndpoint);
  const endpointNode = r.clusterField('controlPlaneEndpoint');
  if (!endpoint || !endpointNode) return;
  const node = inv.hosts.find((h) => h.address === endpoint.host || h.name === endpoint.host);
  if (node && node.roles.includes('control-plane')) {
    r.report('inventory/endpoint-is-node', 'error', t('controlPlaneEndpoint points at {0}, a control-plane node, not at the VIP.', node.name), endpointNode,
      false, t('If the endpoint is a node address, the whole cluster stays tied to that node and loses its API when the node goes down.'));
    return;
  }
  if (node) {
    r.report('inventory/endpoint-is-host', 'error', t("controlPlaneEndpoint is {0}'s own address: keepalived.conf would claim it for the balancers (two machines answering ARP for one address), and no second balancer can take it over; use a free address as the VIP.", node.name), endpointNode);
    return;
  }
  if (!lbs.length) {
    r.report('inventory/endpoint-no-balancer', 'warning', t('No host has the loadbalancer role, so nothing in this inventory holds {0}: the plan sets up no HAProxy or Keepalived. Add a loadbalancer host, or serve the endpoint from outside.', endpoint.host), endpointNode);
    return;
  }
  if (canonicalIPv4(endpoint.host)) {
    r.report('inventory/endpoint-name', 'error', t('With load balancers, controlPlaneEndpoint must be the VIP as an IPv4 address, not {0}.', JSON.stringify(endpoint.host)), endpointNode);
    return;
  }
  const shared = parseCidr(`${endpoint.host}/${MIN_VIP_PREFIX}`)!;
  const outside = lbs.filter((h) => isIPv4(h.address) && !cidrContains(shared, h.address));
  if (outside.length) {
    r.report('inventory/vip-subnet', 'error', t("The VIP {0} is not in the subnet of {1}: Keepalived can only hold a VIP of the balancers' own network.", endpoint.host, outside.map((h) => `${h.name} (${h.address})`).join(', ')), endpointNode);
  }
}
