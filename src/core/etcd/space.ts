/**
 * etcd's space, per member: the database file against its quota and how much of the file is free pages.
 *
 * etcd refuses writes once a member's database file (`dbSize`, free pages included) would pass its
 * `--quota-backend-bytes` (2 GiB by default): it raises the NOSPACE alarm, and with any member's NOSPACE alarm
 * active every member refuses writes (`mvcc: database space exceeded`) — the API server's included, so Node
 * heartbeats stop and Nodes go NotReady after the node monitor's grace period. The file never shrinks by itself:
 * compaction (the API server compacts every 5 minutes) frees pages inside it (`dbSizeInUse` drops), and only a
 * defragmentation gives them back to the file system. Hence two numbers per member: % of quota (warning ≥ 80 %,
 * error ≥ 95 %) and the free pages a defragmentation would reclaim.
 */
import { inEnglish, t } from '../l10n';
import type { EtcdMember, EtcdModel } from '../live/etcd';
import { formatBytes } from '../live/format';

export const QUOTA_WARNING = 0.8;
export const QUOTA_ERROR = 0.95;

export type SpaceLevel = 'ok' | 'warning' | 'error';

export interface MemberSpace {
  name: string;
  id: string;
  host: string | undefined;
  leader: boolean;
  reachable: boolean;
  dbSize: number | undefined;
  dbSizeInUse: number | undefined;
  quota: number;
  /** dbSize / quota, 0–100+ (undefined when the member did not answer). */
  percentOfQuota: number | undefined;
  /** Free pages in the file: what a defragmentation gives back (dbSize − dbSizeInUse). */
  freeBytes: number | undefined;
  /** freeBytes / dbSize, 0–100. */
  freePercent: number | undefined;
  alarms: string[];
  level: SpaceLevel;
}

export function spaceLevel(percentOfQuota: number | undefined, alarms: readonly string[]): SpaceLevel {
  if (alarms.includes('NOSPACE')) return 'error';
  if (percentOfQuota === undefined) return 'ok';
  if (percentOfQuota >= QUOTA_ERROR * 100) return 'error';
  if (percentOfQuota >= QUOTA_WARNING * 100) return 'warning';
  return 'ok';
}

export function memberSpace(m: EtcdMember): MemberSpace {
  const percentOfQuota = m.dbSize !== undefined && m.quota > 0 ? (100 * m.dbSize) / m.quota : undefined;
  const freeBytes = m.dbSize !== undefined && m.dbSizeInUse !== undefined ? Math.max(0, m.dbSize - m.dbSizeInUse) : undefined;
  return {
    name: m.name, id: m.id, host: m.host, leader: m.isLeader, reachable: m.reachable,
    dbSize: m.dbSize, dbSizeInUse: m.dbSizeInUse, quota: m.quota, percentOfQuota, freeBytes,
    freePercent: freeBytes !== undefined && m.dbSize ? (100 * freeBytes) / m.dbSize : undefined,
    alarms: m.alarms, level: spaceLevel(percentOfQuota, m.alarms),
  };
}

/** `25.1 MB of 2.1 GB (1 %) · 9.8 MB free (39 %)` — one member's space in a line (views, status, plans). */
export function describeSpace(s: MemberSpace): string {
  if (s.dbSize === undefined) return t('space not read');
  const pct = s.percentOfQuota === undefined ? '' : ` (${s.percentOfQuota < 1 ? s.percentOfQuota.toFixed(1) : Math.round(s.percentOfQuota)} %)`;
  const free = s.freeBytes === undefined ? '' : ` · ${s.freePercent !== undefined ? t('{0} free ({1} %)', formatBytes(s.freeBytes), Math.round(s.freePercent)) : t('{0} free', formatBytes(s.freeBytes))}`;
  return `${t('{0} of {1}', formatBytes(s.dbSize), formatBytes(s.quota))}${pct}${free}`;
}

/** What a member's space is as a problem: a kind and a severity to act on, and the words to show. */
export type SpaceProblemKind = 'nospace' | 'nearly-full' | 'filling';

export interface SpaceFinding {
  kind: SpaceProblemKind;
  /** NOSPACE and a file near its quota are critical (writes stop); 80 % of it is a warning. */
  severity: 'critical' | 'warning';
  /** In the display language. */
  what: string;
}

/**
 * The problem a member's space makes for the health model: NOSPACE (writes refused), or the file near its quota.
 * Fragmentation alone is not a problem: it only matters as part of the file's size.
 */
export function spaceFinding(s: MemberSpace): SpaceFinding | undefined {
  if (s.alarms.includes('NOSPACE')) return { kind: 'nospace', severity: 'critical', what: t('etcd member {0}: NOSPACE alarm — every write is refused until it is disarmed (kubeadm-workbench etcd alarms --disarm)', s.name) };
  if (s.level === 'error') return { kind: 'nearly-full', severity: 'critical', what: t('etcd member {0}: DB {1}% of quota, nearly full (writes stop at 100 %); defragment it ({2} free) or raise --quota-backend-bytes', s.name, Math.round(s.percentOfQuota!), formatBytes(s.freeBytes)) };
  if (s.level === 'warning') return { kind: 'filling', severity: 'warning', what: t('etcd member {0}: DB {1}% of quota', s.name, Math.round(s.percentOfQuota!)) };
  return undefined;
}

/**
 * spaceFinding's words in English, as the etcd model's problems carry them while the verdict still classifies those
 * by their words (core/live/status.ts): the consumers move to spaceFinding's kind and severity, then to its words.
 */
export function spaceProblem(s: MemberSpace): string | undefined {
  return inEnglish(() => spaceFinding(s)?.what);
}

/** What a defragmentation of every reachable member is expected to give back: their free pages now. */
export function expectedReclaim(model: EtcdModel): { perMember: { name: string; host: string | undefined; bytes: number }[]; total: number } {
  const perMember = model.members.map(memberSpace).filter((s) => s.freeBytes !== undefined).map((s) => ({ name: s.name, host: s.host, bytes: s.freeBytes! }));
  return { perMember, total: perMember.reduce((n, m) => n + m.bytes, 0) };
}

/** `etcd status` as a table: one member a line, then the quorum line and the problems. */
export function renderEtcdStatus(model: EtcdModel): string {
  const rows = model.members.map((m) => {
    const s = memberSpace(m);
    const role = !m.reachable ? 'DOWN' : m.isLeader ? 'leader' : m.isLearner ? 'learner' : 'follower';
    const pct = s.percentOfQuota === undefined ? '—' : `${s.percentOfQuota.toFixed(1)}%`;
    const free = s.freeBytes === undefined ? '—' : `${formatBytes(s.freeBytes)} (${Math.round(s.freePercent ?? 0)}%)`;
    return [m.name, m.id, role, formatBytes(m.dbSize), formatBytes(m.dbSizeInUse), formatBytes(m.quota), pct, free, m.alarms.join(',') || '—', s.level === 'ok' ? (m.healthy ? 'ok' : 'UNHEALTHY') : s.level.toUpperCase()];
  });
  const head = ['MEMBER', 'ID', 'ROLE', 'DB', 'IN USE', 'QUOTA', '% QUOTA', 'FREE (DEFRAG GIVES BACK)', 'ALARMS', 'STATE'];
  const widths = head.map((h, i) => Math.max(h.length, ...rows.map((r) => r[i]!.length)));
  const line = (r: string[]) => r.map((c, i) => c.padEnd(widths[i]!)).join('  ').trimEnd();
  const out = [line(head), ...rows.map(line), '', t('etcd: {0} (read via {1})', model.quorumLine, model.via)];
  for (const p of model.problems) out.push(`  - ${p}`);
  return `${out.join('\n')}\n`;
}
