/**
 * An etcd backup, written once for the editor's "Back Up etcd…" and the CLI's `backup`: the sudo password when a
 * control-plane host is reached as another user than root, the snapshot with its steps narrated and a cancel, the
 * refusal or failure in one message, and the report (this backup and every one in the folder). The front-ends
 * choose the folder.
 */
import { t } from '../../core/l10n';
import type { BackupManifest } from '../../core/backup/snapshot';
import type { Inventory } from '../../core/inventory/types';
import { describeError } from '../../core/live/errors';
import type { SshTransport } from '../../core/ssh/transport';
import { backupEtcd, BackupRefused, listBackups, type BackupDeps } from '../backup';
import { sudoUnlessRoot } from '../become';
import { askSudoPassword, nonRootHosts } from './become';
import type { Ui } from './ui';
import { isCancel } from '../../core/errors';

export interface BackupWorkflowInput {
  inventory: Inventory;
  ssh: SshTransport;
  loginUser: (host: string) => string;
  /** The folder the backup goes into (outside any git work tree). */
  out: string;
  /** Tests: the engine's backup; the real one runs against etcd hosts in test/unit/backup and on the lab. */
  backup?: typeof backupEtcd;
}

export type BackupOutcome =
  | { kind: 'cancelled' }
  | { kind: 'refused' | 'failed'; message: string }
  | { kind: 'done'; result: Awaited<ReturnType<typeof backupEtcd>> };

export async function backupWorkflow(ui: Ui, input: BackupWorkflowInput): Promise<BackupOutcome> {
  const { inventory: inv, out } = input;
  const controlPlane = inv.hosts.filter((h) => h.roles.includes('control-plane')).map((h) => h.name);
  const sudo = await askSudoPassword(ui, nonRootHosts(controlPlane, input.loginUser));
  if (sudo === 'cancelled') return { kind: 'cancelled' };
  const lines: string[] = [];
  let result;
  try {
    result = await ui.progress({ title: t('Backing up etcd of {0}', inv.cluster.name), cancellable: true, narrate: true }, (progress, signal) => {
      const deps: BackupDeps = { inventory: inv, ssh: input.ssh, become: sudoUnlessRoot(input.loginUser, sudo.password), signal, say: (l) => (lines.push(l), progress(l)) };
      return (input.backup ?? backupEtcd)(deps, out);
    });
  } catch (e) {
    // A cancel is the user's doing: it ends quietly (the front-ends say "cancelled"), not as a failure.
    if (isCancel(e)) return { kind: 'cancelled' };
    const refused = e instanceof BackupRefused;
    const message = refused ? t('etcd backup refused: {0}', describeError(e)) : t('etcd backup failed: {0}', describeError(e));
    await ui.message('error', message);
    return { kind: refused ? 'refused' : 'failed', message };
  }
  await ui.show('etcd-backup.md', backupReport(result, lines, out, await listBackups(out)), 'markdown');
  return { kind: 'done', result };
}

function backupReport(result: { dir: string; durationMs: number; manifest: BackupManifest }, lines: readonly string[], out: string, all: { dir: string; manifest: BackupManifest }[]): string {
  const m = result.manifest;
  return [
    `# ${t('etcd backup of {0}', m.cluster)}`,
    '',
    t('Written to {0} (every file 0600: it holds every Secret of the cluster).', `\`${result.dir}\``),
    '',
    `- ${t('{0} bytes in {1} s from {2} on {3}', m.snapshot.size, (result.durationMs / 1000).toFixed(1), m.member.name, m.host)}${m.status ? t(', revision {0}, {1} keys, hash {2} ({3})', m.status.revision, m.status.totalKey, m.status.hash, m.statusFrom) : ''}`,
    `- sha256 \`${m.snapshot.sha256}\`, ${t("etcd's trailer {0}", m.snapshot.trailer)}`,
    ...m.warnings.map((w) => `- ${t('warning: {0}', w)}`),
    '',
    `## ${t('Steps')}`,
    '',
    ...lines.map((l) => `- ${l}`),
    '',
    `## ${t('Backups in {0}', out)}`,
    '',
    `| ${[t('taken'), t('revision'), t('size'), t('from'), t('folder')].join(' | ')} |`,
    '| --- | --- | --- | --- | --- |',
    ...all.map((b) => `| ${b.manifest.takenAt} | ${b.manifest.status?.revision ?? b.manifest.revisionAtSave ?? '?'} | ${b.manifest.snapshot.size} | ${b.manifest.host} | ${b.dir} |`),
  ].join('\n') + '\n';
}
