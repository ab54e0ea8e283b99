import * as vscode from 'vscode';
import { dirname } from 'node:path';
import { readLocalText } from '../engine/workspaceFiles';
import { reconfigureWorkflow } from '../engine/workflows/reconfigureWorkflow';
import { editorUi } from '../editor/vscodeUi';
import { log } from '../editor/log';
import { editorPlanRun } from './runPlan';
import { defineCommand } from './context';

/**
 * Kubeadm: Reconfigure Control Plane… — the workspace's extraArgs and certSANs (kubeadm-config.yaml beside the
 * inventory, else the generated configuration) applied to the running cluster: the ConfigMap, then one control-plane
 * node at a time out of the balancers with health gates (the reconfigure workflow, engine/workflows/
 * reconfigureWorkflow.ts, as the CLI's `reconfigure`).
 */
export const reconfigureControlPlane = defineCommand({ trust: vscode.l10n.t('reconfigure the control-plane nodes'), inventory: vscode.l10n.t('Reconfigure Control Plane'), inventoryCheck: 'usable' }, (ctx) => {
  return async (): Promise<void> => {
    const { loaded, inv, folder } = ctx;
    const pool = ctx.sessions.open(inv, folder);
    const title = vscode.l10n.t('Reconfigure of {0}', inv.cluster.name);
    try {
      await reconfigureWorkflow(editorUi(ctx.reports), {
        deps: { inventory: inv, inventoryDir: dirname(loaded.uri.fsPath), readFile: readLocalText, ssh: pool }, loginUser: (h) => pool.loginUser(h),
        run: { ...editorPlanRun(pool, loaded.uri), onLog: (path) => log.runLog(title, path) },
      });
    } finally {
      await pool.close();
    }
  };
});
