/**
 * The etcd Members view's rows, as plain data (no VS Code): the quorum line, then per member name, ID (hex),
 * leader/learner, raft term, raft index against applied index, DB size / in use / quota and % of it, free pages,
 * alarms, health; children list the peer and client URLs and the database. The view (etcdMembersView.ts) shows them;
 * unit tests call them.
 */
import type { EtcdMember, EtcdModel } from '../core/live/etcd';
import { formatAge, formatBytes } from '../core/live/format';
import { describeSpace, memberSpace } from '../core/etcd/space';
import { clockAndAge, memberFacts, roleWord } from '../core/live/render';
import { t } from '../core/l10n';
import type { LiveNode } from '../editor/treeNodes';
import { ERR, md, MUTED, OK, WARN } from './rowLook';

/**
 * The view's tree (exported for tests): nothing before the first read, the read's error when there is no model,
 * else the quorum row and one row per member. `now` is the clock, not the read's time: the view's 2-second tick moves
 * "since … (12s ago)" and the read's age between reads too.
 */
export function buildEtcdTree(etcd: EtcdModel | undefined, etcdError: string | undefined, now: number): LiveNode[] {
  if (!etcd) {
    return etcdError ? [{ id: 'etcd:error', label: t('etcd not read'), description: etcdError, icon: 'error', color: ERR, tooltip: etcdError }] : [];
  }
  const age = now - etcd.fetchedAt;
  const stale = age > 15_000;
  const quorum: LiveNode = {
    id: 'etcd:quorum',
    label: etcd.quorumLine,
    description: `${t('via {0}', etcd.via)}${stale ? t(' · {0} old', formatAge(age)) : ''}`,
    icon: etcd.tolerates < 0 ? 'error' : etcd.tolerates === 0 && etcd.voting > 1 ? 'warning' : 'shield',
    color: etcd.tolerates < 0 ? ERR : etcd.tolerates === 0 && etcd.voting > 1 ? WARN : OK,
    tooltip: md([
      `**${etcd.quorumLine}**`,
      t('Raft needs a majority ({0} of {1} voting members) to elect a leader and commit writes; learners do not vote.', etcd.quorum, etcd.voting),
      etcd.problems.length ? etcd.problems.map((p) => `- ${p}`).join('\n') : t('No problems.'),
      etcdError ? t('Last read failed: {0}', etcdError) : t('Read via {0}', etcd.via),
      etcd.clusterId ? t('cluster ID `{0}`', etcd.clusterId) : '',
    ]),
    contextValue: 'etcd-quorum',
  };
  return [quorum, ...etcd.members.map((m) => memberRow(m, now))];
}

function memberRow(m: EtcdMember, now: number): LiveNode {
  const lag = m.raftIndex !== undefined && m.raftAppliedIndex !== undefined ? m.raftIndex - m.raftAppliedIndex : undefined;
  // etcdctl's words: ID, version, leader, learner, raft term, index, applied index; an unreachable member by what we know.
  const parts = [m.id, ...memberFacts(m, now)];
  const space = memberSpace(m);
  if (m.reachable) parts.push(`db ${formatBytes(m.dbSize)}${space.percentOfQuota !== undefined ? t(' ({0}% of quota)', Math.round(space.percentOfQuota)) : ''}`);
  if (m.alarms.length) parts.push(`ALARM ${m.alarms.join(',')}`);
  // an unreachable member: why its endpoint was silent (the row says it is unreachable already)
  if (!m.healthy) parts.push(m.reachable ? (m.problem ?? t('unhealthy')) : m.problemKind === 'unreachable' ? (m.unreachableCause ?? m.problem ?? t('unreachable')) : (m.problem ?? t('unreachable')).replace(/^unreachable: /, ''));
  return {
    id: `etcd:${m.id}`,
    label: m.name,
    description: parts.join(' · '),
    icon: !m.healthy ? 'error' : m.isLeader ? 'star-full' : m.isLearner ? 'mortar-board' : 'database',
    color: !m.healthy || space.level === 'error' ? ERR : m.alarms.length || space.level === 'warning' ? WARN : m.isLeader ? OK : undefined,
    tooltip: md([
      `**${m.name}** \`${m.id}\`${m.host && m.host !== m.name ? t(' (inventory host {0})', m.host) : ''}${m.version ? ` · etcd ${m.version}` : ''}`,
      m.reachable
        ? t('raft term {0} · index {1} · applied {2}{3}', String(m.raftTerm), String(m.raftIndex), String(m.raftAppliedIndex), lag ? t(' ({0} entries not applied yet)', lag) : '')
        : t('Unreachable{0}{1}{2}', m.problem ? `: ${m.problem}` : '', m.unreachableSince !== undefined ? t(' — since {0}', clockAndAge(m.unreachableSince, now)) : '', m.lastSeen ? t('; last seen as {0}', roleWord(m.lastSeen.role)) : ''),
      m.reachable ? t('DB {0}; in use {1}{2}{3}', describeSpace(space), formatBytes(m.dbSizeInUse), (space.freeBytes ?? 0) > 1024 * 1024 ? t(' — *Defragment etcd…* gives back about {0}', formatBytes(space.freeBytes)) : '', space.level !== 'ok' ? t(' — **{0}**: writes stop at the quota (warning at 80 %, error at 95 %)', space.level === 'error' ? t('error') : t('warning')) : '') : '',
      m.alarms.length ? `${t('Alarms: {0}', m.alarms.join(', '))} (${m.alarms.includes('NOSPACE') ? t('every write is refused: *Recover etcd from NOSPACE…*') : t('writes may be refused until disarmed')})` : '',
      `peer ${m.peerURLs.join(', ') || '—'}`,
      `client ${m.clientURLs.join(', ') || '—'}`,
    ]),
    contextValue: `etcd-member${m.isLeader ? '-leader' : ''}${m.healthy ? '' : '-down'}`,
    children: [
      ...m.peerURLs.map((u) => ({ id: `etcd:${m.id}:peer:${u}`, label: 'peer', description: u, icon: 'plug', color: MUTED })),
      ...m.clientURLs.map((u) => ({ id: `etcd:${m.id}:client:${u}`, label: 'client', description: u, icon: 'link', color: MUTED })),
      ...(m.reachable ? [{ id: `etcd:${m.id}:db`, label: t('database'), description: t('{0} · in use {1}', describeSpace(space), formatBytes(m.dbSizeInUse)), icon: 'database', ...(space.level !== 'ok' ? { color: space.level === 'error' ? ERR : WARN } : {}) }] : []),
    ],
  };
}
