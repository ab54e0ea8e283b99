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
  const who = m.host ?? `member ${m.id}`;
  if (!m.started) return `${who} (${m.learner ? 'learner, ' : ''}never started)`;
  return `${who} (${m.learner ? 'learner, ' : ''}${m.healthy ? 'healthy' : 'unhealthy'})`;
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
  let arithmetic = `etcd now: ${voting.length} voting member${voting.length === 1 ? '' : 's'}, ${healthyVoting} healthy, quorum ${quorumNow}`;

  const noQuorum = (what: string) => verdict(false, [
    `etcd has no quorum now (${healthyVoting} of ${voting.length} voting members healthy, quorum ${quorumNow}): ${what} cannot commit. Restore etcd from a snapshot first (kubeadm-workbench restore --inventory F --from SNAPSHOT).`,
  ], { pointToRestore: true });
  if (!member) {
    // Nothing in etcd to remove: the Node and the host are all there is. A replace's join still adds a member.
    if (request.operation === 'replace' && !hasQuorumNow) return noQuorum('the new host\'s `member add`');
    return verdict(true, [], { arithmetic: `${arithmetic}; ${target} is not an etcd member: quorum unchanged` });
  }
  if (!hasQuorumNow) return noQuorum('`member remove`');
  if (member.learner) {
    // A learner does not vote: its removal changes neither the size that counts nor the healthy count.
    return verdict(true, [], { arithmetic: `${arithmetic}; ${target} is a learner: quorum unchanged` });
  }
  const after = voting.length - 1;
  if (after === 0) return verdict(false, [`${target} is etcd's last voting member: removing it removes the cluster's data. Nothing to ${request.operation} it with.`]);
  const quorumAfter = quorumOf(after);
  const healthyAfter = healthyVoting - (countsForQuorum(member) ? 1 : 0);
  arithmetic += `; after removing ${target}: ${after} voting, ${healthyAfter} healthy, quorum ${quorumAfter}`;
  if (healthyAfter < quorumAfter) {
    return verdict(false, [
      `removing ${target} would lose etcd's quorum: ${after} voting member${after === 1 ? '' : 's'} would remain needing ${quorumAfter} healthy, and only ${healthyAfter} ${healthyAfter === 1 ? 'is' : 'are'}. Bring the unhealthy member${voting.length - healthyVoting > 1 ? 's' : ''} back first.`,
    ]);
  }
  const others = members.filter((m) => m !== member && !(m.started && m.healthy));
  const warnings: string[] = [];
  if (healthyAfter === quorumAfter && after > 1) warnings.push(`After the removal etcd tolerates no further failure (${healthyAfter} healthy of ${after}, quorum ${quorumAfter}) until a new member has joined.`);
  if (request.operation === 'replace') warnings.push('The new host joins as a learner and is promoted once it has caught up: the quorum is never counted on it before then.');
  if (others.length) {
    const forced = request.forceTyped !== undefined && request.forceTyped.trim() === target;
    const reason = `another member is unhealthy: ${others.map(describe).join(', ')}. Removing ${target} as well leaves the cluster with less margin; fix it first, or force by typing ${target}.`;
    if (!forced) return verdict(false, [reason], { forceable: true, warnings });
    warnings.push(`Forced past: ${others.map(describe).join(', ')}.`);
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
