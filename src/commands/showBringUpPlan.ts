import { planView } from '../core/plan/view';
import { buildPlan, pickPhases } from '../editor/bringUpPlans';
import { PlanPanel } from '../webviews/planPanel';
import { defineCommand } from './context';
import { errorMessage } from '../core/errors';
import { editorUi } from '../editor/vscodeUi';

/** Shows the exact commands per host that "Bring Up Cluster" would run, without connecting anywhere (phases → hosts → steps). */
export const showBringUpPlan = defineCommand({ inventory: 'The bring-up plan' }, (ctx) => {
  return async (): Promise<void> => {
    const { loaded, inv } = ctx;
    const ui = editorUi(ctx.reports);
    const phases = await pickPhases(ui, 'Show bring-up plan');
    if (!phases) return;
    try {
      const plan = await buildPlan(ui, inv, loaded.uri, phases, () => {});
      // A webview by phase and host with wrapped, foldable commands: the text form had lines of over 1,000 characters.
      PlanPanel.show(ctx.extension.extensionUri, `Bring-up plan: ${inv.cluster.name}`, planView(plan));
    } catch (e) {
      void ui.message('error', `Cannot make the plan: ${errorMessage(e)}`);
    }
  };
});
