/**
 * Scheduled etcd snapshots on the control-plane nodes (a systemd timer per node, core/backup/schedule.ts), installed
 * or removed — written once for the editor's "Schedule etcd Snapshots…" and the CLI's `backup schedule`: the plan of
 * every node's units shown, the sudo password, the question, the run narrated, resumable. The front-ends choose
 * what (install with an interval and a count, or remove); the CLI takes it from its flags, the editor asks.
 */
import { t } from '../../core/l10n';
import { createHash } from 'node:crypto';
import { buildScheduleInstallPlan, buildScheduleRemovePlan, type ScheduleOptions } from '../../core/backup/schedule';
import { hostsWithRole, type Inventory } from '../../core/inventory/types';
import { renderPlan, type Plan } from '../../core/plan/types';
import { planRunWorkflow, type PlanRunInput, type PlanRunOutcome } from './planRunWorkflow';
import type { Ui } from './ui';

export type ScheduleAction = { kind: 'install'; schedule: ScheduleOptions } | { kind: 'remove' };

export interface ScheduleWorkflowInput {
  inventory: Inventory;
  action: ScheduleAction;
  run: Omit<PlanRunInput, 'inventory' | 'plan' | 'command' | 'title' | 'planDocument' | 'password' | 'onEvent'>;
  /** Show the plan and stop (CLI --plan). */
  planOnly?: boolean;
}

export type ScheduleOutcome = { kind: 'refused'; message: string } | { kind: 'planned' } | PlanRunOutcome;

/** "every 12 h", "every 30 min", "every 45 s". */
export function intervalWords(seconds: number): string {
  if (seconds % 3600 === 0) return t('every {0} h', seconds / 3600);
  if (seconds % 60 === 0) return t('every {0} min', seconds / 60);
  return t('every {0} s', seconds);
}

/** The plan and the ledger's command name: the same for both front-ends, so a run resumes from either. */
export function schedulePlan(inventory: Inventory, action: ScheduleAction): { plan: Plan; command: string; title: string } {
  const hosts = hostsWithRole(inventory, 'control-plane').map((h) => h.name);
  const remove = action.kind === 'remove';
  const o = action.kind === 'install' ? action.schedule : undefined;
  const fingerprint = createHash('sha256').update(JSON.stringify({ hosts, interval: o?.intervalSeconds, keep: o?.keep, remove })).digest('hex').slice(0, 16);
  const cluster = inventory.cluster.name;
  return o
    ? { plan: buildScheduleInstallPlan(hosts, o, fingerprint), command: 'backup-schedule', title: t('Scheduled etcd snapshots on {0} ({1}, keep {2})', cluster, intervalWords(o.intervalSeconds), o.keep) }
    : { plan: buildScheduleRemovePlan(hosts, fingerprint), command: 'backup-schedule-remove', title: t('Removal of the scheduled etcd snapshots of {0}', cluster) };
}

export async function scheduleWorkflow(ui: Ui, input: ScheduleWorkflowInput): Promise<ScheduleOutcome> {
  const inv = input.inventory;
  if (!hostsWithRole(inv, 'control-plane').length) {
    const message = t('Scheduled etcd snapshots of {0} refused: the inventory has no control-plane host (the timers run next to each etcd member).', inv.cluster.name);
    await ui.message('error', message);
    return { kind: 'refused', message };
  }
  const { plan, command, title } = schedulePlan(inv, input.action);
  const planDocument = `${command}-${inv.cluster.name}-plan.txt`;
  if (input.planOnly) {
    await ui.show(planDocument, renderPlan(plan));
    return { kind: 'planned' };
  }
  return planRunWorkflow(ui, { ...input.run, inventory: inv, plan, command, title, planDocument });
}
