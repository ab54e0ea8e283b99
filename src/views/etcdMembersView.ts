/**
 * etcd Members view: the quorum line, then per member name, ID (hex), leader/learner, raft term,
 * raft index against applied index, DB size / in use / quota and % of it, free pages, alarms, health; children list the peer
 * and client URLs. etcd is read through the API (etcdctl exec'd in an etcd pod) or, when the API is
 * down, over SSH — every 3 s while the view is visible (etcd member status has no watch).
 */
import * as vscode from 'vscode';
import { ViewIds } from '../editor/commandIds';
import type { ClusterConnection } from '../editor/clusterConnection';
import type { EtcdMember } from '../core/live/etcd';
import { formatAge, formatBytes } from '../core/live/format';
import { describeSpace, memberSpace } from '../core/etcd/space';
import { clockAndAge, memberFacts } from '../core/live/render';
import { LiveTreeView } from './liveTree';
import { ERR, md, MUTED, OK, WARN } from './rowLook';
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
      return cluster.etcdError ? [{ id: 'etcd:error', label: vscode.l10n.t('etcd not read'), description: cluster.etcdError, icon: 'error', color: ERR, tooltip: cluster.etcdError }] : [];
    }
    const age = Date.now() - etcd.fetchedAt;
    const stale = age > 15_000;
    const quorum: LiveNode = {
      id: 'etcd:quorum',
      label: etcd.quorumLine,
      description: `${vscode.l10n.t('via {0}', etcd.via)}${stale ? vscode.l10n.t(' · {0} old', formatAge(age)) : ''}`,
      icon: etcd.tolerates < 0 ? 'error' : etcd.tolerates === 0 && etcd.voting > 1 ? 'warning' : 'shield',
      color: etcd.tolerates < 0 ? ERR : etcd.tolerates === 0 && etcd.voting > 1 ? WARN : OK,
      tooltip: md([
        `**${etcd.quorumLine}**`,
        vscode.l10n.t('Raft needs a majority ({0} of {1} voting members) to elect a leader and commit writes; learners do not vote.', etcd.quorum, etcd.voting),
        etcd.problems.length ? etcd.problems.map((p) => `- ${p}`).join('\n') : vscode.l10n.t('No problems.'),
        cluster.etcdError ? vscode.l10n.t('Last read failed: {0}', cluster.etcdError) : vscode.l10n.t('Read via {0}', etcd.via),
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
  if (m.reachable) parts.push(`db ${formatBytes(m.dbSize)}${space.percentOfQuota !== undefined ? vscode.l10n.t(' ({0}% of quota)', Math.round(space.percentOfQuota)) : ''}`);
  if (m.alarms.length) parts.push(`ALARM ${m.alarms.join(',')}`);
  if (!m.healthy) parts.push(m.reachable ? (m.problem ?? 'unhealthy') : (m.problem ?? 'unreachable').replace(/^unreachable: /, ''));
  return {
    id: `etcd:${m.id}`,
    label: m.name,
    description: parts.join(' · '),
    icon: !m.healthy ? 'error' : m.isLeader ? 'star-full' : m.isLearner ? 'mortar-board' : 'database',
    color: !m.healthy || space.level === 'error' ? ERR : m.alarms.length || space.level === 'warning' ? WARN : m.isLeader ? OK : undefined,
    tooltip: md([
      `**${m.name}** \`${m.id}\`${m.host && m.host !== m.name ? vscode.l10n.t(' (inventory host {0})', m.host) : ''}${m.version ? ` · etcd ${m.version}` : ''}`,
      m.reachable
        ? vscode.l10n.t('raft term {0} · index {1} · applied {2}{3}', String(m.raftTerm), String(m.raftIndex), String(m.raftAppliedIndex), lag ? vscode.l10n.t(' ({0} entries not applied yet)', lag) : '')
        : vscode.l10n.t('Unreachable{0}{1}{2}', m.problem ? `: ${m.problem}` : '', m.unreachableSince !== undefined ? ` — since ${clockAndAge(m.unreachableSince, now)}` : '', m.lastSeen ? vscode.l10n.t('; last seen as {0}', m.lastSeen.role) : ''),
      m.reachable ? vscode.l10n.t('DB {0}; in use {1}{2}{3}', describeSpace(space), formatBytes(m.dbSizeInUse), (space.freeBytes ?? 0) > 1024 * 1024 ? vscode.l10n.t(' — *Defragment etcd…* gives back about {0}', formatBytes(space.freeBytes)) : '', space.level !== 'ok' ? vscode.l10n.t(' — **{0}**: writes stop at the quota (warning at 80 %, error at 95 %)', space.level) : '') : '',
      m.alarms.length ? `${vscode.l10n.t('Alarms: {0}', m.alarms.join(', '))} (${m.alarms.includes('NOSPACE') ? vscode.l10n.t('every write is refused: *Recover etcd from NOSPACE…*') : vscode.l10n.t('writes may be refused until disarmed')})` : '',
      `peer ${m.peerURLs.join(', ') || '—'}`,
      `client ${m.clientURLs.join(', ') || '—'}`,
    ]),
    contextValue: `etcd-member${m.isLeader ? '-leader' : ''}${m.healthy ? '' : '-down'}`,
    children: [
      ...m.peerURLs.map((u) => ({ id: `etcd:${m.id}:peer:${u}`, label: 'peer', description: u, icon: 'plug', color: MUTED })),
      ...m.clientURLs.map((u) => ({ id: `etcd:${m.id}:client:${u}`, label: 'client', description: u, icon: 'link', color: MUTED })),
      ...(m.reachable ? [{ id: `etcd:${m.id}:db`, label: 'database', description: vscode.l10n.t('{0} · in use {1}', describeSpace(space), formatBytes(m.dbSizeInUse)), icon: 'database', ...(space.level !== 'ok' ? { color: space.level === 'error' ? ERR : WARN } : {}) }] : []),
    ],
  };
}
