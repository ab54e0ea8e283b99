import * as vscode from 'vscode';
import { renderPlan } from '../core/plan/types';
import { buildPlan, pickPhases } from '../editor/bringUpPlans';
import type { CommandContext } from './context';
import { usableInventory } from '../editor/inventoryWorkspace';

/** Shows the exact commands per host that "Bring Up Cluster" would run, without connecting anywhere. */
export function showBringUpPlan(ctx: CommandContext) {
  return async (): Promise<void> => {
    const loaded = await ctx.inventory.get();
    const inv = usableInventory(loaded);
    if (!loaded || !inv) {
      void vscode.window.showErrorMessage('The plan is made from inventory.yaml; fix its errors first (see the Problems panel).');
      return;
    }
    const phases = await pickPhases('Show bring-up plan');
    if (!phases) return;
    try {
      const plan = await buildPlan(inv, loaded.uri, phases, () => {});
      await ctx.reports.show('bring-up-plan.txt', renderPlan(plan));
    } catch (e) {
      void vscode.window.showErrorMessage(`Cannot make the plan: ${(e as Error).message}`);
    }
  };
}
