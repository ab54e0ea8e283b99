/**
 * Requirements no file of the workspace meets because no file is for the hosts that need them — the balancers'
 * net.ipv4.ip_nonlocal_bind when every sysctl file is for the Kubernetes nodes, say. They are reported once, on
 * the inventory's line of the first host that lacks them, instead of on a file that is never installed there.
 * Only when the workspace keeps files of that kind at all: without any, the bring-up plan writes its own.
 */
import { ZERO_RANGE, type Finding } from '../findings';
import type { Inventory, InventoryLocations, Role } from '../inventory/types';
import { BALANCER_SYSCTLS, isModulesFile, isSysctlFile, NODE_MODULES, NODE_SYSCTLS, SYSCTL, type SysctlRuleId } from '../sysctl/lint';
import { maxChars } from './textGuard';
import { fileTargets } from './targets';
import type { SourceFile } from './types';
import { t } from '../l10n';

interface Requirement {
  rule: SysctlRuleId;
  roles: Role[];
  what: string;
  isType: (f: SourceFile) => boolean;
  kind: string;
}

const REQUIREMENTS: Requirement[] = [
  { rule: 'sysctl/required', roles: ['control-plane', 'worker'], what: Object.keys(NODE_SYSCTLS).map((k) => `${k} = 1`).join(', '), isType: (f) => isSysctlFile(f.path, f.text), kind: 'sysctl.d' },
  { rule: 'sysctl/nonlocal-bind', roles: ['loadbalancer'], what: Object.entries(BALANCER_SYSCTLS).map(([k, v]) => `${k} = ${v}`).join(', '), isType: (f) => isSysctlFile(f.path, f.text), kind: 'sysctl.d' },
  { rule: 'modules/required', roles: ['control-plane', 'worker'], what: NODE_MODULES.join(' and '), isType: (f) => isModulesFile(f.path), kind: 'modules-load.d' },
];

export function unmetRequirements(inv: Inventory, locations: InventoryLocations | undefined, files: readonly SourceFile[]): Finding[] {
  const out: Finding[] = [];
  for (const req of REQUIREMENTS) {
    const ofType = files.filter((f) => f.text.length <= maxChars('sysctl') && req.isType(f));
    if (!ofType.length) continue;
    const needing = inv.hosts.filter((h) => h.roles.some((r) => req.roles.includes(r)));
    const covered = new Set<Role>();
    for (const f of ofType) for (const r of fileTargets(f.path, f.text, inv).roles) covered.add(r);
    const lacking = needing.filter((h) => !h.roles.some((r) => covered.has(r)));
    if (!lacking.length) continue;
    const range = locations?.hosts.get(lacking[0]!.name) ?? ZERO_RANGE;
    const message = t('No {0} file of the workspace is for {1}, so nothing sets {2} there; add a file with `# kubeadm-workbench: roles={3}` (or under a folder named after the host).', req.kind, lacking.map((h) => h.name).join(', '), req.what, req.roles.join(','));
    out.push(SYSCTL.finding(req.rule, message, range));
  }
  return out;
}
