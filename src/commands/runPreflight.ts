/**
 * "Kubeadm: Run Preflight Checks" (kubeadmWorkbench.runPreflight; the Inventory's title bar, the walkthrough, the
 * preflight panel's Run Again, the Run Preflight button of a failure): the checks every operation runs before its
 * first question, on every host of the inventory (and the cluster's, once a kubeconfig exists), shown in the panel
 * whatever the result — a host whose cause was fixed turns green there.
 */
import * as vscode from 'vscode';
import type { PreflightReport } from '../core/preflight/model';
import { kubeconfigFound } from '../editor/contextPicker';
import { editorUi } from '../editor/vscodeUi';
import { PreflightPanel } from '../webviews/preflightPanel';
import { defineCommand } from './context';
import { editorPreflight } from './preflightGate';

/** @commandId kubeadmWorkbench.runPreflight — the walkthrough names this id (package.json contributes.walkthroughs). */
export const runPreflight = defineCommand({ trust: vscode.l10n.t('check SSH access to the hosts'), inventory: vscode.l10n.t('The preflight') }, (ctx) => {
  return async (): Promise<PreflightReport> => {
    const { inv, folder } = ctx;
    const ui = editorUi(ctx.reports);
    PreflightPanel.instance?.setRunning(true);
    const pool = ctx.sessions.open(inv, folder);
    try {
      const outcome = await editorPreflight(ctx, ui, pool, inv, { operation: vscode.l10n.t('Run Preflight Checks'), hosts: inv.hosts.map((h) => h.name), cluster: kubeconfigFound(), standalone: true });
      return outcome.report;
    } finally {
      PreflightPanel.instance?.setRunning(false);
      await pool.close();
    }
  };
});
