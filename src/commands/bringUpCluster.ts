import * as vscode from 'vscode';
import { buildPlan, pickPhases } from '../editor/bringUpPlans';
import { approveAndRunPlan } from '../editor/planRun';
import { requireTrust } from '../editor/trust';
import type { CommandContext } from './context';
import { usableInventory } from '../editor/inventoryWorkspace';

/**
 * Runs the bring-up plan over SSH: the phases to include, the plan (the exact commands) beside a
 * modal to approve it, then the run with progress, cancel and resume (src/editor/planRun.ts).
 */
export function bringUpCluster(ctx: CommandContext) {
  return async (): Promise<void> => {
    if (!(await requireTrust('bring up the cluster over SSH'))) return;
    const loaded = await ctx.inventory.get();
    const inv = usableInventory(loaded);
    if (!loaded || !inv) {
      void vscode.window.showErrorMessage('Bring-up needs a valid inventory.yaml (see the Problems panel).');
      return;
    }
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
}
