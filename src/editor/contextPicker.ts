/**
 * The cluster-context picker behind "Kubeadm: Select Cluster Context", the live views' welcome buttons and any
 * command that needs a connection: it always opens (contexts of the merged kubeconfig plus "Browse for a kubeconfig
 * file…", the setting and the bring-up), so there is no dead end and no loop between commands.
 */
import { existsSync } from 'node:fs';
import { homedir } from 'node:os';
import * as vscode from 'vscode';
import { CommandIds } from './commandIds';
import { describeError } from '../core/live/errors';
import { kubeconfigPaths } from '../core/live/kubeconfig';
import { plainWords } from '../core/text/plainWords';
import type { ClusterConnection } from './clusterConnection';
import { contextPickModel, type PickAction } from './contextPickerModel';
import { setting, updateUserSetting } from './settings';

export const KUBECONFIG_SETTING = 'kubeadmWorkbench.kubeconfig';

/** The files the connection would read (the setting, else KUBECONFIG, else ~/.kube/config). */
export function kubeconfigCandidates(): string[] {
  return kubeconfigPaths(setting('kubeconfig'), process.env.KUBECONFIG, homedir());
}

/** False when none of those files exists: the live views then show their "no kubeconfig" welcome. */
export function kubeconfigFound(): boolean {
  return kubeconfigCandidates().some((p) => existsSync(p));
}

/** Opens the picker; resolves true when the connection is up afterwards. */
export async function pickClusterContext(connection: ClusterConnection): Promise<boolean> {
  const action = await showPicker(connection);
  if (!action) return Boolean(connection.connection);
  switch (action.kind) {
    case 'context': {
      const choice = await connection.contexts().catch(() => undefined);
      await connection.selectContext(action.name === choice?.current ? undefined : action.name);
      return Boolean(connection.connection);
    }
    case 'browse':
      return browseForKubeconfig(connection);
    case 'settings':
      await vscode.commands.executeCommand(CommandIds.openKubeconfigSetting);
      return false;
    case 'bringUp':
      await vscode.commands.executeCommand(CommandIds.bringUpCluster);
      return Boolean(connection.connection);
  }
}

async function showPicker(connection: ClusterConnection): Promise<PickAction | undefined> {
  let loaded: Parameters<typeof contextPickModel>[0];
  try {
    loaded = { choice: await connection.contexts() };
  } catch (e) {
    loaded = { error: describeError(e), missing: !kubeconfigFound(), looked: kubeconfigCandidates() };
  }
  const model = contextPickModel(loaded, connection.selectedContext, connection.inventoryEndpoint);
  const items = model.entries.map((e) =>
    e.separator
      ? { label: e.label, kind: vscode.QuickPickItemKind.Separator }
      : { label: e.label, ...(e.description ? { description: e.description } : {}), ...(e.detail ? { detail: e.detail } : {}), ...(e.picked ? { picked: true } : {}), action: e.action },
  );
  const pick = await vscode.window.showQuickPick(items, { title: model.title, placeHolder: model.placeholder, matchOnDescription: true, ignoreFocusOut: true });
  return pick && 'action' in pick ? pick.action : undefined;
}

/**
 * Browse → the file is checked (it must load and have a context) → saved as the user setting, which makes the
 * connection reconnect with it. A file with several contexts opens the picker again to choose one.
 */
export async function browseForKubeconfig(connection: ClusterConnection): Promise<boolean> {
  const home = vscode.Uri.file(homedir());
  const kubeDir = vscode.Uri.joinPath(home, '.kube');
  const picked = await vscode.window.showOpenDialog({ title: vscode.l10n.t('Select a kubeconfig file'), openLabel: vscode.l10n.t('Use this kubeconfig'), canSelectFiles: true, canSelectFolders: false, canSelectMany: false, defaultUri: existsSync(kubeDir.fsPath) ? kubeDir : home });
  const file = picked?.[0];
  if (!file) return false;
  let contexts;
  try {
    contexts = await connection.contexts(file.fsPath);
  } catch (e) {
    void vscode.window.showErrorMessage(vscode.l10n.t('That file cannot be used as a kubeconfig: {0}', plainWords(describeError(e))));
    return false;
  }
  if (!contexts.contexts.length) {
    void vscode.window.showErrorMessage(vscode.l10n.t('{0} has no contexts, so it names no cluster to connect to.', file.fsPath));
    return false;
  }
  // A remembered context of another kubeconfig would not exist in this one.
  if (connection.selectedContext && !contexts.contexts.some((c) => c.name === connection.selectedContext)) await connection.selectContext(undefined);
  await updateUserSetting('kubeconfig', file.fsPath);
  if (contexts.contexts.length > 1 && !contexts.current) return pickClusterContext(connection);
  // The setting change already made the connection start over with the new file; wait for it.
  return Boolean(await connection.ensure());
}
