import * as vscode from 'vscode';
import { planView } from '../core/plan/view';
import { buildPlan, pickPhases } from '../editor/bringUpPlans';
import { PlanPanel } from '../webviews/planPanel';
import { defineCommand } from './context';
import { editorUi } from '../editor/vscodeUi';

/** Shows the exact commands per host that "Bring Up Cluster" would run, without connecting anywhere (phases → hosts → steps). */
export const showBringUpPlan = defineCommand({ inventory: vscode.l10n.t('The bring-up plan') }, (ctx) => {
  return async (): Promise<void> => {
    const { loaded, inv } = ctx;
    const ui = editorUi(ctx.reports);
    const phases = await pickPhases(ui, vscode.l10n.t('Show bring-up plan'));
    if (!phases) return;
    const plan = await buildPlan(ui, inv, loaded.uri, phases, () => {});
    // A webview by phase and host with wrapped, foldable commands: the text form had lines of over 1,000 characters.
    PlanPanel.show(ctx.extension.extensionUri, vscode.l10n.t('Bring-up plan: {0}', inv.cluster.name), planView(plan));
  };
});
