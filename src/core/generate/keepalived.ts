/**
 * /etc/keepalived/keepalived.conf for each balancer, from the inventory: the seed's VRRP instance holding the VIP
 * (virtual_router_id 51, MASTER 100 / BACKUP 90, VIP/24 on the inventory interface) and the `killall -0 haproxy`
 * check whose weight is large enough to move the VIP to the best BACKUP. Passes every keepalived rule and
 * `keepalived -t` on a host that has the interface.
 */
import { hostsWithRole, splitEndpoint } from '../inventory/types';
import type { HostSpec, Inventory } from '../inventory/types';
import { createHash } from 'node:crypto';
import { assertValidInventory } from '../inventory/validate';
import { vipPrefix } from '../inventory/networkChecks';
import { configWord } from './configWords';

export interface KeepalivedGenerateOptions {
  /**
   * The VRRP password of this cluster (PASS authentication uses 8 characters). The CLI and the editor pass
   * one kept beside the inventory (see src/engine/vrrpSecret.ts); without it, one is derived from the
   * cluster's name, VIP and router id — distinct per cluster, stable across runs, never a shared constant.
   */
  authPass?: string;
}

/**
 * What `generate` writes where the VRRP password goes: the password stays in the state folder (0600, never in a file
 * the user may commit), and the plan uploads keepalived.conf with it filled in. One plain word of 8 characters, so the
 * file still passes every keepalived rule (the two balancers' files agree).
 */
export const VRRP_PASS_PLACEHOLDER = 'VRRPPASS';

/** A per-cluster VRRP password when no stored one is given: 8 characters of a hash of what identifies the cluster. */
export function derivedAuthPass(inv: Inventory, vrid: number): string {
  return createHash('sha256').update(`kubeadm-workbench vrrp\0${inv.cluster.name}\0${inv.cluster.controlPlaneEndpoint}\0${vrid}`).digest('base64url').slice(0, 8);
}

export const DEFAULT_VRID = 51;
export const DEFAULT_INTERFACE = 'ens192';

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

export { vipPrefix };

export function generateKeepalivedConfigs(inv: Inventory, options: KeepalivedGenerateOptions = {}): Record<string, string> {
  assertValidInventory(inv);
  const ep = splitEndpoint(inv.cluster.controlPlaneEndpoint);
  if (!ep) throw new Error(`controlPlaneEndpoint '${inv.cluster.controlPlaneEndpoint}' is not host:port`);
  const roles = vrrpRoles(inv);
  const prefix = vipPrefix(ep.host, roles.map((r) => r.host.address));
  const vrid = roles.find((r) => r.host.vrrp?.virtualRouterId)?.host.vrrp?.virtualRouterId ?? DEFAULT_VRID;
  const authPass = configWord(options.authPass ?? derivedAuthPass(inv, vrid), 'the VRRP password');
  const vip = configWord(`${ep.host}/${prefix}`, 'the VIP');
  const out: Record<string, string> = {};
  // one weight for every balancer, large enough to take a failed MASTER below the best BACKUP
  // (seed: 100 - 20 = 80 < 90); -20 as in the seed when it is larger than needed or there is no BACKUP
  const master = roles.find((x) => x.state === 'MASTER') ?? roles[0];
  const backups = roles.filter((x) => x !== master).map((x) => x.priority);
  const weight = master && backups.length ? -Math.min(253, Math.max(20, master.priority - Math.max(...backups) + 1)) : -20;
  for (const r of roles) {
    const w = (v: string | number, what: string): string => configWord(v, `${what} of ${r.host.name}`);
    out[r.host.name] = [
      `# /etc/keepalived/keepalived.conf on ${r.host.name}: holds the VIP while HAProxy lives.`,
      '# Generated from the inventory by Kubeadm Workbench.',
      'global_defs {',
      `    router_id ${w(r.host.name, 'the router_id')}`,
      '    enable_script_security',
      '    script_user root',
      '}',
      '',
      'vrrp_script chk_haproxy {',
      '    script "/usr/bin/killall -0 haproxy"',
      '    interval 2',
      `    weight ${w(weight, 'the weight')}`,
      '}',
      '',
      'vrrp_instance VI_K8S_API {',
      `    state ${w(r.state, 'the VRRP state')}`,
      `    interface ${w(r.iface, 'the interface')}`,
      `    virtual_router_id ${w(vrid, 'the virtual_router_id')}`,
      `    priority ${w(r.priority, 'the priority')}`,
      '    advert_int 1',
      '    authentication {',
      '        auth_type PASS',
      ...(authPass === VRRP_PASS_PLACEHOLDER ? ['        # A placeholder: the bring-up uploads this file with the cluster\'s VRRP password (kept 0600 in .kubeadm-workbench/vrrp-auth-pass).'] : []),
      `        auth_pass ${authPass}`,
      '    }',
      '    virtual_ipaddress {',
      `        ${vip}`,
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
