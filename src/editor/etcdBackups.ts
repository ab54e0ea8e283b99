/**
 * What the Backups view shows: the local backups (the folder Back Up etcd… writes to — the setting
 * kubeadmWorkbench.backup.folder, else the folder it suggests — listed from their manifests, no SSH) and the
 * scheduled snapshots on the control-plane nodes (read over SSH on Refresh only, read-only). The schedules'
 * problems join the cluster's health model: the newest snapshot older than two intervals degrades it.
 */
import * as vscode from 'vscode';
import { homedir } from 'node:os';
import { join } from 'node:path';
import { DEFAULT_SCHEDULE } from '../core/backup/schedule';
import type { BackupManifest } from '../core/backup/snapshot';
import type { Inventory } from '../core/inventory/types';
import { isReadError, snapshotProblems, type ScheduleReading } from '../core/live/day2';
import type { Problem } from '../core/live/status';
import type { HostSessions } from './hostSessions';
import { log } from './log';
import { setting, affects } from './settings';

export interface LocalBackup {
  dir: string;
  manifest: BackupManifest;
}

/** The backup folder: the setting (with ~/ expanded), else the one Back Up etcd… offers first. */
export function backupFolder(): string {
  const s = setting('backupFolder');
  if (!s) return join(homedir(), 'kubeadm-workbench-backups');
  return s.startsWith('~/') ? join(homedir(), s.slice(2)) : s;
}

export class EtcdBackups implements vscode.Disposable {
  private readonly emitter = new vscode.EventEmitter<void>();
  readonly onDidChange = this.emitter.event;
  folder = backupFolder();
  local: LocalBackup[] = [];
  /** Undefined until read (Refresh); per control-plane node. */
  schedules: ScheduleReading[] | undefined;
  schedulesAt: Date | undefined;
  private readonly subscription: vscode.Disposable;

  constructor(private readonly sessions: HostSessions) {
    this.subscription = vscode.workspace.onDidChangeConfiguration((e) => {
      if (affects(e, 'backupFolder')) void this.refreshLocal();
    });
  }

  /** Lists the backup folder again (manifests only: a snapshot is never opened here). */
  async refreshLocal(): Promise<LocalBackup[]> {
    this.folder = backupFolder();
    // The engine's code loads with the first listing or reading, not with the extension.
    const { readBackupFolder } = await import('../engine/backup.js');
    const read = await readBackupFolder(this.folder);
    this.local = read.backups;
    // A manifest that fails its schema is no backup to offer a restore from: the reason goes to the log.
    for (const u of read.unreadable) log.warn(`Backups: skipped ${u.problem}`);
    this.emitter.fire();
    return this.local;
  }

  /** Reads every control-plane node's snapshot timer and snapshots (sudo -n: never asks a password). */
  async readSchedules(inventory: Inventory, folder: vscode.Uri | undefined, signal?: AbortSignal): Promise<ScheduleReading[]> {
    const [{ readSnapshotSchedules }, { sudoUnlessRoot }] = await Promise.all([import('../engine/day2Status.js'), import('../engine/become.js')]);
    await this.sessions.ready();
    const pool = this.sessions.open(inventory, folder);
    try {
      this.schedules = await readSnapshotSchedules({ inventory, ssh: pool, become: sudoUnlessRoot((h) => pool.loginUser(h)), ...(signal ? { signal } : {}) });
      for (const s of this.schedules) if (isReadError(s)) log.warn(`scheduled etcd snapshots of ${s.host} not read: ${s.detail ?? s.error}`);
      this.schedulesAt = new Date();
      this.emitter.fire();
      return this.schedules;
    } finally {
      await pool.close();
    }
  }

  /** For the health model: the schedules' problems (each node's own interval; 12 h when it does not say). */
  problems(): Problem[] {
    return this.schedules ? snapshotProblems(this.schedules, DEFAULT_SCHEDULE.intervalSeconds) : [];
  }

  dispose(): void {
    this.subscription.dispose();
    this.emitter.dispose();
  }
}
