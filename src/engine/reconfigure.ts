/**
 * The reconfigure of the control plane over SSH: the workspace's kubeadm configuration and the kubeadm-config
 * ConfigMap read (src/engine/drift.ts), what changes judged (src/core/reconfigure/changes.ts), and refused before
 * anything changes when the difference is not a reconfigure, when nothing differs, when another run holds a host or
 * an etcd member is unhealthy; then the plan (src/core/reconfigure/plan.ts) with the renewal's quorum guard and
 * leadership move bound to this cluster, and the drift it overwrites named.
 */
import { join } from 'node:path';
import { readyz } from '../adapters/kube/readyz';
import { generateAuditPolicy, AUDIT_POLICY_PATH } from '../core/generate/auditPolicy';
import { hostsWithRole } from '../core/inventory/types';
import { heldLocks } from './state/hostLocks';
import type { Plan } from '../core/plan/types';
import { reconfiguration, type Reconfiguration } from '../core/reconfigure/changes';
import { buildReconfigurePlan } from '../core/reconfigure/plan';
import { readEtcdOverSsh } from './backup';
import { driftWarnings, readClusterSide, workspaceConfig, type DriftDeps } from './drift';
import { controlPlaneGuard, moveLeaderAway } from './renew';
import { toError } from '../core/errors';
import { t } from '../core/l10n';

export interface ReconfigureDeps extends DriftDeps {
  /** `.kubeadm-workbench` beside the inventory: its locks/ say which hosts another run holds. */
  stateDir: string;
  say?: (line: string) => void;
  /** GET /readyz of a node's API server (anonymous); tests give their own. */
  readyz?: (address: string, port: number) => Promise<boolean>;
}

export interface ReconfigurePreparation {
  change?: Reconfiguration;
  plan?: Plan;
  refusals: string[];
  warnings: string[];
  /** Nothing differs: nothing to do. */
  nothing: boolean;
  /** The file the workspace's configuration came from (undefined: generated from the inventory). */
  source?: string;
}

export async function prepareReconfigure(deps: ReconfigureDeps): Promise<ReconfigurePreparation> {
  const inv = deps.inventory;
  const say = deps.say ?? (() => undefined);
  const [ws, side] = await Promise.all([workspaceConfig(inv, deps.inventoryDir, deps.readFile), readClusterSide(deps)]);
  const source = ws.path;
  if (!side.configMaps.clusterConfiguration) return { refusals: [t('cannot read the kubeadm-config ConfigMap: {0}', side.unread.join('; ') || t('it is empty'))], warnings: [], nothing: false, ...(source ? { source } : {}) };
  const change = reconfiguration(ws, side.configMaps.clusterConfiguration);
  const refusals = [...change.refusals];
  const warnings = [...change.notApplied];
  const nothing = !refusals.length && !change.changes.length && !change.certSans;
  if (nothing) return { change, refusals, warnings, nothing, ...(source ? { source } : {}) };
  const etcd = await readEtcdOverSsh(deps).catch(toError);
  if (etcd instanceof Error) refusals.push(t('cannot read etcd: {0}', etcd.message));
  else for (const m of etcd.members.filter((x) => !x.healthy)) refusals.push(t('etcd member {0} is unhealthy ({1}): every member must be healthy before a control-plane node restarts', m.name, m.problem ?? '?'));
  const hosts = [...hostsWithRole(inv, 'control-plane'), ...hostsWithRole(inv, 'loadbalancer')].map((h) => h.name);
  for (const { host, owner } of await heldLocks(join(deps.stateDir, 'locks'), hosts)) refusals.push(t('{0} is being changed by another run ({1}, pid {2}, since {3}: an upgrade, a renewal, a restore…); wait for it to end', host, owner.runId, owner.pid, owner.since));
  warnings.push(...(await driftWarnings(deps, 'reconfigure')));
  // The workspace's flags name the generated audit policy: it is placed on each node before its API server reads it.
  const auditPolicy = change.changes.some((c) => c.component === 'kube-apiserver' && c.set.get('audit-policy-file') === AUDIT_POLICY_PATH) ? generateAuditPolicy() : undefined;
  const plan = buildReconfigurePlan({
    inventory: inv, change, warnings,
    hooks: {
      guard: controlPlaneGuard({ ...deps, readyz: deps.readyz ?? readyz }, say),
      moveLeader: (host, upcoming, signal) => moveLeaderAway(deps, host, upcoming, say, signal),
    },
    ...(auditPolicy ? { auditPolicy } : {}),
  });
  return { change, plan, refusals, warnings, nothing, ...(source ? { source } : {}) };
}
