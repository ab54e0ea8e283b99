/**
 * Which hosts a config file is for (the workspace convention, first match wins; the README explains it):
 *  1. a header comment `# kubeadm-workbench: roles=loadbalancer` (roles from the inventory: loadbalancer,
 *     control-plane, worker) or `# kubeadm-workbench: hosts=labs-k8s-balancer,...`;
 *  2. a directory named after an inventory host anywhere in the path (`hosts/labs-k8s-balancer/etc/sysctl.d/...`);
 *  3. a file name with `balancer`, `haproxy`, `keepalived` or `lb` as a word → the load balancers;
 *  4. otherwise the kind's default: every Kubernetes node for sysctl.d, modules-load.d and containerd, the
 *     balancers for haproxy.cfg and keepalived.conf.
 */
import type { Inventory, Role } from '../inventory/types';
import type { LintContext, SourceFile } from './types';
import { t } from '../l10n';

export const NODE_ROLES: readonly Role[] = ['control-plane', 'worker'];

export interface Targets {
  roles: Set<Role>;
  /** How the targets were decided, for messages. */
  by: string;
}

/** Which roles a file applies to (see the convention at the top of this file). */
export function fileTargets(path: string, text: string, inv: Inventory | undefined, defaults: readonly Role[] = NODE_ROLES): Targets {
  const head = text.split('\n', 20);
  for (const line of head) {
    const m = /^\s*[#;]\s*kubeadm-workbench:\s*(.*)$/.exec(line);
    if (!m) continue;
    const roles = /roles\s*=\s*([\w,\s-]+)/.exec(m[1]!)?.[1];
    if (roles) return { roles: new Set(roles.split(/[\s,]+/).filter(Boolean) as Role[]), by: t('its kubeadm-workbench header') };
    const hosts = /hosts\s*=\s*([\w.,\s-]+)/.exec(m[1]!)?.[1];
    if (hosts && inv) {
      const names = hosts.split(/[\s,]+/).filter(Boolean);
      return { roles: new Set(inv.hosts.filter((h) => names.includes(h.name)).flatMap((h) => h.roles)), by: t('its kubeadm-workbench header') };
    }
  }
  const segments = path.replace(/\\/g, '/').split('/');
  const host = inv?.hosts.find((h) => segments.slice(0, -1).includes(h.name));
  if (host) return { roles: new Set(host.roles), by: t('its directory {0}', host.name) };
  const base = segments[segments.length - 1]!;
  if (/(^|[^a-z])(load-?balancer|balancer|haproxy|keepalived|lb)([^a-z]|$)/i.test(base)) return { roles: new Set(['loadbalancer']), by: t('its file name') };
  return { roles: new Set(defaults), by: defaults === NODE_ROLES ? t('default (every Kubernetes node)') : t('default ({0} hosts)', defaults.join(', ')) };
}

export function isForNodes(targets: Targets): boolean {
  return targets.roles.has('control-plane') || targets.roles.has('worker');
}

/** The context for a balancer file (haproxy.cfg, keepalived.conf): without the inventory when the file is for other hosts. */
export function forBalancers(file: SourceFile, context: LintContext): LintContext {
  if (!context.inventory || fileTargets(file.path, file.text, context.inventory, ['loadbalancer']).roles.has('loadbalancer')) return context;
  const { inventory: _inventory, inventoryPath: _path, ...rest } = context;
  return rest;
}
