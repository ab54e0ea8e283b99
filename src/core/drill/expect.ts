/**
 * What a failure drill should measure, derived from the cluster's own settings — and what the seed
 * article says, side by side. Every bound is in seconds since the fault (failure events) or since the
 * restore began (recovery events), and comes with the arithmetic that produced it.
 */
import type { HaproxyCheckParams, ClusterTimings } from './params';

/** stop / power-off: any host; haproxy, split-brain: a balancer; partition: a Kubernetes node's network cut, the machine running. */
export type FaultKind = 'stop' | 'power-off' | 'haproxy' | 'split-brain' | 'partition';

export interface Expectation {
  /** Matches a measurement: `haproxy-down@<balancer>`, `etcd-leader`, `lease@<name>`, `node-notready`… */
  id: string;
  title: string;
  phase: 'failure' | 'recovery';
  /** A floor: the earliest the settings allow; a measurement below it (less a small allowance) fails. */
  min?: number;
  max?: number;
  /** How the bounds follow from the settings, in words. */
  basis: string;
  /** What the seed article says about it. */
  seed?: string;
  /** Added to `max` before judging: polling interval and command latency. */
  slack: number;
  /** Reported, not judged (no meaningful bound, or bounded only by the drill's limits). */
  informational?: boolean;
  /**
   * Bounds counted from an earlier event instead of the fault, used when that event was seen before this one: the
   * window then moves with it (`min`–`max` seconds after it; `{t}` in `basis` is where it was seen).
   */
  after?: { event: string; min: number; max: number; basis: string };
}

const s = (ms: number): number => Math.round(ms / 100) / 10;
const fmt = (sec: number): string => `${Number.isInteger(sec) ? sec : sec.toFixed(1)} s`;

/**
 * When HAProxy marks a server DOWN after the fault. HAProxy checks every `inter`; after a failed check
 * the next one comes `fastinter` later (counted from the failure); `fall` failures in a row mark the
 * server DOWN. A stopped kube-apiserver refuses the connection, so each check fails at once; a powered-off
 * host answers nothing, so each check runs into its timeout: `inter` when no `timeout check` is set, else
 * min(`inter`, `timeout connect`). The first failing check starts up to `inter` after the fault.
 */
export function haproxyDownExpectation(balancer: string, server: string, p: HaproxyCheckParams, kind: FaultKind, slack: number): Expectation {
  const silentTimeout = p.timeoutCheck !== undefined ? Math.min(p.inter, p.timeoutConnect ?? p.inter) : p.inter;
  const min = (p.fall - 1) * p.fastinter;
  const timeoutText = p.timeoutCheck !== undefined ? `min(inter, timeout connect) = ${fmt(s(silentTimeout))}` : `inter ${fmt(s(p.inter))} (no \`timeout check\`)`;
  const base = `fall ${p.fall}, inter ${fmt(s(p.inter))}, fastinter ${fmt(s(p.fastinter))}`;
  if (!p.checked) {
    return { id: `haproxy-down@${balancer}`, title: `HAProxy on ${balancer} marks ${server} DOWN`, phase: 'failure', basis: `the server line has no \`check\`: HAProxy never marks it DOWN and keeps sending connections to it`, slack, informational: true };
  }
  const max = kind === 'stop' ? p.inter + (p.fall - 1) * p.fastinter : p.inter + p.fall * silentTimeout + (p.fall - 1) * p.fastinter;
  const basis =
    kind === 'stop'
      ? `${base}: a stopped kube-apiserver refuses the check at once, so ${p.fall} failures take (fall−1) × fastinter = ${fmt(s(min))}, plus up to inter until the first check: ${fmt(s(min))}–${fmt(s(max))}`
      : `${base}: each check to a silent host waits ${timeoutText}; fall × timeout + (fall−1) × fastinter + up to inter until the first check = ${fmt(s(max))} at most; ${fmt(s(min))} if the balancer learns at once that the host is unreachable`;
  return {
    id: `haproxy-down@${balancer}`,
    title: `HAProxy on ${balancer} marks ${server} DOWN`,
    phase: 'failure',
    min: s(min),
    max: s(max),
    basis,
    seed: 'HAProxy stops sending new TCP sessions to the dead node once its health checks fail (fall/rise).',
    slack,
  };
}

/**
 * UP again: `rise` checks in a row must pass once kube-apiserver listens, `fastinter` apart — a floor counted from
 * the restore; the ceiling is how long the drill watches the way back.
 */
export function haproxyUpExpectation(balancer: string, server: string, p: HaproxyCheckParams, restoreLimit: number, slack: number): Expectation {
  return {
    id: `haproxy-up@${balancer}`,
    title: `HAProxy on ${balancer} marks ${server} UP again`,
    phase: 'recovery',
    min: s((p.rise - 1) * p.fastinter),
    max: restoreLimit,
    basis: `rise ${p.rise} successful checks (${fmt(s((p.rise - 1) * p.fastinter))}–${fmt(s(p.inter + (p.rise - 1) * p.fastinter))}) once kube-apiserver ${p.httpCheck ? `answers \`${p.httpCheck}\` as the backend expects` : 'listens again'} — after the node booted and kubelet started the static pod; watched for up to ${fmt(restoreLimit)}. ${p.httpCheck ? 'An HTTP check waits for the answer, not just the port.' : 'A TCP check admits the server when the port opens, before /readyz is ok.'}`,
    slack,
  };
}

/** etcd: a follower that hears no heartbeat for the election timeout (randomized in [T, 2T)) campaigns. */
export function etcdLeaderExpectation(t: ClusterTimings, targetWasLeader: boolean, slack: number): Expectation {
  if (!targetWasLeader) {
    return {
      id: 'etcd-leader',
      title: 'etcd leader',
      phase: 'failure',
      basis: 'the failed member was a follower: the leader keeps its term and nothing is elected; the cluster keeps quorum with the remaining members',
      seed: 'etcd notices the lost member; two of three remain, quorum holds and writes go on.',
      slack,
      informational: true,
    };
  }
  const et = t.etcdElectionTimeoutMs;
  return {
    id: 'etcd-leader',
    title: 'etcd elects a new leader',
    phase: 'failure',
    min: s(et),
    max: s(2 * et + 2 * t.etcdHeartbeatMs),
    basis: `election timeout ${et} ms, randomized to ${et}–${2 * et} ms, then one round of (pre-)votes at heartbeat ${t.etcdHeartbeatMs} ms`,
    seed: 'etcd notices the lost member; two of three remain, quorum holds and writes go on.',
    slack,
  };
}

/**
 * A leader lease changes hands when a candidate, polling every retry period (with jitter up to 1.2 ×),
 * sees no renewal for the lease duration. The holder's last renewal was up to one retry period before
 * the fault.
 */
export function leaseExpectation(name: string, durationSeconds: number, t: ClusterTimings, heldByTarget: boolean, holder: string | undefined, slack: number): Expectation {
  const rp = t.leaderRetryPeriodMs / 1000;
  if (!heldByTarget) {
    return {
      id: `lease@${name}`,
      title: `${name} leader lease`,
      phase: 'failure',
      basis: `held by ${holder ?? 'another node'}, not the failed node: it should stay there`,
      seed: 'only when the failed node was the leader does its Lease expire and another node take over',
      slack,
      informational: true,
    };
  }
  return {
    id: `lease@${name}`,
    title: `${name} leader lease moves off the failed node`,
    phase: 'failure',
    min: Math.max(0, durationSeconds - rp),
    max: Math.round((durationSeconds + rp + 2.2 * rp) * 10) / 10,
    basis: `leaseDurationSeconds ${durationSeconds} after the last renewal (≤ ${fmt(rp)} before the fault), noticed at a candidate's next try (retry period ${fmt(rp)} with jitter up to ${fmt(2.2 * rp)})`,
    seed: 'the Lease of the failed leader expires (usually after 15 s); m02/m03 notice it and one of them takes the lead.',
    slack,
  };
}

/** Until the controller-manager leader's informers have the node again after a takeover. */
export const TAKEOVER_SYNC_SECONDS = 2;

/**
 * NotReady comes from the node-lifecycle controller in kube-controller-manager. When the failed node held
 * the controller-manager's lease, the controller that judges it dies with it: the new leader's controller
 * sees the node for the first time at its takeover and counts the grace period from there (its first
 * look at the node's Lease is its probe time) — NotReady then comes grace period after the handover.
 */
export function notReadyExpectation(t: ClusterTimings, slack: number, controllerManagerHandover?: { min: number; max: number }): Expectation {
  const g = t.nodeMonitorGraceMs;
  const base = {
    id: 'node-notready',
    title: 'the Node turns NotReady (Ready=Unknown)',
    phase: 'failure' as const,
    seed: 'the node controller waits node-monitor-grace-period (40 s by default) before marking the node NotReady.',
    slack,
  };
  const grace = `node-monitor-grace-period ${fmt(s(g))} (${t.nodeMonitorGraceSource})`;
  if (controllerManagerHandover) {
    return {
      ...base,
      min: Math.round((controllerManagerHandover.min + g / 1000) * 10) / 10,
      max: Math.round((controllerManagerHandover.max + (g + t.nodeMonitorPeriodMs) / 1000 + TAKEOVER_SYNC_SECONDS) * 10) / 10,
      basis: `the failed node ran the kube-controller-manager leader, whose node-lifecycle controller judges NotReady: the new leader's controller counts ${grace} from its takeover (lease handover ${controllerManagerHandover.min}–${controllerManagerHandover.max} s), checked every node-monitor-period ${fmt(s(t.nodeMonitorPeriodMs))}`,
    };
  }
  return {
    ...base,
    min: s(g - t.nodeLeaseRenewMs),
    max: s(g + t.nodeMonitorPeriodMs),
    basis: `${grace} after kubelet's last Lease renewal (every ${fmt(s(t.nodeLeaseRenewMs))}), checked every node-monitor-period ${fmt(s(t.nodeMonitorPeriodMs))}`,
  };
}

const EVICTION_SEED = 'after pod-eviction-timeout (5 min) the node controller evicts the pods; they stay Terminating until the node returns, and the ReplicaSet starts replacements elsewhere. (Since Kubernetes 1.27 the timeout is each pod\'s tolerationSeconds for the node.kubernetes.io/unreachable taint, 300 s by default.)';

/** Seconds after the taint a pod tolerating `tolerationSeconds` is marked for deletion, at most (taint-manager slack). */
export const EVICTION_SLACK_SECONDS = 5;

/**
 * How long after NotReady the NoExecute taint may come: the controller's next pass and its turn in the zone's queue;
 * Infinity when node-eviction-rate is 0 (the controller then taints no node).
 */
export function taintDelaySeconds(t: ClusterTimings): number {
  if (t.nodeEvictionRate <= 0) return Infinity;
  return s(t.nodeMonitorPeriodMs) + Math.round(10 / t.nodeEvictionRate) / 10;
}

/**
 * The NoExecute taint that starts each pod's tolerationSeconds. The node-lifecycle controller queues it when it
 * has seen the node NotReady (on the lab's 1.34 the drill saw both in the same poll; the controller may take until
 * its next pass, node-monitor-period later) and takes it off the queue rate-limited: node-eviction-rate nodes per
 * second per zone (0.1: one node per 10 s), so a node that fails within 10 s of another waits for its turn.
 */
export function taintExpectation(t: ClusterTimings, slack: number): Expectation {
  const base = { id: 'node-taint', title: 'the node controller taints the node node.kubernetes.io/unreachable:NoExecute', phase: 'failure' as const, seed: EVICTION_SEED, slack };
  if (t.nodeEvictionRate <= 0) {
    return { ...base, basis: 'kube-controller-manager runs with --node-eviction-rate 0: it taints no node NoExecute, so no pod is evicted by the taint', informational: true };
  }
  const nr = notReadyExpectation(t, 0);
  const after = taintDelaySeconds(t);
  return {
    ...base,
    min: nr.min,
    max: Math.round(((nr.max ?? 0) + after) * 10) / 10,
    basis: `NotReady + up to node-monitor-period ${fmt(s(t.nodeMonitorPeriodMs))} (the controller's next pass) + up to ${fmt(Math.round(10 / t.nodeEvictionRate) / 10)} (node-eviction-rate ${t.nodeEvictionRate}/s: one node tainted at a time per zone)`,
    after: { event: 'node-notready', min: 0, max: after, basis: 'counted from NotReady seen at {t} s' },
  };
}

/**
 * Taint-based eviction: the unreachable NoExecute taint comes after NotReady (taintExpectation); each pod goes after
 * its tolerationSeconds, counted from the taint. `awaited`: the tolerations of the pods the drill waits for
 * (judged); `later`: those it does not wait for (reported: when they would go).
 */
export function evictionExpectations(t: ClusterTimings, awaited: number[], later: (number | undefined)[], slack: number): Expectation[] {
  const taint = taintExpectation(t, slack);
  const window = (tols: number[]) => {
    const lo = Math.min(...tols);
    const hi = Math.max(...tols);
    return { lo, hi, tol: lo === hi ? `${lo} s` : `${lo}–${hi} s`, min: (taint.min ?? 0) + lo, max: (taint.max ?? 0) + hi + EVICTION_SLACK_SECONDS };
  };
  const out: Expectation[] = [];
  if (awaited.length) {
    const w = window(awaited);
    out.push(taint, {
      id: 'evictions',
      title: `${awaited.length} pod(s) on the node are marked for deletion (taint-based eviction)`,
      phase: 'failure',
      min: w.min,
      max: w.max,
      basis: `the taint (${fmt(taint.min ?? 0)}–${fmt(taint.max ?? 0)}) + tolerationSeconds ${w.tol} of node.kubernetes.io/unreachable:NoExecute`,
      seed: EVICTION_SEED,
      slack,
      after: { event: 'node-taint', min: w.lo, max: w.hi + EVICTION_SLACK_SECONDS, basis: `counted from the taint seen at {t} s: tolerationSeconds ${w.tol} (+ ${EVICTION_SLACK_SECONDS} s)` },
    });
  }
  if (t.nodeEvictionRate <= 0) {
    // no taint comes, so no toleration runs out
    if (later.length) out.push({ id: 'evictions-never', title: `${later.length} pod(s) stay bound to the node`, phase: 'failure', basis: taint.basis, slack, informational: true });
    return out;
  }
  const finite = later.filter((x): x is number => x !== undefined);
  if (finite.length) {
    const w = window(finite);
    out.push({
      id: 'evictions-later',
      title: `${finite.length} pod(s) the drill does not wait for are evicted`,
      phase: 'failure',
      min: w.min,
      max: w.max,
      basis: `not waited for: they tolerate the unreachable taint for ${w.tol}, so they would be marked for deletion ${fmt(w.min)}–${fmt(w.max)} after the fault`,
      seed: EVICTION_SEED,
      slack,
      informational: true,
    });
  }
  if (later.length > finite.length) {
    out.push({ id: 'evictions-never', title: `${later.length - finite.length} pod(s) tolerate the unreachable taint forever`, phase: 'failure', basis: 'a toleration without tolerationSeconds: never evicted', slack, informational: true });
  }
  return out;
}

export function apiExpectation(role: 'control-plane' | 'worker'): Expectation {
  return {
    id: 'api',
    title: 'the API through the VIP',
    phase: 'failure',
    basis:
      role === 'control-plane'
        ? 'round robin sends some new connections to the failed server until HAProxy marks it DOWN; after that every request must succeed'
        : 'a worker is not behind the balancer: every request must succeed',
    seed: 'kubectl keeps working through the VIP without errors.',
    slack: 2,
  };
}

export function recoveryExpectations(role: 'control-plane' | 'worker', restoreLimit: number): Expectation[] {
  const out: Expectation[] = [
    {
      id: 'node-ready',
      title: 'the Node is Ready again',
      phase: 'recovery',
      max: restoreLimit,
      basis: 'boot (power-off) or start of containerd and kubelet, kubelet registers and reports Ready once the CNI is up',
      seed: 'after power-on the node boots, starts containerd and kubelet, and kubelet starts the static pods from /etc/kubernetes/manifests.',
      slack: 0,
      informational: true,
    },
  ];
  if (role === 'control-plane') {
    out.push(
      {
        id: 'apiserver-ready',
        title: "the node's own API server answers /readyz",
        phase: 'recovery',
        max: restoreLimit,
        basis: 'kube-apiserver listens on its port within seconds of its start, but is ready only once its local etcd member is back and its post-start hooks ran; asked directly (not through the VIP) from here',
        seed: 'kubelet starts the static pods: etcd rejoins, kube-apiserver becomes ready, HAProxy puts it back in the rotation.',
        slack: 0,
        informational: true,
      },
      { id: 'etcd-rejoin', title: 'the etcd member answers again and follows the leader', phase: 'recovery', max: restoreLimit, basis: 'the etcd static pod starts and contacts its peers', seed: 'the etcd member contacts the leader, catches up on the missed log (RAFT INDEX) and is back in the quorum.', slack: 0, informational: true },
      { id: 'etcd-caught-up', title: "the member's raft index caught up with the leader's", phase: 'recovery', max: restoreLimit, basis: "its applied index reached the leader's raft index at the moment it answered", slack: 0, informational: true },
    );
  }
  return out;
}

/** Quorum arithmetic for the plan and the report. */
export function quorumText(voting: number, healthyBefore: number, targetIsHealthyMember: boolean): string {
  const quorum = Math.floor(voting / 2) + 1;
  const during = healthyBefore - (targetIsHealthyMember ? 1 : 0);
  const tolerates = during - quorum;
  return `etcd: ${voting} voting members, quorum ⌊${voting}/2⌋+1 = ${quorum}; ${healthyBefore} healthy now, ${during} while the node is down → ${during >= quorum ? `quorum holds, writes go on; tolerates ${tolerates} further failure${tolerates === 1 ? '' : 's'}` : 'QUORUM LOST: the cluster stops accepting writes'}`;
}
