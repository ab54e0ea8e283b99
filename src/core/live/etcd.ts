/**
 * etcd Members model, from `etcdctl member list -w json` + `etcdctl endpoint status --cluster -w json`
 * (through the API: exec in an etcd pod; or over SSH on a control-plane host) or from etcd's v3 JSON
 * gateway (`/v3/cluster/member/list`, `/v3/maintenance/status`). IDs are uint64: parsed BigInt-safe.
 */
import type { Inventory } from '../inventory/types';
import { hexId, num, parseJsonBigSafe } from './bigjson';
import { memberSpace, spaceProblem } from '../etcd/space';
import { t } from '../l10n';

/** etcd's default --quota-backend-bytes (2 GiB) when the status does not report a quota. */
export const DEFAULT_QUOTA_BYTES = 2 * 1024 * 1024 * 1024;

export interface RawMember {
  ID?: unknown;
  name?: string;
  peerURLs?: string[];
  clientURLs?: string[];
  isLearner?: boolean;
}

export interface RawStatus {
  header?: { cluster_id?: unknown; member_id?: unknown; revision?: unknown; raft_term?: unknown };
  version?: string;
  dbSize?: unknown;
  dbSizeInUse?: unknown;
  dbSizeQuota?: unknown;
  leader?: unknown;
  raftIndex?: unknown;
  raftTerm?: unknown;
  raftAppliedIndex?: unknown;
  errors?: string[];
  isLearner?: boolean;
}

/** What one read of etcd produced, before modelling. */
export interface EtcdRaw {
  members: RawMember[];
  clusterId?: string | undefined;
  /** Per endpoint: its status, or why it could not be read. */
  statuses: { endpoint: string; status?: RawStatus; error?: string }[];
  /** Alarms reported by the cluster (`alarm list`), as `memberHexId:NOSPACE`. */
  alarms?: { memberId: string; alarm: string }[];
}

export interface EtcdMember {
  id: string;
  name: string;
  peerURLs: string[];
  clientURLs: string[];
  isLearner: boolean;
  /** The inventory host of this member (by name, or by peer/client URL address). */
  host: string | undefined;
  reachable: boolean;
  isLeader: boolean;
  raftTerm: number | undefined;
  raftIndex: number | undefined;
  raftAppliedIndex: number | undefined;
  dbSize: number | undefined;
  dbSizeInUse: number | undefined;
  quota: number;
  version: string | undefined;
  alarms: string[];
  /** Why the member is unhealthy, when it is (in the display language; etcd's own errors as etcd wrote them). */
  problem: string | undefined;
  /** Which kind of problem `problem` is: what code matches instead of its words. */
  problemKind?: MemberProblemKind | undefined;
  /** For an unreachable member: why its endpoint did not answer, as the read reported it. */
  unreachableCause?: string | undefined;
  healthy: boolean;
  /** What an earlier read saw of a member that is unreachable now (from the reader's MemberHistory). */
  lastSeen?: { role: MemberRole; version: string | undefined; at: number } | undefined;
  /** When this member was first found unreachable in this run of reads. */
  unreachableSince?: number | undefined;
}

export type MemberRole = 'leader' | 'follower' | 'learner';

/** Why a member is unhealthy: added but never started, its endpoint silent, an alarm, etcd's own errors, no leader. */
export type MemberProblemKind = 'unstarted' | 'unreachable' | 'alarm' | 'errors' | 'no-leader';

/**
 * What one entry of `EtcdModel.problems` is about (the same order): code judges and matches these, never the words,
 * which are in the display language.
 */
export interface EtcdIssue {
  kind: 'member' | 'no-leader' | 'quorum-lost' | 'quorum-at-risk' | 'space' | 'no-members';
  severity: 'critical' | 'warning';
  /** The member's name, for `member` and `space`. */
  member?: string;
}

/**
 * What successive reads learnt about each member, so an unreachable member is labelled by what we know — its role
 * when last seen, since when it is unreachable — and not by a role it may no longer have.
 */
export type MemberHistory = Map<string, { role?: MemberRole; version?: string | undefined; seenAt?: number; unreachableSince?: number }>;

export function memberRole(m: Pick<EtcdMember, 'isLeader' | 'isLearner'>): MemberRole {
  return m.isLeader ? 'leader' : m.isLearner ? 'learner' : 'follower';
}

export interface EtcdModel {
  /** Where the data came from, e.g. `exec etcd-m01` or `ssh m02`. */
  via: string;
  fetchedAt: number;
  clusterId: string | undefined;
  members: EtcdMember[];
  leaderId: string | undefined;
  voting: number;
  healthyVoting: number;
  quorum: number;
  /** Failures the cluster can still survive (negative: quorum already lost). */
  tolerates: number;
  quorumLine: string;
  /** Human-readable degraded states; empty when healthy. */
  problems: string[];
  /** What each problem is about and how bad it is (the same order as `problems`). */
  issues?: EtcdIssue[];
}

// ---- parsing ---------------------------------------------------------------------------------------

/** `etcdctl member list -w json` or the gateway's `/v3/cluster/member/list` answer. */
export function parseMemberList(text: string): { members: RawMember[]; clusterId: string | undefined } {
  const o = parseJsonBigSafe(text) as { header?: { cluster_id?: unknown }; members?: RawMember[] };
  return { members: o.members ?? [], clusterId: hexId(o.header?.cluster_id) };
}

/**
 * `etcdctl endpoint status --cluster -w json`: an array of `{Endpoint, Status}`. etcdctl exits non-zero
 * when an endpoint fails but still prints the others; `stderr` lines `Failed to get the status of
 * endpoint URL (reason)` name the failed ones.
 */
export function parseEndpointStatus(stdout: string, stderr = ''): EtcdRaw['statuses'] {
  const out: EtcdRaw['statuses'] = [];
  const trimmed = stdout.trim();
  if (trimmed) {
    // etcdctl may print one array; some versions print one per line on partial failure.
    const chunks = trimmed.startsWith('[') ? [trimmed] : trimmed.split('\n').filter((l) => l.trim().startsWith('['));
    for (const chunk of chunks) {
      try {
        const arr = parseJsonBigSafe(chunk) as { Endpoint?: string; Status?: RawStatus }[];
        for (const e of arr) out.push({ endpoint: e.Endpoint ?? '?', ...(e.Status ? { status: e.Status } : {}) });
      } catch {
        // ignore an unparsable chunk; stderr explains the failure below
      }
    }
  }
  for (const m of stderr.matchAll(/Failed to get the status of endpoint (\S+) \(([^)]*)\)/g)) {
    if (!out.some((s) => s.endpoint === m[1])) out.push({ endpoint: m[1]!, error: m[2]! });
  }
  return out;
}

/**
 * One member's place in the raft log from its endpoint status — the one reading of it, for the live model and the
 * drill's observer alike (etcd 3.4 has the term only in the header, later versions also at the top level).
 */
export function raftOf(status: RawStatus | undefined): { raftTerm: number | undefined; raftIndex: number | undefined; raftAppliedIndex: number | undefined } {
  return { raftTerm: num(status?.raftTerm ?? status?.header?.raft_term), raftIndex: num(status?.raftIndex), raftAppliedIndex: num(status?.raftAppliedIndex) };
}

/** `etcdctl alarm list -w json`. */
export function parseAlarmList(text: string): { memberId: string; alarm: string }[] {
  if (!text.trim()) return [];
  const o = parseJsonBigSafe(text) as { alarms?: { memberID?: unknown; alarm?: unknown }[] };
  const names: Record<string, string> = { '1': 'NOSPACE', '2': 'CORRUPT' };
  return (o.alarms ?? []).map((a) => ({ memberId: hexId(a.memberID) ?? '?', alarm: names[String(a.alarm)] ?? String(a.alarm) }));
}

// ---- model -----------------------------------------------------------------------------------------

function urlHost(u: string): string | undefined {
  try {
    return new URL(u).hostname.replace(/^\[|\]$/g, '');
  } catch {
    return undefined;
  }
}

export function memberHost(inventory: Inventory | undefined, m: { name?: string; peerURLs?: string[]; clientURLs?: string[] }): string | undefined {
  if (!inventory) return undefined;
  const byName = inventory.hosts.find((h) => h.name === m.name);
  if (byName) return byName.name;
  const addrs = new Set([...(m.peerURLs ?? []), ...(m.clientURLs ?? [])].map(urlHost));
  return inventory.hosts.find((h) => addrs.has(h.address))?.name;
}

export function quorumLine(voting: number, healthy: number): string {
  const quorum = Math.floor(voting / 2) + 1;
  const tolerates = healthy - quorum;
  const parts = [voting === 1 ? t('1 member') : t('{0} members', voting)];
  if (healthy !== voting) parts.push(t('{0} healthy', healthy));
  parts.push(t('quorum {0}', quorum));
  if (tolerates < 0) parts.push(t('QUORUM LOST'));
  else parts.push(`${tolerates === 1 ? t('tolerates 1 failure') : t('tolerates {0} failures', tolerates)}${tolerates === 0 && voting > 1 ? t(' (at risk)') : ''}`);
  return parts.join(' · ');
}

/** etcd's own error words for a state that stops writes or elections. */
const ETCD_SAYS_CRITICAL = /quorum lost|quorum at risk|unreachable|no leader|alarm|no members|nearly full/;

/**
 * How bad a member's problem is: unreachable, no leader or an alarm are critical, and so is an error of etcd's own that
 * says so in etcd's words; a member added but never started, or another error of etcd's, is a warning.
 */
function memberSeverity(m: EtcdMember): EtcdIssue['severity'] {
  if (m.problemKind === 'unreachable' || m.problemKind === 'alarm' || m.problemKind === 'no-leader') return 'critical';
  return m.problemKind === 'errors' && ETCD_SAYS_CRITICAL.test(m.problem ?? '') ? 'critical' : 'warning';
}

export function buildEtcd(raw: EtcdRaw, via: string, fetchedAt: number, inventory?: Inventory, history?: MemberHistory): EtcdModel {
  const byEndpoint = new Map<string, EtcdRaw['statuses'][number]>();
  const byMemberId = new Map<string, RawStatus>();
  for (const s of raw.statuses) {
    byEndpoint.set(s.endpoint, s);
    const id = hexId(s.status?.header?.member_id);
    if (id && s.status) byMemberId.set(id, s.status);
  }
  // The leader as the reachable members see it, by majority (they agree unless an election is running).
  const votes = new Map<string, number>();
  for (const s of byMemberId.values()) {
    const l = hexId(s.leader);
    if (l && l !== '0') votes.set(l, (votes.get(l) ?? 0) + 1);
  }
  const leaderId = [...votes.entries()].sort((a, b) => b[1] - a[1])[0]?.[0];
  const alarmsOf = (id: string) => (raw.alarms ?? []).filter((a) => a.memberId === id).map((a) => a.alarm);
  const members: EtcdMember[] = raw.members
    .map((m): EtcdMember => {
      const id = hexId(m.ID) ?? '?';
      const status = byMemberId.get(id);
      const failed = (m.clientURLs ?? []).map((u) => byEndpoint.get(u)).find((s) => s?.error);
      const errors = status?.errors ?? [];
      const alarms = [...new Set([...alarmsOf(id), ...errors.map((e) => /alarm:(\w+)/.exec(e)?.[1]).filter((x): x is string => !!x)])];
      const unstarted = !m.name && !(m.clientURLs ?? []).length;
      let problem: string | undefined;
      let problemKind: MemberProblemKind | undefined;
      if (unstarted) [problem, problemKind] = [t('not started (added, never joined)'), 'unstarted'];
      else if (!status) [problem, problemKind] = [failed?.error ? t('unreachable: {0}', failed.error) : t('unreachable'), 'unreachable'];
      else if (alarms.length) [problem, problemKind] = [t('alarm {0}', alarms.join(', ')), 'alarm'];
      else if (errors.length) [problem, problemKind] = [errors.join('; '), 'errors'];
      else if (!hexId(status.leader) || hexId(status.leader) === '0') [problem, problemKind] = [t('no leader'), 'no-leader'];
      return {
        id,
        name: m.name || '(unstarted)',
        peerURLs: m.peerURLs ?? [],
        clientURLs: m.clientURLs ?? [],
        isLearner: !!(m.isLearner ?? status?.isLearner),
        host: memberHost(inventory, m),
        reachable: !!status,
        isLeader: !!leaderId && id === leaderId,
        ...raftOf(status),
        dbSize: num(status?.dbSize),
        dbSizeInUse: num(status?.dbSizeInUse),
        quota: num(status?.dbSizeQuota) || DEFAULT_QUOTA_BYTES,
        version: status?.version,
        alarms,
        problem,
        ...(problemKind ? { problemKind } : {}),
        ...(!status && failed?.error ? { unreachableCause: failed.error } : {}),
        healthy: !problem,
      };
    })
    .sort((a, b) => a.name.localeCompare(b.name));
  if (history) recordHistory(members, history, fetchedAt);
  const votingMembers = members.filter((m) => !m.isLearner);
  const voting = votingMembers.length;
  const healthyVoting = votingMembers.filter((m) => m.healthy).length;
  const quorum = Math.floor(voting / 2) + 1;
  const tolerates = healthyVoting - quorum;
  const problems: string[] = [];
  const issues: EtcdIssue[] = [];
  const add = (issue: EtcdIssue, text: string) => {
    issues.push(issue);
    problems.push(text);
  };
  for (const m of members) if (m.problem) add({ kind: 'member', severity: memberSeverity(m), member: m.name }, t('etcd member {0} ({1}): {2}', m.name, m.id, m.problem));
  if (voting && !leaderId) add({ kind: 'no-leader', severity: 'critical' }, t('etcd has no leader'));
  if (voting && tolerates < 0) add({ kind: 'quorum-lost', severity: 'critical' }, t('etcd quorum lost: {0} of {1} voting members healthy, quorum {2}', healthyVoting, voting, quorum));
  else if (voting > 1 && tolerates === 0) add({ kind: 'quorum-at-risk', severity: 'critical' }, t('etcd quorum at risk: one more failure loses quorum ({0}/{1} healthy)', healthyVoting, voting));
  for (const m of members) {
    // A NOSPACE alarm is the member's own problem above; the file near its quota is one of its own (space.ts).
    const space = m.alarms.includes('NOSPACE') ? undefined : memberSpace(m);
    const text = space && spaceProblem(space);
    // nearly full (the error level) stops writes soon; past the warning level it is a warning
    if (text) add({ kind: 'space', severity: space.level === 'error' ? 'critical' : 'warning', member: m.name }, text);
  }
  if (voting === 0) add({ kind: 'no-members', severity: 'critical' }, t('etcd returned no members'));
  return {
    via,
    fetchedAt,
    clusterId: raw.clusterId,
    members,
    leaderId,
    voting,
    healthyVoting,
    quorum,
    tolerates,
    quorumLine: voting ? quorumLine(voting, healthyVoting) : t('no members'),
    problems,
    issues,
  };
}

/** Updates `history` with this read and labels the unreachable members with what earlier reads saw. */
function recordHistory(members: EtcdMember[], history: MemberHistory, at: number): void {
  for (const m of members) {
    const h = history.get(m.id) ?? {};
    if (m.reachable) {
      history.set(m.id, { role: memberRole(m), version: m.version, seenAt: at });
      continue;
    }
    h.unreachableSince ??= at;
    history.set(m.id, h);
    m.unreachableSince = h.unreachableSince;
    if (h.role && h.seenAt !== undefined) m.lastSeen = { role: h.role, version: h.version, at: h.seenAt };
  }
  for (const id of [...history.keys()]) if (!members.some((m) => m.id === id)) history.delete(id);
}
