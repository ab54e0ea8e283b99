import * as vscode from 'vscode';
import { buildPlan, pickPhases } from '../editor/bringUpPlans';
import { editorUi } from '../editor/vscodeUi';
import { approveAndRunPlan } from './runPlan';
import { defineCommand } from './context';
import { editorPreflight } from './preflightGate';

/**
 * Runs the bring-up plan over SSH: the preflight of every host first (refused with its table, before any question,
 * when one fails), the phases to include, then the plan-run workflow (the plan beside a modal, the sudo password, the
 * run with progress, cancel and resume; engine/workflows/planRunWorkflow.ts), as `up` does — over the pool the
 * preflight opened, so the host keys accepted in its review carry over.
 */
export const bringUpCluster = defineCommand({ trust: vscode.l10n.t('bring up the cluster over SSH'), inventory: vscode.l10n.t('Bring-up') }, (ctx) => {
  return async (): Promise<void> => {
    const { loaded, inv, folder } = ctx;
    const ui = editorUi(ctx.reports);
    const pool = ctx.sessions.open(inv, folder);
    try {
      if (!(await editorPreflight(ctx, ui, pool, inv, { operation: vscode.l10n.t('Bring Up'), hosts: inv.hosts.map((h) => h.name) })).ok) return;
      const phases = await pickPhases(ui, vscode.l10n.t('Bring up the cluster'));
      if (!phases) return;
      let savedContext: string | undefined;
      const plan = await buildPlan(ui, inv, loaded.uri, phases, (context, path) => (savedContext = vscode.l10n.t('{0} in {1}', context, path)));
      await approveAndRunPlan(
        ctx,
        { inv, inventoryUri: loaded.uri, plan, command: 'up', title: vscode.l10n.t('Bring-up of {0}', inv.cluster.name), planDocument: 'bring-up-plan.txt' },
        (took) => vscode.l10n.t('{0} is up ({1}).{2}', inv.cluster.name, took, savedContext ? vscode.l10n.t(' Admin context {0}.', savedContext) : ''),
        pool,
      );
    } finally {
      await pool.close();
    }
  };
});
