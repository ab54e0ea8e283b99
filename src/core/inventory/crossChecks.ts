/** Checks across fields and hosts: unique names and addresses, quorum, VRRP, the endpoint and the subnets. */
import { isSeq, type Node } from 'yaml';
import { cidrContains, cidrsOverlap, isIPv4, parseCidr } from '../net';
import { canonicalIPv4 } from './fields';
import { MIN_VIP_PREFIX, networkChecks } from './networkChecks';
import type { Reporter } from './parse';
import { splitEndpoint, type HostSpec, type Inventory } from './types';

export function crossChecks(inv: Inventory, r: Reporter): void {
  const byName = new Map<string, HostSpec>();
  const byAddress = new Map<string, HostSpec>();
  for (const host of inv.hosts) {
    const range = r.hostRange(host.name);
    if (byName.has(host.name)) r.push('inventory/duplicate-name', 'error', `Host name ${host.name} is used twice.`, range, 'Node names must be unique; a second kubeadm join with the same name replaces the first node.');
    byName.set(host.name, host);
    const sameAddress = byAddress.get(host.address);
    if (sameAddress) r.push('inventory/duplicate-address', 'error', `${host.name} and ${sameAddress.name} share address ${host.address}.`, range, 'Two machines with one address break etcd peer URLs and the HAProxy backend.');
    byAddress.set(host.address, host);
  }
  const cps = inv.hosts.filter((h) => h.roles.includes('control-plane'));
  const lbs = inv.hosts.filter((h) => h.roles.includes('loadbalancer'));
  const hostsNode = r.root().get('hosts', true) as Node | undefined;
  if (hostsNode && isSeq(hostsNode)) {
    if (cps.length === 0) r.report('inventory/no-control-plane', 'error', 'No host has the control-plane role.', hostsNode);
    else if (cps.length % 2 === 0) r.report('inventory/even-control-plane', 'warning', `${cps.length} control-plane nodes: an even etcd cluster tolerates no more failures than one node fewer.`, hostsNode,
      false, 'etcd needs a majority (quorum); 4 members tolerate 1 failure, exactly like 3, but have one more machine to fail.');
    const masters = lbs.filter((h) => h.vrrp?.state === 'MASTER');
    if (lbs.length > 1 && masters.length !== 1) r.report('inventory/vrrp-master', 'error', `${masters.length} load balancers are VRRP MASTER; exactly one must be.`, hostsNode,
      false, 'Keepalived elects by priority; two MASTERs with equal priority flap the VIP between them.');
  }
  endpointChecks(inv, r, lbs);
  const pod = parseCidr(inv.cluster.podSubnet);
  const svc = parseCidr(inv.cluster.serviceSubnet);
  if (pod && svc && cidrsOverlap(pod, svc)) {
    r.report('inventory/subnet-overlap', 'error', `podSubnet ${inv.cluster.podSubnet} overlaps serviceSubnet ${inv.cluster.serviceSubnet}.`, r.clusterField('podSubnet') ?? r.root(),
      false, 'Pod and Service addresses must never collide, or kube-proxy rules capture pod traffic.');
  }
  networkChecks(inv, r);
}

function endpointChecks(inv: Inventory, r: Reporter, lbs: HostSpec[]): void {
  const endpoint = splitEndpoint(inv.cluster.controlPlaneEndpoint);
  const endpointNode = r.clusterField('controlPlaneEndpoint');
  if (!endpoint || !endpointNode) return;
  const node = inv.hosts.find((h) => h.address === endpoint.host || h.name === endpoint.host);
  if (node && node.roles.includes('control-plane')) {
    r.report('inventory/endpoint-is-node', 'error', `controlPlaneEndpoint points at ${node.name}, a control-plane node, not at the VIP.`, endpointNode,
      false, 'If the endpoint is a node address, the whole cluster stays tied to that node and loses its API when the node goes down.');
    return;
  }
  if (node) {
    r.report('inventory/endpoint-is-host', 'error', `controlPlaneEndpoint is ${node.name}'s own address: keepalived.conf would claim it for the balancers (two machines answering ARP for one address), and no second balancer can take it over; use a free address as the VIP.`, endpointNode);
    return;
  }
  if (!lbs.length) {
    r.report('inventory/endpoint-no-balancer', 'warning', `No host has the loadbalancer role, so nothing in this inventory holds ${endpoint.host}: the plan sets up no HAProxy or Keepalived. Add a loadbalancer host, or serve the endpoint from outside.`, endpointNode);
    return;
  }
  if (canonicalIPv4(endpoint.host)) {
    r.report('inventory/endpoint-name', 'error', `With load balancers, controlPlaneEndpoint must be the VIP as an IPv4 address, not ${JSON.stringify(endpoint.host)}.`, endpointNode);
    return;
  }
  const shared = parseCidr(`${endpoint.host}/${MIN_VIP_PREFIX}`)!;
  const outside = lbs.filter((h) => isIPv4(h.address) && !cidrContains(shared, h.address));
  if (outside.length) {
    r.report('inventory/vip-subnet', 'error', `The VIP ${endpoint.host} is not in the subnet of ${outside.map((h) => `${h.name} (${h.address})`).join(', ')}: Keepalived can only hold a VIP of the balancers' own network.`, endpointNode);
  }
}
