/**
 * The Backups view's commands: Refresh (the local folder, then each control-plane node's scheduled snapshots over
 * SSH, read-only), Restore from this backup… (the restore workflow: checks, the healthy-quorum refusal with its
 * typed confirmation, the plan run) and Open Folder.
 */
import * as vscode from 'vscode';
import { join } from 'node:path';
import { restoreWorkflow } from '../engine/workflows/restoreWorkflow';
import { editorUi } from '../editor/vscodeUi';
import { log } from '../editor/log';
import type { LiveNode } from '../editor/treeNodes';
import { editorPlanRun } from './runPlan';
import { defineCommand } from './context';

export const refreshBackups = defineCommand({ trust: 'read the scheduled etcd snapshots on the control-plane hosts', inventory: 'Refresh Backups', inventoryCheck: 'parsed' }, (ctx) => {
  return async (): Promise<void> => {
    await ctx.backups.refreshLocal();
    await vscode.window.withProgress({ location: { viewId: 'kubeadm.backups' }, title: 'Reading the scheduled snapshots…' }, () => ctx.backups.readSchedules(ctx.inv, ctx.folder));
  };
});

/** A backup row (or its folder as text, e.g. from a test); from the palette, the user picks one. */
export const restoreFromBackup = defineCommand({ trust: 'restore etcd on the control-plane hosts', inventory: 'Restore etcd', inventoryCheck: 'usable' }, (ctx) => {
  return async (row?: LiveNode | string): Promise<void> => {
    const ui = editorUi(ctx.reports);
    const backups = await ctx.backups.refreshLocal();
    const wanted = typeof row === 'string' ? row : row?.path;
    // Only a backup of the listed folder: the row's path is ours, a command argument may be anything.
    let backup = wanted === undefined ? undefined : backups.find((b) => b.dir === wanted);
    if (wanted !== undefined && !backup) {
      await ui.message('error', `${wanted} is not a backup in ${ctx.backups.folder}.`);
      return;
    }
    if (!backup) {
      if (!backups.length) {
        await ui.message('info', `No etcd backup in ${ctx.backups.folder} (kubeadmWorkbench.backup.folder): Back Up etcd… writes one there.`);
        return;
      }
      backup = await ui.pick('Restore etcd from which backup?', backups.map((b) => ({ label: new Date(b.manifest.takenAt).toLocaleString(), description: `${b.manifest.cluster} · rev ${b.manifest.status?.revision ?? b.manifest.revisionAtSave ?? '?'}`, value: b })));
      if (!backup) return;
    }
    const pool = ctx.sessions.open(ctx.inv, ctx.folder);
    try {
      const title = `Restore of etcd of ${ctx.inv.cluster.name}`;
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

export const openBackupFolder = defineCommand({}, (ctx) => {
  return async (row?: LiveNode): Promise<void> => {
    const path = row?.path ?? ctx.backups.folder;
    try {
      await vscode.commands.executeCommand('revealFileInOS', vscode.Uri.file(path));
    } catch {
      // No file manager where the extension runs (a remote or browser window): the path to copy instead.
      void vscode.window.showInformationMessage(`The backup is in ${path}`);
    }
  };
});
