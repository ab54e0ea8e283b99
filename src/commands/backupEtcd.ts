import * as vscode from 'vscode';
import { homedir } from 'node:os';
import { join } from 'node:path';
import { sudoUnlessRoot } from '../engine/become';
import { backupEtcd as runBackup, gitWorkTreeOf, listBackups } from '../engine/backup';
import { askSudoPassword } from '../editor/sudoPassword';
import { defineCommand } from './context';
import { setting } from '../editor/settings';

/**
 * Kubeadm: Back Up etcd… — a snapshot from a healthy follower, verified and pulled with its manifest into
 * a folder the user picks (kubeadmWorkbench.backup.folder, else asked; never inside a git work tree),
 * then a report listing every backup in that folder.
 */
export const backupEtcd = defineCommand({ trust: 'take an etcd snapshot on a control-plane host', inventory: 'Back Up etcd', inventoryCheck: 'parsed' }, (ctx) => {
  return async (): Promise<void> => {
    const { inv, folder } = ctx;
    let out: string | undefined = setting('backupFolder');
    if (!out) {
      const picked = await vscode.window.showOpenDialog({
        title: 'Folder for etcd backups (outside any git repository: a snapshot holds every Secret)',
        canSelectFolders: true,
        canSelectFiles: false,
        defaultUri: vscode.Uri.file(join(homedir(), 'kubeadm-workbench-backups')),
        openLabel: 'Back up here',
      });
      if (!picked?.[0]) return;
      out = picked[0].fsPath;
    }
    out = out.startsWith('~/') ? join(homedir(), out.slice(2)) : out;
    const repo = gitWorkTreeOf(out);
    if (repo) {
      void vscode.window.showErrorMessage(`${out} is inside the git work tree ${repo}; choose a folder outside it (a snapshot holds every Secret of the cluster).`);
      return;
    }
    const pool = ctx.sessions.open(inv, folder);
    try {
      const nonRoot = new Map(
        inv.hosts
          .filter((h) => h.roles.includes('control-plane'))
          .map((h) => [h.name, pool.loginUser(h.name)] as const)
          .filter(([, u]) => u !== 'root'),
      );
      const sudo = await askSudoPassword(nonRoot);
      if (!sudo) return;
      const lines: string[] = [];
      const result = await vscode.window.withProgress({ location: vscode.ProgressLocation.Notification, title: `Backing up etcd of ${inv.cluster.name}`, cancellable: true }, (progress, token) => {
        const abort = new AbortController();
        token.onCancellationRequested(() => abort.abort());
        return runBackup({ inventory: inv, ssh: pool, become: sudoUnlessRoot((h) => pool.loginUser(h), sudo.password), signal: abort.signal, say: (l) => (lines.push(l), progress.report({ message: l })) }, out!);
      });
      const all = await listBackups(out);
      const m = result.manifest;
      const report = [
        `# etcd backup of ${m.cluster}`,
        '',
        `Written to \`${result.dir}\` (every file 0600: it holds every Secret of the cluster).`,
        '',
        `- ${m.snapshot.size} bytes in ${(result.durationMs / 1000).toFixed(1)} s from ${m.member.name} on ${m.host}${m.status ? `, revision ${m.status.revision}, ${m.status.totalKey} keys, hash ${m.status.hash} (${m.statusFrom})` : ''}`,
        `- sha256 \`${m.snapshot.sha256}\`, etcd's trailer ${m.snapshot.trailer}`,
        ...m.warnings.map((w) => `- warning: ${w}`),
        '',
        '## Steps',
        '',
        ...lines.map((l) => `- ${l}`),
        '',
        `## Backups in ${out}`,
        '',
        '| taken | revision | size | from | folder |',
        '| --- | --- | --- | --- | --- |',
        ...all.map((b) => `| ${b.manifest.takenAt} | ${b.manifest.status?.revision ?? b.manifest.revisionAtSave ?? '?'} | ${b.manifest.snapshot.size} | ${b.manifest.host} | ${b.dir} |`),
      ];
      await ctx.reports.show('etcd-backup.md', report.join('\n') + '\n', 'markdown');
    } finally {
      await pool.close();
    }
  };
});
