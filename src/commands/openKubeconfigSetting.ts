/**
 * "Kubeadm: Open Kubeconfig Setting": the Settings editor on kubeadmWorkbench.kubeconfig, in its Workspace tab — in a
 * remote window (code-server) the User tab lists no machine-overridable setting. A command of our own because a
 * welcome-view link that passes arguments to a built-in command is not run for an installed extension.
 */
import * as vscode from 'vscode';
import { defineCommand } from './context';

export const openKubeconfigSetting = defineCommand({}, () => {
  return async (): Promise<void> => {
    await vscode.commands.executeCommand('workbench.action.openWorkspaceSettings', 'kubeadmWorkbench.kubeconfig');
  };
});
