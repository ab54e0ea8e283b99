/**
 * etcd Members view: the quorum line, then per member name, ID (hex), leader/learner, raft term,
 * raft index against applied index, DB size / in use / quota and % of it, free pages, alarms, health; children list the peer
 * and client URLs. etcd is read through the API (etcdctl exec'd in an etcd pod) or, when the API is
 * down, over SSH — every 3 s while the view is visible (etcd member status has no watch).
 */
import { ViewIds } from '../editor/commandIds';
import type { ClusterConnection } from '../editor/clusterConnection';
import type { EtcdMember } from '../core/live/etcd';
import { formatAge, formatBytes } from '../core/live/format';
import { describeSpace, memberSpace } from '../core/etcd/space';
import { clockAndAge, memberFacts } from '../core/live/render';
import { ERR, LiveTreeView, md, MUTED, OK, WARN } from './liveTree';
import type { LiveNode } from '../editor/treeNodes';

export class EtcdMembersView extends LiveTreeView {
  constructor(connection: ClusterConnection) {
    // The pods and nodes watches tell the etcd reader which etcd pods are running on Ready nodes.
    super(ViewIds.etcdMembers, connection, ['pods', 'nodes'], true);
  }

  protected build(): LiveNode[] {
    const cluster = this.connection.cluster;
    if (!cluster) return [];
    const etcd = cluster.etcd;
    if (!etcd) {
      return cluster.etcdError ? [{ id: 'etcd:error', label: 'etcd not read', description: cluster.etcdError, icon: 'error', color: ERR, tooltip: cluster.etcdError }] : [];
    }
    const age = Date.now() - etcd.fetchedAt;
    const stale = age > 15_000;
    const quorum: LiveNode = {
      id: 'etcd:quorum',
      label: etcd.quorumLine,
      description: `via ${etcd.via}${stale ? ` · ${formatAge(age)} old` : ''}`,
      icon: etcd.tolerates < 0 ? 'error' : etcd.tolerates === 0 && etcd.voting > 1 ? 'warning' : 'shield',
      color: etcd.tolerates < 0 ? ERR : etcd.tolerates === 0 && etcd.voting > 1 ? WARN : OK,
      tooltip: md([
        `**${etcd.quorumLine}**`,
        `Raft needs a majority (${etcd.quorum} of ${etcd.voting} voting members) to elect a leader and commit writes; learners do not vote.`,
        etcd.problems.length ? etcd.problems.map((p) => `- ${p}`).join('\n') : 'No problems.',
        cluster.etcdError ? `Last read failed: ${cluster.etcdError}` : `Read via ${etcd.via}`,
        etcd.clusterId ? `cluster ID \`${etcd.clusterId}\`` : '',
      ]),
      contextValue: 'etcd-quorum',
    };
    // Ages against the clock, not the read: the view's 2-second tick moves "since … (12s ago)" between reads too.
    return [quorum, ...etcd.members.map((m) => memberItem(m, Date.now()))];
  }
}

function memberItem(m: EtcdMember, now: number): LiveNode {
  const lag = m.raftIndex !== undefined && m.raftAppliedIndex !== undefined ? m.raftIndex - m.raftAppliedIndex : undefined;
  // etcdctl's words: ID, version, leader, learner, raft term, index, applied index; an unreachable member by what we know.
  const parts = [m.id, ...memberFacts(m, now)];
  const space = memberSpace(m);
  if (m.reachable) parts.push(`db ${formatBytes(m.dbSize)}${space.percentOfQuota !== undefined ? ` (${Math.round(space.percentOfQuota)}% of quota)` : ''}`);
  if (m.alarms.length) parts.push(`ALARM ${m.alarms.join(',')}`);
  if (!m.healthy) parts.push(m.reachable ? (m.problem ?? 'unhealthy') : (m.problem ?? 'unreachable').replace(/^unreachable: /, ''));
  return {
    id: `etcd:${m.id}`,
    label: m.name,
    description: parts.join(' · '),
    icon: !m.healthy ? 'error' : m.isLeader ? 'star-full' : m.isLearner ? 'mortar-board' : 'database',
    color: !m.healthy || space.level === 'error' ? ERR : m.alarms.length || space.level === 'warning' ? WARN : m.isLeader ? OK : undefined,
    tooltip: md([
      `**${m.name}** \`${m.id}\`${m.host && m.host !== m.name ? ` (inventory host ${m.host})` : ''}${m.version ? ` · etcd ${m.version}` : ''}`,
      m.reachable
        ? `raft term ${m.raftTerm} · index ${m.raftIndex} · applied ${m.raftAppliedIndex}${lag ? ` (${lag} entries not applied yet)` : ''}`
        : `Unreachable${m.problem ? `: ${m.problem}` : ''}${m.unreachableSince !== undefined ? ` — since ${clockAndAge(m.unreachableSince, now)}` : ''}${m.lastSeen ? `; last seen as ${m.lastSeen.role}` : ''}`,
      m.reachable ? `DB ${describeSpace(space)}; in use ${formatBytes(m.dbSizeInUse)}${(space.freeBytes ?? 0) > 1024 * 1024 ? ` — *Defragment etcd…* gives back about ${formatBytes(space.freeBytes)}` : ''}${space.level !== 'ok' ? ` — **${space.level}**: writes stop at the quota (warning at 80 %, error at 95 %)` : ''}` : '',
      m.alarms.length ? `Alarms: ${m.alarms.join(', ')} (${m.alarms.includes('NOSPACE') ? 'every write is refused: *Recover etcd from NOSPACE…*' : 'writes may be refused until disarmed'})` : '',
      `peer ${m.peerURLs.join(', ') || '—'}`,
      `client ${m.clientURLs.join(', ') || '—'}`,
    ]),
    contextValue: `etcd-member${m.isLeader ? '-leader' : ''}${m.healthy ? '' : '-down'}`,
    children: [
      ...m.peerURLs.map((u) => ({ id: `etcd:${m.id}:peer:${u}`, label: 'peer', description: u, icon: 'plug', color: MUTED })),
      ...m.clientURLs.map((u) => ({ id: `etcd:${m.id}:client:${u}`, label: 'client', description: u, icon: 'link', color: MUTED })),
      ...(m.reachable ? [{ id: `etcd:${m.id}:db`, label: 'database', description: `${describeSpace(space)} · in use ${formatBytes(m.dbSizeInUse)}`, icon: 'database', ...(space.level !== 'ok' ? { color: space.level === 'error' ? ERR : WARN } : {}) }] : []),
    ],
  };
}
