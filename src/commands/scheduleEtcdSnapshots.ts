/**
 * Kubeadm: Schedule etcd Snapshots… (the Backups view's title bar, or the palette): a systemd timer on every
 * control-plane node that snapshots its etcd member and keeps the newest N — installed with RKE2's defaults (every
 * 12 h, keep 5) or another interval and count, or removed. Chosen here; the plan, sudo password, question and run
 * are the schedule workflow's (engine/workflows/scheduleWorkflow.ts), the CLI's `backup schedule` too. Afterwards
 * the Backups view reads each node's timer and snapshots again.
 */
import * as vscode from 'vscode';
import { DEFAULT_SCHEDULE, parseInterval } from '../core/backup/schedule';
import { intervalWords, scheduleWorkflow, type ScheduleAction } from '../engine/workflows/scheduleWorkflow';
import type { Ui } from '../engine/workflows/ui';
import { log } from '../editor/log';
import { editorUi } from '../editor/vscodeUi';
import { editorPlanRun } from './runPlan';
import { defineCommand } from './context';
import { editorPreflight } from './preflightGate';
import { hostsWith } from '../core/inventory/types';

type Choice = 'defaults' | 'custom' | 'remove';

async function chooseAction(ui: Ui): Promise<ScheduleAction | undefined> {
  const d = DEFAULT_SCHEDULE;
  const choice = await ui.pick<Choice>(vscode.l10n.t('Scheduled etcd snapshots on the control-plane nodes'), [
    { value: 'defaults', label: vscode.l10n.t('Install or update: {0}, keep the newest {1}', intervalWords(d.intervalSeconds), d.keep), detail: vscode.l10n.t('A systemd timer per node; the snapshots stay on the node (0600, root only).') },
    { value: 'custom', label: vscode.l10n.t('Install or update with another interval or count…') },
    { value: 'remove', label: vscode.l10n.t('Remove the timers'), detail: vscode.l10n.t('The snapshots already taken stay on the nodes.') },
  ]);
  if (!choice) return undefined;
  if (choice === 'remove') return { kind: 'remove' };
  if (choice === 'defaults') return { kind: 'install', schedule: d };
  const interval = await ui.input(vscode.l10n.t('Interval between snapshots'), vscode.l10n.t('e.g. 12h, 6h, 30m (at least 10 s)'), '12h');
  const seconds = interval === undefined ? undefined : parseInterval(interval);
  if (interval === undefined) return undefined;
  if (seconds === undefined || seconds < 10) {
    await ui.message('error', vscode.l10n.t('"{0}" is not an interval of at least 10 s (e.g. 12h, 30m).', interval));
    return undefined;
  }
  const keep = await ui.input(vscode.l10n.t('Snapshots to keep on each node'), vscode.l10n.t('The newest N stay; older ones are deleted'), String(d.keep));
  if (keep === undefined) return undefined;
  if (!/^\d{1,4}$/.test(keep.trim()) || Number(keep) < 1) {
    await ui.message('error', vscode.l10n.t('"{0}" is not a whole number ≥ 1.', keep));
    return undefined;
  }
  return { kind: 'install', schedule: { intervalSeconds: seconds, keep: Number(keep) } };
}

export const scheduleEtcdSnapshots = defineCommand({ trust: vscode.l10n.t('install the etcd snapshot timers on the control-plane hosts'), inventory: vscode.l10n.t('Schedule etcd Snapshots') }, (ctx) => {
  return async (): Promise<void> => {
    const { inv, folder, loaded } = ctx;
    const ui = editorUi(ctx.reports);
    const pool = ctx.sessions.open(inv, folder);
    let ran = false;
    try {
      if (!(await editorPreflight(ctx, ui, pool, inv, { operation: vscode.l10n.t('Schedule etcd Snapshots'), hosts: hostsWith(inv, 'control-plane') })).ok) return;
      const action = await chooseAction(ui);
      if (!action) return;
      const outcome = await scheduleWorkflow(ui, {
        inventory: inv,
        action,
        run: { ...editorPlanRun(pool, loaded.uri), onLog: (path) => log.runLog('Scheduled etcd snapshots', path) },
      });
      ran = outcome.kind === 'ran';
    } finally {
      await pool.close();
    }
    // What the nodes have now, in the Backups view (read-only, sudo -n).
    if (ran) await ctx.backups.readSchedules(inv, folder).catch((e: unknown) => log.info(`reading the scheduled snapshots: ${String(e)}`));
  };
});
