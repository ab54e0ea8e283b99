import * as vscode from 'vscode';
import { planView } from '../core/plan/view';
import { buildPlan, pickPhases } from '../editor/bringUpPlans';
import { PlanPanel } from '../webviews/planPanel';
import { defineCommand } from './context';
import { usableInventory } from '../editor/inventoryWorkspace';
import { errorMessage } from '../core/errors';

/** Shows the exact commands per host that "Bring Up Cluster" would run, without connecting anywhere (phases → hosts → steps). */
export const showBringUpPlan = defineCommand({}, (ctx) => {
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
      // A webview by phase and host with wrapped, foldable commands: the text form had lines of over 1,000 characters.
      PlanPanel.show(ctx.extension.extensionUri, `Bring-up plan: ${inv.cluster.name}`, planView(plan));
    } catch (e) {
      void vscode.window.showErrorMessage(`Cannot make the plan: ${errorMessage(e)}`);
    }
  };
});
