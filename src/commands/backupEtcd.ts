import * as vscode from 'vscode';
import { homedir } from 'node:os';
import { join } from 'node:path';
import { gitWorkTreeOf } from '../engine/backup';
import { backupWorkflow } from '../engine/workflows/backupWorkflow';
import { editorUi } from '../editor/vscodeUi';
import type { Ui } from '../engine/workflows/ui';
import { defineCommand } from './context';
import { editorPreflight } from './preflightGate';
import { hostsWith } from '../core/inventory/types';
import { setting } from '../editor/settings';

/**
 * Kubeadm: Back Up etcd… — a snapshot from a healthy follower, verified and pulled with its manifest into
 * a folder the user picks (kubeadmWorkbench.backup.folder, else asked; never inside a git work tree),
 * then a report listing every backup in that folder — the backup workflow (engine/workflows/backupWorkflow.ts),
 * as the CLI's `backup`. First the preflight of the control-plane nodes: refused before the folder is asked when
 * none of them answers.
 */
/**
 * The folder etcd snapshots go to: kubeadmWorkbench.backup.folder, else asked; refused (told, undefined) inside a git
 * work tree. Shared with "Upgrade Cluster…", whose first step is a snapshot.
 */
export async function pickBackupFolder(ui: Ui, openLabel: string): Promise<string | undefined> {
  let out: string | undefined = setting('backupFolder');
  if (!out) {
    const picked = await vscode.window.showOpenDialog({
      title: vscode.l10n.t('Folder for etcd backups (outside any git repository: a snapshot holds every Secret)'),
      canSelectFolders: true,
      canSelectFiles: false,
      defaultUri: vscode.Uri.file(join(homedir(), 'kubeadm-workbench-backups')),
      openLabel,
    });
    if (!picked?.[0]) return undefined;
    out = picked[0].fsPath;
  }
  out = out.startsWith('~/') ? join(homedir(), out.slice(2)) : out;
  const repo = await gitWorkTreeOf(out);
  if (repo) {
    void ui.message('error', vscode.l10n.t('{0} is inside the git work tree {1}; choose a folder outside it (a snapshot holds every Secret of the cluster).', out, repo));
    return undefined;
  }
  return out;
}

export const backupEtcd = defineCommand({ trust: vscode.l10n.t('take an etcd snapshot on a control-plane host'), inventory: vscode.l10n.t('Back Up etcd'), inventoryCheck: 'parsed' }, (ctx) => {
  return async (): Promise<void> => {
    const { inv, folder } = ctx;
    const ui = editorUi(ctx.reports);
    const pool = ctx.sessions.open(inv, folder);
    try {
      // One control-plane node that answers is enough for a snapshot; none, and nothing is asked.
      if (!(await editorPreflight(ctx, ui, pool, inv, { operation: vscode.l10n.t('Back Up etcd'), hosts: hostsWith(inv, 'control-plane'), atLeastOne: true })).ok) return;
      const out = await pickBackupFolder(ui, vscode.l10n.t('Back up here'));
      if (!out) return;
      await backupWorkflow(ui, { inventory: inv, ssh: pool, loginUser: (h) => pool.loginUser(h), out });
    } finally {
      await pool.close();
      // The Backups view lists the new one (when it was written to the view's folder).
      await ctx.backups.refreshLocal();
    }
  };
});
