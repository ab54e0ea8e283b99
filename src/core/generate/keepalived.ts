/**
 * /etc/keepalived/keepalived.conf for each balancer, from the inventory: the seed's VRRP instance holding the VIP
 * (virtual_router_id 51, MASTER 100 / BACKUP 90, VIP/24 on the inventory interface) and the `killall -0 haproxy`
 * check whose weight is large enough to move the VIP to the best BACKUP. Passes every keepalived rule and
 * `keepalived -t` on a host that has the interface.
 */
import { hostsWithRole, splitEndpoint } from '../inventory/types';
import type { HostSpec, Inventory } from '../inventory/types';
import { cidrContains, parseCidr } from '../net';

export const DEFAULT_VRID = 51;
export const DEFAULT_INTERFACE = 'ens192';
export const AUTH_PASS = 'k8s-vip';

interface Vrrp {
  host: HostSpec;
  state: 'MASTER' | 'BACKUP';
  priority: number;
  iface: string;
}

/** Each balancer's VRRP role: the inventory's when given, else the first is MASTER 100 and the others BACKUP 90, 80... */
export function vrrpRoles(inv: Inventory): Vrrp[] {
  const lbs = hostsWithRole(inv, 'loadbalancer');
  const hasMaster = lbs.some((h) => h.vrrp?.state === 'MASTER');
  return lbs.map((host, i) => ({
    host,
    state: host.vrrp?.state ?? (!hasMaster && i === 0 ? 'MASTER' : 'BACKUP'),
    priority: host.vrrp?.priority ?? Math.max(1, 100 - 10 * i),
    iface: host.vrrp?.interface ?? DEFAULT_INTERFACE,
  }));
}

/** The longest prefix (at most /24) that holds the VIP and every balancer. */
export function vipPrefix(vip: string, balancers: string[]): number {
  for (let bits = 24; bits >= 8; bits--) {
    const cidr = parseCidr(`${vip}/${bits}`);
    if (cidr && balancers.every((a) => cidrContains(cidr, a))) return bits;
  }
  return 24;
}

export function generateKeepalivedConfigs(inv: Inventory): Record<string, string> {
  const ep = splitEndpoint(inv.cluster.controlPlaneEndpoint);
  if (!ep) throw new Error(`controlPlaneEndpoint '${inv.cluster.controlPlaneEndpoint}' is not host:port`);
  const roles = vrrpRoles(inv);
  const prefix = vipPrefix(ep.host, roles.map((r) => r.host.address));
  const vrid = roles.find((r) => r.host.vrrp?.virtualRouterId)?.host.vrrp?.virtualRouterId ?? DEFAULT_VRID;
  const out: Record<string, string> = {};
  // one weight for every balancer, large enough to take a failed MASTER below the best BACKUP
  // (seed: 100 - 20 = 80 < 90); -20 as in the seed when it is larger than needed or there is no BACKUP
  const master = roles.find((x) => x.state === 'MASTER') ?? roles[0];
  const backups = roles.filter((x) => x !== master).map((x) => x.priority);
  const weight = master && backups.length ? -Math.min(253, Math.max(20, master.priority - Math.max(...backups) + 1)) : -20;
  for (const r of roles) {
    out[r.host.name] = [
      `# /etc/keepalived/keepalived.conf on ${r.host.name}: holds the VIP while HAProxy lives.`,
      '# Generated from the inventory by Kubeadm Workbench.',
      'global_defs {',
      `    router_id ${r.host.name}`,
      '    enable_script_security',
      '    script_user root',
      '}',
      '',
      'vrrp_script chk_haproxy {',
      '    script "/usr/bin/killall -0 haproxy"',
      '    interval 2',
      `    weight ${weight}`,
      '}',
      '',
      'vrrp_instance VI_K8S_API {',
      `    state ${r.state}`,
      `    interface ${r.iface}`,
      `    virtual_router_id ${vrid}`,
      `    priority ${r.priority}`,
      '    advert_int 1',
      '    authentication {',
      '        auth_type PASS',
      `        auth_pass ${AUTH_PASS}`,
      '    }',
      '    virtual_ipaddress {',
      `        ${ep.host}/${prefix}`,
      '    }',
      '    track_script {',
      '        chk_haproxy',
      '    }',
      '}',
      '',
    ].join('\n');
  }
  return out;
}
