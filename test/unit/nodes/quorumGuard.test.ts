/**
 * The fault matrix of the remove/replace guard: 1–5 members, every member in every health state (voting
 * healthy / unhealthy / never started, learner started / never started), every target (each member and a
 * host that is no member), remove and replace, forced or not. For each case the steps are simulated on
 * their own model of etcd — `member remove` commits only with the current quorum, then the new size needs
 * its own; a replace's join adds a learner (commit with quorum) and promotes it (commit with quorum, new
 * size) — and the guard must never allow a case whose steps lose the quorum, and must allow every case
 * whose steps keep it (forced when another member is unhealthy).
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { checkMemberRemoval, type GuardMember, type Operation } from '../../../src/core/nodes/quorumGuard';

type State = 'voter-healthy' | 'voter-unhealthy' | 'voter-unstarted' | 'learner-healthy' | 'learner-unstarted';
const STATES: State[] = ['voter-healthy', 'voter-unhealthy', 'voter-unstarted', 'learner-healthy', 'learner-unstarted'];

function member(i: number, s: State): GuardMember {
  return { id: `m${i}`, host: `h${i}`, learner: s.startsWith('learner'), started: !s.endsWith('unstarted'), healthy: s.endsWith('-healthy') };
}

/** Every combination of states for n members. */
function* clusters(n: number): Generator<State[]> {
  if (n === 0) {
    yield [];
    return;
  }
  for (const rest of clusters(n - 1)) for (const s of STATES) yield [...rest, s];
}

interface Sim {
  voters: number;
  healthyVoters: number;
}

const hasQuorum = (s: Sim) => s.voters > 0 && s.healthyVoters >= Math.floor(s.voters / 2) + 1;

/**
 * The steps of the operation on the simulator's own etcd: returns the first step that could not commit
 * or left the cluster without a quorum, or undefined when every step keeps it.
 */
function simulate(states: State[], targetIndex: number, op: Operation): string | undefined {
  let sim: Sim = {
    voters: states.filter((s) => s.startsWith('voter')).length,
    healthyVoters: states.filter((s) => s === 'voter-healthy').length,
  };
  const target = states[targetIndex];
  if (target !== undefined) {
    // The control-plane static pods stop (leases move away) but its etcd runs until it is removed.
    if (!hasQuorum(sim)) return 'member remove cannot commit: no quorum before it';
    if (target.startsWith('voter')) sim = { voters: sim.voters - 1, healthyVoters: sim.healthyVoters - (target === 'voter-healthy' ? 1 : 0) };
    if (sim.voters === 0) return 'no voting member left';
    if (!hasQuorum(sim)) return 'quorum lost after member remove';
  }
  if (op === 'replace') {
    if (!hasQuorum(sim)) return 'member add (learner) cannot commit';
    // The learner catches up, then its promotion commits under the current quorum and enlarges the cluster.
    if (!hasQuorum(sim)) return 'member promote cannot commit';
    sim = { voters: sim.voters + 1, healthyVoters: sim.healthyVoters + 1 };
    if (!hasQuorum(sim)) return 'quorum lost after promote';
  }
  return undefined;
}

function othersUnhealthy(states: State[], targetIndex: number): boolean {
  return states.some((s, i) => i !== targetIndex && (s.endsWith('unhealthy') || s.endsWith('unstarted')));
}

test('fault matrix: the guard never allows a quorum-losing step and allows every safe one', () => {
  let cases = 0;
  let allowed = 0;
  let refusedForQuorum = 0;
  for (let n = 1; n <= 5; n++) {
    for (const states of clusters(n)) {
      const members = states.map((s, i) => member(i, s));
      // Each member as the target, and a host that is no member (index n).
      for (let t = 0; t <= n; t++) {
        for (const op of ['remove', 'replace'] as const) {
          const unsafe = simulate(states, t, op);
          // A learner or a host that is no member is always removable; a voter needs every other member healthy or force.
          const needsForce = t < n && states[t]!.startsWith('voter') && othersUnhealthy(states, t);
          for (const forced of [false, true]) {
            cases++;
            const target = `h${t}`;
            const v = checkMemberRemoval(members, { operation: op, target, ...(forced ? { forceTyped: target } : {}) });
            const label = `${n} members [${states.join(', ')}], ${op} ${target}${forced ? ' forced' : ''}`;
            if (unsafe) {
              assert.equal(v.allowed, false, `${label}: allowed although ${unsafe}`);
              assert.equal(v.forceable, false, `${label}: a quorum loss (${unsafe}) must not be forceable`);
              refusedForQuorum++;
            } else if (needsForce && !forced) {
              assert.equal(v.allowed, false, `${label}: another member is unhealthy: refused unless forced`);
              assert.equal(v.forceable, true, `${label}: the only reason is another unhealthy member: forceable`);
            } else {
              assert.equal(v.allowed, true, `${label}: every step keeps the quorum, yet refused: ${v.reasons.join(' ')}`);
              allowed++;
            }
            if (v.allowed) assert.equal(simulate(states, t, op), undefined);
          }
        }
      }
    }
  }
  // Not vacuous: each branch is taken many times.
  assert.ok(cases > 70_000, `${cases} cases`);
  assert.ok(allowed > 1000 && refusedForQuorum > 1000, `${allowed} allowed, ${refusedForQuorum} refused for the quorum`);
});

test('all members healthy: remove and replace are allowed from 2 members up, never for the last one', () => {
  for (let n = 1; n <= 5; n++) {
    const members = Array.from({ length: n }, (_, i) => member(i, 'voter-healthy'));
    for (const op of ['remove', 'replace'] as const) {
      const v = checkMemberRemoval(members, { operation: op, target: 'h0' });
      assert.equal(v.allowed, n >= 2, `${n} healthy members, ${op}: ${v.reasons.join(' ')}`);
      if (n >= 2) assert.equal(v.member?.id, 'm0');
    }
  }
});

test('a dead member of three is removed without force (the seed\'s powered-off node)', () => {
  const members = [member(0, 'voter-unhealthy'), member(1, 'voter-healthy'), member(2, 'voter-healthy')];
  const v = checkMemberRemoval(members, { operation: 'replace', target: 'h0' });
  assert.equal(v.allowed, true, v.reasons.join(' '));
  assert.match(v.arithmetic, /after removing h0: 2 voting, 2 healthy, quorum 2/);
});

test('no quorum now points to restore; a wrong typed name does not force', () => {
  const lost = checkMemberRemoval([member(0, 'voter-unhealthy'), member(1, 'voter-healthy')], { operation: 'remove', target: 'h0', forceTyped: 'h0' });
  assert.equal(lost.allowed, false);
  assert.equal(lost.pointToRestore, true);
  assert.match(lost.reasons[0]!, /restore/);
  const four = [member(0, 'voter-healthy'), member(1, 'voter-unhealthy'), member(2, 'voter-healthy'), member(3, 'voter-healthy')];
  assert.equal(checkMemberRemoval(four, { operation: 'remove', target: 'h0', forceTyped: 'h1' }).allowed, false);
  assert.equal(checkMemberRemoval(four, { operation: 'remove', target: 'h0', forceTyped: ' h0 ' }).allowed, true);
});

test('a second member stopped of three: removing a healthy one is refused and cannot be forced', () => {
  const members = [member(0, 'voter-healthy'), member(1, 'voter-unhealthy'), member(2, 'voter-healthy')];
  const v = checkMemberRemoval(members, { operation: 'remove', target: 'h0', forceTyped: 'h0' });
  assert.equal(v.allowed, false);
  assert.equal(v.forceable, false);
  assert.match(v.reasons[0]!, /would lose etcd's quorum/);
});
