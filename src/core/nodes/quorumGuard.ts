/**
 * The etcd quorum guard for taking a control-plane node out of the cluster for good (remove, or the
 * remove half of a replace). `etcdctl member remove` is a membership change: it commits only while the
 * cluster has a quorum now, and once it has committed the smaller cluster needs a quorum of its own new
 * size from the members that are left. A dead member never comes back by itself, so the arithmetic is
 * done over the members' health as etcd reports it, not over the inventory.
 *
 * Refusals:
 *  - no quorum now (no membership change can commit): the way out is a restore, not a remove;
 *  - the last voting member;
 *  - fewer healthy voting members after the removal than a quorum of the new size;
 *  - another member unhealthy (the removal turns one failure into two) — this one alone may be forced,
 *    with the host's name typed back. Force never overrides a quorum loss.
 * A learner or a host that is not a member does not vote: it is always removable as far as quorum goes
 * (a learner's `member remove` still needs the quorum to commit).
 */
import { t } from '../l10n';

export interface GuardMember {
  /** etcd's member ID (hex). */
  id: string;
  /** The inventory host the member belongs to (by name or peer URL), when known. */
  host: string | undefined;
  learner: boolean;
  /** Added but never started (kubeadm adds a member before its etcd first runs). */
  started: boolean;
  healthy: boolean;
}

export type Operation = 'remove' | 'replace';

export interface GuardRequest {
  operation: Operation;
  target: string;
  /** What the user typed to force past an unhealthy other member; must be the target's name. */
  forceTyped?: string;
}

export interface GuardVerdict {
  allowed: boolean;
  /** Why not; empty when allowed. */
  reasons: string[];
  /** The refusal goes away with a typed confirmation (only: another member unhealthy, quorum kept). */
  forceable: boolean;
  /** No quorum now: only a restore from a snapshot brings the cluster back. */
  pointToRestore: boolean;
  /** The target's member, when it has one (its ID is what `member remove` takes). */
  member: GuardMember | undefined;
  /** The arithmetic in one line, for the plan. */
  arithmetic: string;
  warnings: string[];
}

export function quorumOf(voting: number): number {
  return Math.floor(voting / 2) + 1;
}

/** A member counts for the quorum when it votes, has started and answers. */
export function countsForQuorum(m: GuardMember): boolean {
  return !m.learner && m.started && m.healthy;
}

export function memberOf(members: readonly GuardMember[], host: string): GuardMember | undefined {
  return members.find((m) => m.host === host);
}

function describe(m: GuardMember): string {
  const who = m.host ?? t('member {0}', m.id);
  const state = !m.started ? t('never started') : m.healthy ? t('healthy') : t('unhealthy');
  return m.learner ? t('{0} (learner, {1})', who, state) : `${who} (${state})`;
}

export function checkMemberRemoval(members: readonly GuardMember[], request: GuardRequest): GuardVerdict {
  const { target } = request;
  const member = memberOf(members, target);
  const voting = members.filter((m) => !m.learner);
  const healthyVoting = voting.filter(countsForQuorum).length;
  const quorumNow = quorumOf(voting.length);
  const hasQuorumNow = voting.length > 0 && healthyVoting >= quorumNow;
  const verdict = (allowed: boolean, reasons: string[], extra: Partial<GuardVerdict> = {}): GuardVerdict => ({
    allowed, reasons, forceable: false, pointToRestore: false, member, arithmetic, warnings: [], ...extra,
  });
  let arithmetic = voting.length === 1 ? t('etcd now: 1 voting member, {0} healthy, quorum {1}', healthyVoting, quorumNow) : t('etcd now: {0} voting members, {1} healthy, quorum {2}', voting.length, healthyVoting, quorumNow);

  const noQuorum = (what: string) => verdict(false, [
    t('etcd has no quorum now ({0} of {1} voting members healthy, quorum {2}): {3} cannot commit. Restore etcd from a snapshot first (kubeadm-workbench restore --inventory F --from SNAPSHOT).', healthyVoting, voting.length, quorumNow, what),
  ], { pointToRestore: true });
  if (!member) {
    // Nothing in etcd to remove: the Node and the host are all there is. A replace's join still adds a member.
    if (request.operation === 'replace' && !hasQuorumNow) return noQuorum(t('the new host\'s `member add`'));
    return verdict(true, [], { arithmetic: t('{0}; {1} is not an etcd member: quorum unchanged', arithmetic, target) });
  }
  if (!hasQuorumNow) return noQuorum(t('`member remove`'));
  if (member.learner) {
    // A learner does not vote: its removal changes neither the size that counts nor the healthy count.
    return verdict(true, [], { arithmetic: t('{0}; {1} is a learner: quorum unchanged', arithmetic, target) });
  }
  const after = voting.length - 1;
  if (after === 0) return verdict(false, [request.operation === 'replace' ? t('{0} is etcd\'s last voting member: removing it removes the cluster\'s data. Nothing to replace it with.', target) : t('{0} is etcd\'s last voting member: removing it removes the cluster\'s data. Nothing to remove it with.', target)]);
  const quorumAfter = quorumOf(after);
  const healthyAfter = healthyVoting - (countsForQuorum(member) ? 1 : 0);
  arithmetic = t('{0}; after removing {1}: {2} voting, {3} healthy, quorum {4}', arithmetic, target, after, healthyAfter, quorumAfter);
  if (healthyAfter < quorumAfter) {
    return verdict(false, [
      t('removing {0} would lose etcd\'s quorum: {1}. {2}', target,
        after === 1
          ? (healthyAfter === 1 ? t('1 voting member would remain needing {0} healthy, and only 1 is', quorumAfter) : t('1 voting member would remain needing {0} healthy, and only {1} are', quorumAfter, healthyAfter))
          : healthyAfter === 1 ? t('{0} voting members would remain needing {1} healthy, and only 1 is', after, quorumAfter) : t('{0} voting members would remain needing {1} healthy, and only {2} are', after, quorumAfter, healthyAfter),
        voting.length - healthyVoting > 1 ? t('Bring the unhealthy members back first.') : t('Bring the unhealthy member back first.')),
    ]);
  }
  const others = members.filter((m) => m !== member && !(m.started && m.healthy));
  const warnings: string[] = [];
  if (healthyAfter === quorumAfter && after > 1) warnings.push(t('After the removal etcd tolerates no further failure ({0} healthy of {1}, quorum {2}) until a new member has joined.', healthyAfter, after, quorumAfter));
  if (request.operation === 'replace') warnings.push(t('The new host joins as a learner and is promoted once it has caught up: the quorum is never counted on it before then.'));
  if (others.length) {
    const forced = request.forceTyped !== undefined && request.forceTyped.trim() === target;
    const reason = t('another member is unhealthy: {0}. Removing {1} as well leaves the cluster with less margin; fix it first, or force by typing {1}.', others.map(describe).join(', '), target);
    if (!forced) return verdict(false, [reason], { forceable: true, warnings });
    warnings.push(t('Forced past: {0}.', others.map(describe).join(', ')));
  }
  return verdict(true, [], { warnings });
}

/** The guard's members from the etcd model the views use (`buildEtcd`). */
export function guardMembersOf(model: { members: readonly { id: string; host: string | undefined; isLearner: boolean; name: string; clientURLs: readonly string[]; healthy: boolean }[] }): GuardMember[] {
  return model.members.map((m) => ({
    id: m.id,
    host: m.host,
    learner: m.isLearner,
    started: !(m.name === '(unstarted)' && m.clientURLs.length === 0),
    healthy: m.healthy,
  }));
}
