/** "Kubeadm: Select Cluster Context": pick a context of the merged kubeconfig (setting or KUBECONFIG). */
import * as vscode from 'vscode';
import { describeError } from '../core/live/errors';
import type { CommandContext } from './context';

export function selectClusterContext(ctx: CommandContext) {
  return async (): Promise<void> => {
    if (!vscode.workspace.isTrusted) {
      void vscode.window.showWarningMessage('Kubeadm Workbench does not connect to clusters from an untrusted workspace.');
      return;
    }
    let choice;
    try {
      choice = await ctx.connection.contexts();
    } catch (e) {
      const open = 'Open Settings';
      const pick = await vscode.window.showErrorMessage(describeError(e), open);
      if (pick === open) await vscode.commands.executeCommand('workbench.action.openSettings', 'kubeadmWorkbench.kubeconfig');
      return;
    }
    const selected = ctx.connection.selectedContext ?? choice.current;
    const items = choice.contexts.map((c) => ({
      label: c.name,
      description: c.server ?? '',
      detail: `cluster ${c.cluster} · user ${c.user}${c.name === choice.current ? ' · current-context' : ''}`,
      picked: c.name === selected,
      iconPath: new vscode.ThemeIcon(c.name === selected ? 'check' : 'server'),
    }));
    const pick = await vscode.window.showQuickPick(items, { title: `Cluster context (${choice.paths.join(', ')})`, placeHolder: 'The API server of a kubeadm HA cluster is its VIP (controlPlaneEndpoint)', matchOnDescription: true });
    if (!pick) return;
    await ctx.connection.selectContext(pick.label === choice.current ? undefined : pick.label);
  };
}
