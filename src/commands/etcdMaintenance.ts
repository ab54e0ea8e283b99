import * as vscode from 'vscode';
import { etcdDefragWorkflow, etcdNospaceWorkflow, type EtcdWorkflowInput } from '../engine/workflows/etcdWorkflow';
import { editorUi } from '../editor/vscodeUi';
import { log } from '../editor/log';
import { editorPlanRun } from './runPlan';
import { defineCommand, type Given } from './context';

/**
 * Kubeadm: Defragment etcd… and Kubeadm: Recover etcd from NOSPACE… (the etcd Members view's title bar and the
 * palette): the etcd workflows (engine/workflows/etcdWorkflow.ts) over this workspace's SSH sessions and state
 * folder, as the CLI's `etcd defrag` and `etcd alarms --disarm`. The view reads etcd again by itself.
 */
function run(ctx: Given<{ inventory: string }>, workflow: (ui: ReturnType<typeof editorUi>, input: EtcdWorkflowInput) => Promise<unknown>): Promise<void> {
  const { loaded, inv, folder } = ctx;
  const pool = ctx.sessions.open(inv, folder);
  const title = vscode.l10n.t('etcd maintenance of {0}', inv.cluster.name);
  return workflow(editorUi(ctx.reports), {
    deps: { inventory: inv, ssh: pool }, loginUser: (h) => pool.loginUser(h),
    run: { ...editorPlanRun(pool, loaded.uri), onLog: (path) => log.runLog(title, path) },
  }).then(() => undefined).finally(() => pool.close());
}

export const defragEtcd = defineCommand({ trust: vscode.l10n.t('defragment etcd on the control-plane hosts'), inventory: vscode.l10n.t('Defragment etcd'), inventoryCheck: 'usable' }, (ctx) => {
  return (): Promise<void> => run(ctx, etcdDefragWorkflow);
});

export const recoverEtcdNospace = defineCommand({ trust: vscode.l10n.t('recover etcd from its NOSPACE alarm'), inventory: vscode.l10n.t('Recover etcd from NOSPACE'), inventoryCheck: 'usable' }, (ctx) => {
  return (): Promise<void> => run(ctx, etcdNospaceWorkflow);
});
