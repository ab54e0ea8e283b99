import * as vscode from 'vscode';
import { createDrainCluster } from '../adapters/kube/drain';
import { upgradeHooks } from '../engine/upgrade';
import { upgradeWorkflow } from '../engine/workflows/upgradeWorkflow';
import { sudoUnlessRoot } from '../engine/become';
import { editorUi } from '../editor/vscodeUi';
import { pickBackupFolder } from './backupEtcd';
import { editorPlanRun } from './runPlan';
import { defineCommand } from './context';
import { editorPreflight } from './preflightGate';

/**
 * Kubeadm: Upgrade Cluster… — the target picked among the versions the package source offers, the preflight and the
 * plan shown, then the run with progress, a per-host run terminal and cancel; the pre-upgrade snapshot goes to the
 * backup folder, the drain is ours over the views' connection. The rest is the upgrade workflow's
 * (engine/workflows/upgradeWorkflow.ts), the CLI's `upgrade` too.
 */
export const upgradeCluster = defineCommand({ trust: vscode.l10n.t('upgrade Kubernetes on every node'), inventory: vscode.l10n.t('Upgrade Cluster'), inventoryCheck: 'usable', cluster: vscode.l10n.t('upgrade the cluster') }, (ctx) => {
  return async (): Promise<void> => {
    const { loaded, inv, folder, conn } = ctx;
    const pool = ctx.sessions.open(inv, folder);
    try {
      const ui = editorUi(ctx.reports);
      if (!(await editorPreflight(ctx, ui, pool, inv, { operation: vscode.l10n.t('Upgrade Cluster'), hosts: inv.hosts.map((h) => h.name), cluster: true })).ok) return;
      const backupDir = await pickBackupFolder(ui, vscode.l10n.t('Keep the pre-upgrade snapshot here'));
      if (!backupDir) return;
      const deleteEmptyDirData = await ui.pick(vscode.l10n.t('Upgrade: pods with emptyDir volumes on a node being drained'), [
        { label: vscode.l10n.t('Stop at a pod with emptyDir data'), description: vscode.l10n.t('the drain\'s default'), value: false },
        { label: vscode.l10n.t('Delete emptyDir data'), description: '--delete-emptydir-data', detail: vscode.l10n.t('Pods with emptyDir volumes are evicted during the drains and the data in those volumes is LOST.'), value: true },
      ]);
      if (deleteEmptyDirData === undefined) return;
      let password: string | undefined;
      const become = (h: string) => sudoUnlessRoot((x) => pool.loginUser(x), password)(h);
      const cluster = async () => createDrainCluster(conn.transport, { readEtcd: () => conn.readEtcd(), inventory: inv });
      await upgradeWorkflow(ui, {
        deps: { inventory: inv, ssh: pool }, loginUser: (h) => pool.loginUser(h), drainsThrough: { context: conn.context, server: conn.server },
        hooks: upgradeHooks({ backup: { inventory: inv, ssh: pool, become }, backupDir, cluster, deleteEmptyDirData }),
        run: editorPlanRun(pool, loaded.uri), onPassword: (p) => (password = p),
      });
    } finally {
      await pool.close();
      await ctx.backups.refreshLocal();
    }
  };
});
