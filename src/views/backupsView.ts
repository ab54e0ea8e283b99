/**
 * Backups view: the local etcd backups (newest first: time, cluster, revision, size; sha256 and members in the
 * tooltip; "Restore from this backup…" and "Open Folder" on each row) and the scheduled snapshots on each
 * control-plane node (timer, count, the newest snapshot's age; warning colour past two intervals). Local backups
 * are listed from their manifests when the view is first shown or the folder changes; the nodes only on Refresh.
 */
import * as vscode from 'vscode';
import { CommandIds, ViewIds } from '../editor/commandIds';
import { DEFAULT_SCHEDULE, ageWords, scheduleProblem } from '../core/backup/schedule';
import { isReadError, type ScheduleReading } from '../core/live/day2';
import { formatBytes } from '../core/live/format';
import type { EtcdBackups, LocalBackup } from '../editor/etcdBackups';
import type { LiveNode } from '../editor/treeNodes';
import { ERR, md, MUTED, OK, WARN } from './liveTree';
import { StaticTreeView } from './staticTree';

export class BackupsView extends StaticTreeView {
  private tick: NodeJS.Timeout | undefined;
  private shown = '';

  constructor(private readonly backups: EtcdBackups) {
    super(ViewIds.backups);
    this.disposables.push(backups.onDidChange(() => this.show()), this.treeView.onDidChangeVisibility((e) => this.ticking(e.visible)));
    this.show();
    this.ticking(this.treeView.visible);
    // The folder is listed when the view is first shown (and again when its setting changes), not at activation.
    let listed = false;
    const listOnce = (visible: boolean): void => {
      if (!visible || listed) return;
      listed = true;
      void backups.refreshLocal();
    };
    this.disposables.push(this.treeView.onDidChangeVisibility((e) => listOnce(e.visible)));
    listOnce(this.treeView.visible);
  }

  /** While the view is visible the ages ("5 min ago") move without a Refresh: a rebuild every 5 s, fired only when a row's text changed. */
  private ticking(visible: boolean): void {
    clearInterval(this.tick);
    this.tick = visible ? setInterval(() => this.show(), TICK_MS) : undefined;
  }

  private show(): void {
    const roots = buildBackupsTree(this.backups.folder, this.backups.local, this.backups.schedules, Date.now(), this.backups.schedulesAt?.getTime());
    const text = JSON.stringify(roots);
    if (text === this.shown) return;
    this.shown = text;
    this.setRoots(roots);
  }

  override dispose(): void {
    clearInterval(this.tick);
    super.dispose();
  }
}

const TICK_MS = 5_000;

function backupNode(b: LocalBackup, now: number): LiveNode {
  const m = b.manifest;
  const revision = m.status?.revision ?? m.revisionAtSave;
  return {
    id: `backup:${b.dir}`,
    label: new Date(m.takenAt).toLocaleString(),
    description: `${m.cluster} · ${vscode.l10n.t('{0} ago', ageWords(Math.max(0, Math.round((now - Date.parse(m.takenAt)) / 1000))))} · rev ${revision ?? '?'} · ${formatBytes(m.snapshot.size)}`,
    icon: 'archive',
    color: m.snapshot.trailer === 'verified' ? undefined : WARN,
    contextValue: 'etcd-backup',
    path: b.dir,
    tooltip: md([
      vscode.l10n.t('**etcd backup of {0}** `{1}`', m.cluster, b.dir),
      vscode.l10n.t('taken {0} from {1} on {2}{3} in {4} ms', m.takenAt, m.member.name, m.host, m.member.wasLeader ? vscode.l10n.t(' (the leader)') : '', m.durationMs),
      `revision ${revision ?? '?'}${m.status ? ` · ${m.status.totalKey} keys` : ''} · ${m.snapshot.size} bytes · etcd ${m.etcdVersion ?? '?'}`,
      `sha256 \`${m.snapshot.sha256}\` · trailer ${m.snapshot.trailer}`,
      vscode.l10n.t('members: {0}', m.members.map((x) => x.name).join(', ')),
      ...m.warnings.map((w) => `- ${w}`),
    ]),
  };
}

/** `readAt`: when the schedules were read; the newest snapshot's age then grows with the clock. */
function scheduleNode(s: ScheduleReading, now: number, readAt: number): LiveNode {
  if (isReadError(s)) {
    // Not read is not a finding about the schedule: muted, the cause in a few words, the whole error in the log.
    return {
      id: `schedule:${s.host}`,
      label: s.host,
      description: vscode.l10n.t('not read: {0}', s.error),
      icon: 'debug-disconnect',
      color: MUTED,
      contextValue: 'etcd-schedule-not-read',
      tooltip: md([vscode.l10n.t('**{0}**: the scheduled snapshots were not read, so nothing is judged for this node.', s.host), vscode.l10n.t('Cause: {0}', s.error), vscode.l10n.t('Click to show the log with the whole error.')]),
      command: { command: CommandIds.showLog, title: vscode.l10n.t('Show Log') },
    };
  }
  const problem = scheduleProblem(s, DEFAULT_SCHEDULE.intervalSeconds);
  const installed = s.installed ?? (s.timerActive || s.snapshots.length > 0);
  const timer = !installed ? vscode.l10n.t('no timer') : s.timerActive ? vscode.l10n.t('every {0}', ageWords(s.intervalSeconds ?? DEFAULT_SCHEDULE.intervalSeconds)) : vscode.l10n.t('timer off');
  const newest = s.newestAgeSeconds !== undefined ? vscode.l10n.t(' · newest {0} ago', ageWords(s.newestAgeSeconds + Math.max(0, Math.round((now - readAt) / 1000)))) : '';
  return {
    id: `schedule:${s.host}`,
    label: s.host,
    description: vscode.l10n.t('{0} · {1} snapshot(s){2}', timer, s.snapshots.length, newest),
    icon: problem ? (problem.severity === 'critical' ? 'error' : 'warning') : installed ? 'history' : 'circle-slash',
    color: problem ? (problem.severity === 'critical' ? ERR : WARN) : installed ? OK : MUTED,
    contextValue: 'etcd-schedule',
    expanded: !!problem,
    ...(problem ? { tooltip: problem.what } : {}),
    children: s.snapshots.map((x) => ({
      id: `snapshot:${s.host}:${x.name}`,
      label: x.name,
      description: vscode.l10n.t('{0} · {1} ago', formatBytes(x.bytes), ageWords(Math.max(0, Math.round((now - x.takenAt) / 1000)))),
      icon: 'database',
    })),
  };
}

/** The view's tree (exported for tests). */
export function buildBackupsTree(folder: string, local: readonly LocalBackup[], schedules: readonly ScheduleReading[] | undefined, now: number, schedulesReadAt = now): LiveNode[] {
  const localRoot: LiveNode = {
    id: 'backups:local',
    label: vscode.l10n.t('Local backups'),
    description: `${folder} · ${local.length}`,
    icon: 'folder',
    path: folder,
    contextValue: 'etcd-backup-folder',
    expanded: true,
    children: local.length ? local.map((b) => backupNode(b, now)) : [{ id: 'backups:none', label: vscode.l10n.t('No backup in this folder yet'), description: vscode.l10n.t('Back Up etcd… writes one here'), icon: 'info', color: MUTED }],
  };
  const severities = (schedules ?? []).map((s) => (isReadError(s) ? undefined : scheduleProblem(s, DEFAULT_SCHEDULE.intervalSeconds)?.severity));
  const notRead = (schedules ?? []).filter(isReadError).length;
  const worst = severities.includes('critical') ? 'critical' : severities.includes('warning') ? 'warning' : undefined;
  const nodesRoot: LiveNode = {
    id: 'backups:scheduled',
    label: vscode.l10n.t('Scheduled snapshots on the nodes'),
    description: !schedules ? vscode.l10n.t('not read: Refresh reads them over SSH') : notRead ? vscode.l10n.t('{0} of {1} control-plane node(s) read · {2} not read', schedules.length - notRead, schedules.length, notRead) : vscode.l10n.t('{0} control-plane node(s)', schedules.length),
    icon: 'server-process',
    ...(worst ? { color: worst === 'critical' ? ERR : WARN } : {}),
    expanded: true,
    children: (schedules ?? []).map((s) => scheduleNode(s, now, schedulesReadAt)),
  };
  return [localRoot, nodesRoot];
}
