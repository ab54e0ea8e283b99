import * as vscode from 'vscode';
import { buildPlan, pickPhases } from '../editor/bringUpPlans';
import { approveAndRunPlan } from '../editor/planRun';
import { defineCommand } from './context';

/**
 * Runs the bring-up plan over SSH: the phases to include, the plan (the exact commands) beside a
 * modal to approve it, then the run with progress, cancel and resume (src/editor/planRun.ts).
 */
export const bringUpCluster = defineCommand({ trust: 'bring up the cluster over SSH', inventory: 'Bring-up' }, (ctx) => {
  return async (): Promise<void> => {
    const { loaded, inv } = ctx;
    const phases = await pickPhases('Bring up the cluster');
    if (!phases) return;
    let savedContext: string | undefined;
    let plan;
    try {
      plan = await buildPlan(inv, loaded.uri, phases, (context, path) => (savedContext = `${context} in ${path}`));
    } catch (e) {
      void vscode.window.showErrorMessage(`Cannot make the plan: ${(e as Error).message}`);
      return;
    }
    await approveAndRunPlan(
      ctx,
      { inv, inventoryUri: loaded.uri, plan, command: 'up', title: `Bring-up of ${inv.cluster.name}`, planDocument: 'bring-up-plan.txt' },
      (took) => `${inv.cluster.name} is up (${took}).${savedContext ? ` Admin context ${savedContext}.` : ''}`,
    );
  };
});
