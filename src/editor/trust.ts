/**
 * Restricted mode: every entry point that connects to a host or runs a command calls `requireTrust` first.
 * In an untrusted workspace it explains why nothing happens, offers to manage workspace trust, and returns false.
 * `isTrusted` is also handed to the SSH pool (`allowConnect`) as a second line of defence.
 */
import * as vscode from 'vscode';
import type { Ui } from '../engine/workflows/ui';

/** Why nothing happens in Restricted Mode, in the display language. */
export function untrustedMessage(): string {
  return vscode.l10n.t('Kubeadm Workbench does not connect to hosts or run commands in an untrusted workspace.');
}

export function isTrusted(): boolean {
  return vscode.workspace.isTrusted;
}

/**
 * @param action what the user asked for, completing "Trust the workspace to …", e.g. "check SSH access to the hosts".
 * @returns true when the workspace is trusted; otherwise shows why and returns false.
 */
export async function requireTrust(ui: Pick<Ui, 'message'>, action: string): Promise<boolean> {
  if (vscode.workspace.isTrusted) return true;
  const manage = vscode.l10n.t('Manage Workspace Trust');
  const choice = await ui.message('warning', `${untrustedMessage()} ${vscode.l10n.t('Trust the workspace to {0}.', action)}`, { actions: [manage] });
  if (choice === manage) await vscode.commands.executeCommand('workbench.trust.manage');
  return false;
}
