/**
 * The Backups view's rows, as plain data (no VS Code): the local backups (newest first: time, cluster, revision, size;
 * sha256 and members in the tooltip) and the scheduled snapshots on each control-plane node (timer, count, the newest
 * snapshot's age; warning colour past two intervals). The view (backupsView.ts) shows them; unit tests call them.
 */
import { DEFAULT_SCHEDULE, ageWords, scheduleProblem } from '../core/backup/schedule';
import { isReadError, type ScheduleReading } from '../core/live/day2';
import { formatBytes } from '../core/live/format';
import { t } from '../core/l10n';
import type { LocalBackup } from '../editor/etcdBackups';
import type { LiveNode } from '../editor/treeNodes';
import { ERR, md, MUTED, notReadRow, OK, WARN } from './rowLook';

function backupNode(b: LocalBackup, now: number): LiveNode {
  const m = b.manifest;
  const revision = m.status?.revision ?? m.revisionAtSave;
  return {
    id: `backup:${b.dir}`,
    label: new Date(m.takenAt).toLocaleString(),
    description: `${m.cluster} · ${t('{0} ago', ageWords(Math.max(0, Math.round((now - Date.parse(m.takenAt)) / 1000))))} · rev ${revision ?? '?'} · ${formatBytes(m.snapshot.size)}`,
    icon: 'archive',
    color: m.snapshot.trailer === 'verified' ? undefined : WARN,
    contextValue: 'etcd-backup',
    path: b.dir,
    tooltip: md([
      t('**etcd backup of {0}** `{1}`', m.cluster, b.dir),
      t('taken {0} from {1} on {2}{3} in {4} ms', m.takenAt, m.member.name, m.host, m.member.wasLeader ? t(' (the leader)') : '', m.durationMs),
      `revision ${revision ?? '?'}${m.status ? ` · ${m.status.totalKey} keys` : ''} · ${m.snapshot.size} bytes · etcd ${m.etcdVersion ?? '?'}`,
      `sha256 \`${m.snapshot.sha256}\` · trailer ${m.snapshot.trailer}`,
      t('members: {0}', m.members.map((x) => x.name).join(', ')),
      ...m.warnings.map((w) => `- ${w}`),
    ]),
  };
}

/** `readAt`: when the schedules were read; the newest snapshot's age then grows with the clock. */
function scheduleNode(s: ScheduleReading, now: number, readAt: number): LiveNode {
  if (isReadError(s)) {
    return notReadRow({ id: `schedule:${s.host}`, label: s.host, contextValue: 'etcd-schedule-not-read', headline: t('**{0}**: the scheduled snapshots were not read, so nothing is judged for this node.', s.host), error: s.error });
  }
  const problem = scheduleProblem(s, DEFAULT_SCHEDULE.intervalSeconds);
  const installed = s.installed ?? (s.timerActive || s.snapshots.length > 0);
  const timer = !installed ? t('no timer') : s.timerActive ? t('every {0}', ageWords(s.intervalSeconds ?? DEFAULT_SCHEDULE.intervalSeconds)) : t('timer off');
  const newest = s.newestAgeSeconds !== undefined ? t(' · newest {0} ago', ageWords(s.newestAgeSeconds + Math.max(0, Math.round((now - readAt) / 1000)))) : '';
  return {
    id: `schedule:${s.host}`,
    label: s.host,
    description: t('{0} · {1} snapshot(s){2}', timer, s.snapshots.length, newest),
    icon: problem ? (problem.severity === 'critical' ? 'error' : 'warning') : installed ? 'history' : 'circle-slash',
    color: problem ? (problem.severity === 'critical' ? ERR : WARN) : installed ? OK : MUTED,
    contextValue: 'etcd-schedule',
    expanded: !!problem,
    ...(problem ? { tooltip: problem.what } : {}),
    children: s.snapshots.map((x) => ({
      id: `snapshot:${s.host}:${x.name}`,
      label: x.name,
      description: t('{0} · {1} ago', formatBytes(x.bytes), ageWords(Math.max(0, Math.round((now - x.takenAt) / 1000)))),
      icon: 'database',
    })),
  };
}

/** The view's tree (exported for tests). */
export function buildBackupsTree(folder: string, local: readonly LocalBackup[], schedules: readonly ScheduleReading[] | undefined, now: number, schedulesReadAt = now): LiveNode[] {
  const localRoot: LiveNode = {
    id: 'backups:local',
    label: t('Local backups'),
    description: `${folder} · ${local.length}`,
    icon: 'folder',
    path: folder,
    contextValue: 'etcd-backup-folder',
    expanded: true,
    children: local.length ? local.map((b) => backupNode(b, now)) : [{ id: 'backups:none', label: t('No backup in this folder yet'), description: t('Back Up etcd… writes one here'), icon: 'info', color: MUTED }],
  };
  const severities = (schedules ?? []).map((s) => (isReadError(s) ? undefined : scheduleProblem(s, DEFAULT_SCHEDULE.intervalSeconds)?.severity));
  const notRead = (schedules ?? []).filter(isReadError).length;
  const worst = severities.includes('critical') ? 'critical' : severities.includes('warning') ? 'warning' : undefined;
  const nodesRoot: LiveNode = {
    id: 'backups:scheduled',
    label: t('Scheduled snapshots on the nodes'),
    description: !schedules ? t('not read: Refresh reads them over SSH') : notRead ? t('{0} of {1} control-plane node(s) read · {2} not read', schedules.length - notRead, schedules.length, notRead) : t('{0} control-plane node(s)', schedules.length),
    icon: 'server-process',
    ...(worst ? { color: worst === 'critical' ? ERR : WARN } : {}),
    expanded: true,
    children: (schedules ?? []).map((s) => scheduleNode(s, now, schedulesReadAt)),
  };
  return [localRoot, nodesRoot];
}
