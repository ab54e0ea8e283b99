/**
 * Every failure message offers its next step as a button that does it: Select Kubeconfig… (the context picker the
 * timeline command opens, editor/contextPicker.ts), Bring Up Cluster…, Open Settings, Run Preflight, the host's line
 * in inventory.yaml — and Show Log on every error, since the log holds what the message leaves out. One message,
 * a short cause and the buttons; never a command's text or a stack.
 */
import * as vscode from 'vscode';
import { CommandIds } from '../editor/commandIds';
import { pickClusterContext } from '../editor/contextPicker';
import { editorUi } from '../editor/vscodeUi';
import type { EditorServices } from '../editor/services';

export type NextStep =
  | { kind: 'selectKubeconfig' }
  | { kind: 'bringUp' }
  | { kind: 'openKubeconfigSetting' }
  | { kind: 'openSettings'; query: string }
  | { kind: 'runPreflight' }
  | { kind: 'revealHost'; host: string }
  | { kind: 'openInventory' }
  | { kind: 'createInventory' }
  | { kind: 'trust' };

export const STEP_LABELS: Record<NextStep['kind'], string> = {
  selectKubeconfig: vscode.l10n.t('Select Kubeconfig…'),
  bringUp: vscode.l10n.t('Bring Up…'),
  openKubeconfigSetting: vscode.l10n.t('Settings'),
  openSettings: vscode.l10n.t('Open Settings'),
  runPreflight: vscode.l10n.t('Run Preflight'),
  revealHost: vscode.l10n.t('Open in inventory.yaml'),
  openInventory: vscode.l10n.t('Open inventory.yaml'),
  createInventory: vscode.l10n.t('Create inventory.yaml'),
  trust: vscode.l10n.t('Manage Workspace Trust'),
};

/** Does the step; true when afterwards the command that failed could go on (a connection now up). */
export async function takeStep(services: Pick<EditorServices, 'connection'>, step: NextStep): Promise<boolean> {
  switch (step.kind) {
    case 'selectKubeconfig':
      return pickClusterContext(services.connection);
    case 'bringUp':
      await vscode.commands.executeCommand(CommandIds.bringUpCluster);
      return false;
    case 'openKubeconfigSetting':
      await vscode.commands.executeCommand(CommandIds.openKubeconfigSetting);
      return false;
    case 'openSettings':
      await vscode.commands.executeCommand('workbench.action.openSettings', step.query);
      return false;
    case 'runPreflight':
      await vscode.commands.executeCommand(CommandIds.runPreflight);
      return false;
    case 'revealHost':
      await vscode.commands.executeCommand(CommandIds.revealHost, step.host);
      return false;
    case 'openInventory':
      await vscode.commands.executeCommand(CommandIds.openInventory);
      return false;
    case 'createInventory':
      await vscode.commands.executeCommand(CommandIds.createInventory);
      return false;
    case 'trust':
      await vscode.commands.executeCommand('workbench.trust.manage');
      return false;
  }
}

/**
 * One message with its next steps as buttons (and Show Log for an error); the chosen step is done. Resolves once the
 * user chose (or closed the message): true when the step left the command able to go on. Not awaited by a handler
 * that has nothing more to do.
 */
export async function offerNextSteps(services: Pick<EditorServices, 'connection' | 'reports'>, level: 'error' | 'warning' | 'info', message: string, steps: readonly NextStep[], logText = message): Promise<boolean> {
  // The Ui logs an error (logText, the whole cause) and adds Show Log, which opens the log (the choice is then none).
  const labels = [...new Set(steps.map((s) => STEP_LABELS[s.kind]))];
  const choice = await editorUi(services.reports).message(level, message, { actions: labels, logText });
  const step = steps.find((s) => STEP_LABELS[s.kind] === choice);
  return step ? takeStep(services, step) : false;
}
