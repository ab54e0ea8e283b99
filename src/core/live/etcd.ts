/**
 * etcd Members model, from `etcdctl member list -w json` + `etcdctl endpoint status --cluster -w json`
 * (through the API: exec in an etcd pod; or over SSH on a control-plane host) or from etcd's v3 JSON
 * gateway (`/v3/cluster/member/list`, `/v3/maintenance/status`). IDs are uint64: parsed BigInt-safe.
 */
import type { Inventory } from '../inventory/types';
import { hexId, num, parseJsonBigSafe } from './bigjson';
import { memberSpace, spaceProblem } from '../etcd/space';

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
  /** Why the member is unhealthy, when it is. */
  problem: string | undefined;
  healthy: boolean;
  /** What an earlier read saw of a member that is unreachable now (from the reader's MemberHistory). */
  lastSeen?: { role: MemberRole; version: string | undefined; at: number } | undefined;
  /** When this member was first found unreachable in this run of reads. */
  unreachableSince?: number | undefined;
}

export type MemberRole = 'leader' | 'follower' | 'learner';

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
  const plural = (n: number, w: string) => `${n} ${w}${n === 1 ? '' : 's'}`;
  const parts = [plural(voting, 'member')];
  if (healthy !== voting) parts.push(`${healthy} healthy`);
  parts.push(`quorum ${quorum}`);
  if (tolerates < 0) parts.push('QUORUM LOST');
  else parts.push(`tolerates ${plural(tolerates, 'failure')}${tolerates === 0 && voting > 1 ? ' (at risk)' : ''}`);
  return parts.join(' · ');
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
      if (unstarted) problem = 'not started (added, never joined)';
      else if (!status) problem = failed?.error ? `unreachable: ${failed.error}` : 'unreachable';
      else if (alarms.length) problem = `alarm ${alarms.join(', ')}`;
      else if (errors.length) problem = errors.join('; ');
      else if (!hexId(status.leader) || hexId(status.leader) === '0') problem = 'no leader';
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
  for (const m of members) if (m.problem) problems.push(`etcd member ${m.name} (${m.id}): ${m.problem}`);
  if (voting && !leaderId) problems.push('etcd has no leader');
  if (voting && tolerates < 0) problems.push(`etcd quorum lost: ${healthyVoting} of ${voting} voting members healthy, quorum ${quorum}`);
  else if (voting > 1 && tolerates === 0) problems.push(`etcd quorum at risk: one more failure loses quorum (${healthyVoting}/${voting} healthy)`);
  for (const m of members) {
    // A NOSPACE alarm is the member's own problem above; the file near its quota is one of its own (space.ts).
    const space = m.alarms.includes('NOSPACE') ? undefined : spaceProblem(memberSpace(m));
    if (space) problems.push(space);
  }
  if (voting === 0) problems.push('etcd returned no members');
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
    quorumLine: voting ? quorumLine(voting, healthyVoting) : 'no members',
    problems,
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
