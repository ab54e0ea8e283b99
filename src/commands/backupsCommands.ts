/**
 * The Backups view's commands: Refresh (the local folder, then each control-plane node's scheduled snapshots over
 * SSH, read-only), Restore from this backup… (the restore workflow: checks, the healthy-quorum refusal with its
 * typed confirmation, the plan run; the control-plane nodes' preflight before the backup is asked) and Open Folder
 * (which offers to create or choose the folder when it is missing).
 */
import * as vscode from 'vscode';
import { existsSync } from 'node:fs';
import { ensureRealFolder } from '../adapters/fs/safeFile';
import { join } from 'node:path';
import { gitWorkTreeOf } from '../engine/backup';
import { updateUserSetting } from '../editor/settings';
import { restoreWorkflow } from '../engine/workflows/restoreWorkflow';
import { editorUi } from '../editor/vscodeUi';
import { log } from '../editor/log';
import type { LiveNode } from '../editor/treeNodes';
import { editorPlanRun } from './runPlan';
import { defineCommand } from './context';
import { editorPreflight } from './preflightGate';
import { hostsWith } from '../core/inventory/types';

export const refreshBackups = defineCommand({ trust: vscode.l10n.t('read the scheduled etcd snapshots on the control-plane hosts'), inventory: vscode.l10n.t('Refresh Backups'), inventoryCheck: 'parsed' }, (ctx) => {
  return async (): Promise<void> => {
    await ctx.backups.refreshLocal();
    await vscode.window.withProgress({ location: { viewId: 'kubeadm.backups' }, title: vscode.l10n.t('Reading the scheduled snapshots…') }, () => ctx.backups.readSchedules(ctx.inv, ctx.folder));
  };
});

/** A backup row (or its folder as text, e.g. from a test); from the palette, the user picks one. */
export const restoreFromBackup = defineCommand({ trust: vscode.l10n.t('restore etcd on the control-plane hosts'), inventory: vscode.l10n.t('Restore etcd'), inventoryCheck: 'usable' }, (ctx) => {
  return async (row?: LiveNode | string): Promise<void> => {
    const ui = editorUi(ctx.reports);
    // What this machine can tell alone first: the backup asked for, or that there is none to restore.
    const backups = await ctx.backups.refreshLocal();
    const wanted = typeof row === 'string' ? row : row?.path;
    // Only a backup of the listed folder: the row's path is ours, a command argument may be anything.
    let backup = wanted === undefined ? undefined : backups.find((b) => b.dir === wanted);
    if (wanted !== undefined && !backup) {
      await ui.message('error', vscode.l10n.t('{0} is not a backup in {1}.', wanted, ctx.backups.folder));
      return;
    }
    if (!backups.length) {
      await ui.message('info', vscode.l10n.t('No etcd backup in {0} (kubeadmWorkbench.backup.folder): Back Up etcd… writes one there.', ctx.backups.folder));
      return;
    }
    const pool = ctx.sessions.open(ctx.inv, ctx.folder);
    try {
      // Every control-plane node takes part in a restore: each must answer before the backup is even asked — unless
      // the backup chosen is another cluster's, which the workflow refuses without asking any host.
      const otherCluster = backup !== undefined && backup.manifest.cluster !== ctx.inv.cluster.name;
      if (!otherCluster && !(await editorPreflight(ctx, ui, pool, ctx.inv, { operation: vscode.l10n.t('Restore etcd'), hosts: hostsWith(ctx.inv, 'control-plane') })).ok) return;
      backup ??= await ui.pick(vscode.l10n.t('Restore etcd from which backup?'), backups.map((b) => ({ label: new Date(b.manifest.takenAt).toLocaleString(), description: `${b.manifest.cluster} · rev ${b.manifest.status?.revision ?? b.manifest.revisionAtSave ?? '?'}`, value: b })));
      if (!backup) return;
      const title = vscode.l10n.t('Restore of etcd of {0}', ctx.inv.cluster.name);
      await restoreWorkflow(ui, {
        deps: { inventory: ctx.inv, ssh: pool },
        loginUser: (h) => pool.loginUser(h),
        snapshot: join(backup.dir, backup.manifest.snapshot.file || 'snapshot.db'),
        run: { ...editorPlanRun(pool, ctx.loaded.uri), onLog: (path) => log.runLog(title, path) },
      });
    } finally {
      await pool.close();
    }
  };
});

const CREATE = vscode.l10n.t('Create It');
const CHOOSE = vscode.l10n.t('Choose Another Folder…');

/**
 * Open Folder: the backup's folder, or the backup folder. When that folder does not exist yet, it says so and offers
 * to create it (0700: the snapshots in it hold every Secret) or to choose another one (saved as the setting).
 */
export const openBackupFolder = defineCommand({}, (ctx) => {
  return async (row?: LiveNode): Promise<void> => {
    const ui = editorUi(ctx.reports);
    let path = row?.path ?? ctx.backups.folder;
    if (!existsSync(path)) {
      const choice = await ui.message('warning', vscode.l10n.t('The backup folder {0} does not exist yet: Back Up etcd… creates it with its first backup.', path), { actions: [CREATE, CHOOSE] });
      if (choice === CREATE) {
        const repo = await gitWorkTreeOf(path);
        if (repo) {
          void ui.message('error', vscode.l10n.t('{0} is inside the git work tree {1}; choose a folder outside it (a snapshot holds every Secret of the cluster).', path, repo));
          return;
        }
        await ensureRealFolder(path, { mode: 0o700, recursive: true });
      } else if (choice === CHOOSE) {
        const picked = await vscode.window.showOpenDialog({ title: vscode.l10n.t('Folder for etcd backups (outside any git repository)'), canSelectFolders: true, canSelectFiles: false, openLabel: vscode.l10n.t('Use for backups') });
        if (!picked?.[0]) return;
        path = picked[0].fsPath;
        await updateUserSetting('backupFolder', path);
        await ctx.backups.refreshLocal();
      } else return;
    }
    try {
      await vscode.commands.executeCommand('revealFileInOS', vscode.Uri.file(path));
    } catch {
      // No file manager where the extension runs (a remote or browser window): the path to copy instead.
      void ui.message('info', vscode.l10n.t('The backups are in {0}', path));
    }
  };
});
