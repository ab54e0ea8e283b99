/**
 * What a failure drill should measure, derived from the cluster's own settings — and what the seed
 * article says, side by side. Every bound is in seconds since the fault (failure events) or since the
 * restore began (recovery events), and comes with the arithmetic that produced it.
 */
import { t } from '../l10n';
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
const fmt = (sec: number): string => t('{0} s', Number.isInteger(sec) ? sec : sec.toFixed(1));

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
  const timeoutText = p.timeoutCheck !== undefined ? `min(inter, timeout connect) = ${fmt(s(silentTimeout))}` : t('inter {0} (no `timeout check`)', fmt(s(p.inter)));
  const base = `fall ${p.fall}, inter ${fmt(s(p.inter))}, fastinter ${fmt(s(p.fastinter))}`;
  if (!p.checked) {
    return { id: `haproxy-down@${balancer}`, title: t('HAProxy on {0} marks {1} DOWN', balancer, server), phase: 'failure', basis: t('the server line has no `check`: HAProxy never marks it DOWN and keeps sending connections to it'), slack, informational: true };
  }
  const max = kind === 'stop' ? p.inter + (p.fall - 1) * p.fastinter : p.inter + p.fall * silentTimeout + (p.fall - 1) * p.fastinter;
  const basis =
    kind === 'stop'
      ? t('{0}: a stopped kube-apiserver refuses the check at once, so {1} failures take (fall−1) × fastinter = {2}, plus up to inter until the first check: {2}–{3}', base, p.fall, fmt(s(min)), fmt(s(max)))
      : t('{0}: each check to a silent host waits {1}; fall × timeout + (fall−1) × fastinter + up to inter until the first check = {2} at most; {3} if the balancer learns at once that the host is unreachable', base, timeoutText, fmt(s(max)), fmt(s(min)));
  return {
    id: `haproxy-down@${balancer}`,
    title: t('HAProxy on {0} marks {1} DOWN', balancer, server),
    phase: 'failure',
    min: s(min),
    max: s(max),
    basis,
    seed: t('HAProxy stops sending new TCP sessions to the dead node once its health checks fail (fall/rise).'),
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
    title: t('HAProxy on {0} marks {1} UP again', balancer, server),
    phase: 'recovery',
    min: s((p.rise - 1) * p.fastinter),
    max: restoreLimit,
    basis: p.httpCheck
      ? t('rise {0} successful checks ({1}–{2}) once kube-apiserver answers `{3}` as the backend expects — after the node booted and kubelet started the static pod; watched for up to {4}. An HTTP check waits for the answer, not just the port.', p.rise, fmt(s((p.rise - 1) * p.fastinter)), fmt(s(p.inter + (p.rise - 1) * p.fastinter)), p.httpCheck, fmt(restoreLimit))
      : t('rise {0} successful checks ({1}–{2}) once kube-apiserver listens again — after the node booted and kubelet started the static pod; watched for up to {3}. A TCP check admits the server when the port opens, before /readyz is ok.', p.rise, fmt(s((p.rise - 1) * p.fastinter)), fmt(s(p.inter + (p.rise - 1) * p.fastinter)), fmt(restoreLimit)),
    slack,
  };
}

/** etcd: a follower that hears no heartbeat for the election timeout (randomized in [T, 2T)) campaigns. */
export function etcdLeaderExpectation(timings: ClusterTimings, targetWasLeader: boolean, slack: number): Expectation {
  if (!targetWasLeader) {
    return {
      id: 'etcd-leader',
      title: t('etcd leader'),
      phase: 'failure',
      basis: t('the failed member was a follower: the leader keeps its term and nothing is elected; the cluster keeps quorum with the remaining members'),
      seed: t('etcd notices the lost member; two of three remain, quorum holds and writes go on.'),
      slack,
      informational: true,
    };
  }
  const et = timings.etcdElectionTimeoutMs;
  return {
    id: 'etcd-leader',
    title: t('etcd elects a new leader'),
    phase: 'failure',
    min: s(et),
    max: s(2 * et + 2 * timings.etcdHeartbeatMs),
    basis: t('election timeout {0} ms, randomized to {0}–{1} ms, then one round of (pre-)votes at heartbeat {2} ms', et, 2 * et, timings.etcdHeartbeatMs),
    seed: t('etcd notices the lost member; two of three remain, quorum holds and writes go on.'),
    slack,
  };
}

/**
 * A leader lease changes hands when a candidate, polling every retry period (with jitter up to 1.2 ×),
 * sees no renewal for the lease duration. The holder's last renewal was up to one retry period before
 * the fault.
 */
export function leaseExpectation(name: string, durationSeconds: number, timings: ClusterTimings, heldByTarget: boolean, holder: string | undefined, slack: number): Expectation {
  const rp = timings.leaderRetryPeriodMs / 1000;
  if (!heldByTarget) {
    return {
      id: `lease@${name}`,
      title: t('{0} leader lease', name),
      phase: 'failure',
      basis: holder ? t('held by {0}, not the failed node: it should stay there', holder) : t('held by another node, not the failed node: it should stay there'),
      seed: t('only when the failed node was the leader does its Lease expire and another node take over'),
      slack,
      informational: true,
    };
  }
  return {
    id: `lease@${name}`,
    title: t('{0} leader lease moves off the failed node', name),
    phase: 'failure',
    min: Math.max(0, durationSeconds - rp),
    max: Math.round((durationSeconds + rp + 2.2 * rp) * 10) / 10,
    basis: t("leaseDurationSeconds {0} after the last renewal (≤ {1} before the fault), noticed at a candidate's next try (retry period {1} with jitter up to {2})", durationSeconds, fmt(rp), fmt(2.2 * rp)),
    seed: t('the Lease of the failed leader expires (usually after 15 s); m02/m03 notice it and one of them takes the lead.'),
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
export function notReadyExpectation(timings: ClusterTimings, slack: number, controllerManagerHandover?: { min: number; max: number }): Expectation {
  const g = timings.nodeMonitorGraceMs;
  const base = {
    id: 'node-notready',
    title: t('the Node turns NotReady (Ready=Unknown)'),
    phase: 'failure' as const,
    seed: t('the node controller waits node-monitor-grace-period (40 s by default) before marking the node NotReady.'),
    slack,
  };
  const grace = `node-monitor-grace-period ${fmt(s(g))} (${timings.nodeMonitorGraceSource})`;
  if (controllerManagerHandover) {
    return {
      ...base,
      min: Math.round((controllerManagerHandover.min + g / 1000) * 10) / 10,
      max: Math.round((controllerManagerHandover.max + (g + timings.nodeMonitorPeriodMs) / 1000 + TAKEOVER_SYNC_SECONDS) * 10) / 10,
      basis: t("the failed node ran the kube-controller-manager leader, whose node-lifecycle controller judges NotReady: the new leader's controller counts {0} from its takeover (lease handover {1}–{2} s), checked every node-monitor-period {3}", grace, controllerManagerHandover.min, controllerManagerHandover.max, fmt(s(timings.nodeMonitorPeriodMs))),
    };
  }
  return {
    ...base,
    min: s(g - timings.nodeLeaseRenewMs),
    max: s(g + timings.nodeMonitorPeriodMs),
    basis: t("{0} after kubelet's last Lease renewal (every {1}), checked every node-monitor-period {2}", grace, fmt(s(timings.nodeLeaseRenewMs)), fmt(s(timings.nodeMonitorPeriodMs))),
  };
}

/** What the seed says of evictions (read when a plan is made: the language is set by then). */
const evictionSeed = (): string => t("after pod-eviction-timeout (5 min) the node controller evicts the pods; they stay Terminating until the node returns, and the ReplicaSet starts replacements elsewhere. (Since Kubernetes 1.27 the timeout is each pod's tolerationSeconds for the node.kubernetes.io/unreachable taint, 300 s by default.)");

/** Seconds after the taint a pod tolerating `tolerationSeconds` is marked for deletion, at most (taint-manager slack). */
export const EVICTION_SLACK_SECONDS = 5;

/**
 * How long after NotReady the NoExecute taint may come: the controller's next pass and its turn in the zone's queue;
 * Infinity when node-eviction-rate is 0 (the controller then taints no node).
 */
export function taintDelaySeconds(timings: ClusterTimings): number {
  if (timings.nodeEvictionRate <= 0) return Infinity;
  return s(timings.nodeMonitorPeriodMs) + Math.round(10 / timings.nodeEvictionRate) / 10;
}

/**
 * The NoExecute taint that starts each pod's tolerationSeconds. The node-lifecycle controller queues it when it
 * has seen the node NotReady (on the lab's 1.34 the drill saw both in the same poll; the controller may take until
 * its next pass, node-monitor-period later) and takes it off the queue rate-limited: node-eviction-rate nodes per
 * second per zone (0.1: one node per 10 s), so a node that fails within 10 s of another waits for its turn.
 */
export function taintExpectation(timings: ClusterTimings, slack: number): Expectation {
  const base = { id: 'node-taint', title: t('the node controller taints the node node.kubernetes.io/unreachable:NoExecute'), phase: 'failure' as const, seed: evictionSeed(), slack };
  if (timings.nodeEvictionRate <= 0) {
    return { ...base, basis: t('kube-controller-manager runs with --node-eviction-rate 0: it taints no node NoExecute, so no pod is evicted by the taint'), informational: true };
  }
  const nr = notReadyExpectation(timings, 0);
  const after = taintDelaySeconds(timings);
  return {
    ...base,
    min: nr.min,
    max: Math.round(((nr.max ?? 0) + after) * 10) / 10,
    basis: t("NotReady + up to node-monitor-period {0} (the controller's next pass) + up to {1} (node-eviction-rate {2}/s: one node tainted at a time per zone)", fmt(s(timings.nodeMonitorPeriodMs)), fmt(Math.round(10 / timings.nodeEvictionRate) / 10), timings.nodeEvictionRate),
    // `{t}`: where NotReady was seen, filled by the report
    after: { event: 'node-notready', min: 0, max: after, basis: t('counted from NotReady seen at {t} s') },
  };
}

/**
 * Taint-based eviction: the unreachable NoExecute taint comes after NotReady (taintExpectation); each pod goes after
 * its tolerationSeconds, counted from the taint. `awaited`: the tolerations of the pods the drill waits for
 * (judged); `later`: those it does not wait for (reported: when they would go).
 */
export function evictionExpectations(timings: ClusterTimings, awaited: number[], later: (number | undefined)[], slack: number): Expectation[] {
  const taint = taintExpectation(timings, slack);
  const window = (tols: number[]) => {
    const lo = Math.min(...tols);
    const hi = Math.max(...tols);
    return { lo, hi, tol: lo === hi ? t('{0} s', lo) : t('{0}–{1} s', lo, hi), min: (taint.min ?? 0) + lo, max: (taint.max ?? 0) + hi + EVICTION_SLACK_SECONDS };
  };
  const out: Expectation[] = [];
  if (awaited.length) {
    const w = window(awaited);
    out.push(taint, {
      id: 'evictions',
      title: t('{0} pod(s) on the node are marked for deletion (taint-based eviction)', awaited.length),
      phase: 'failure',
      min: w.min,
      max: w.max,
      basis: t('the taint ({0}–{1}) + tolerationSeconds {2} of node.kubernetes.io/unreachable:NoExecute', fmt(taint.min ?? 0), fmt(taint.max ?? 0), w.tol),
      seed: evictionSeed(),
      slack,
      after: { event: 'node-taint', min: w.lo, max: w.hi + EVICTION_SLACK_SECONDS, basis: t('counted from the taint seen at {t} s: tolerationSeconds {0} (+ {1} s)', w.tol, EVICTION_SLACK_SECONDS) },
    });
  }
  if (timings.nodeEvictionRate <= 0) {
    // no taint comes, so no toleration runs out
    if (later.length) out.push({ id: 'evictions-never', title: t('{0} pod(s) stay bound to the node', later.length), phase: 'failure', basis: taint.basis, slack, informational: true });
    return out;
  }
  const finite = later.filter((x): x is number => x !== undefined);
  if (finite.length) {
    const w = window(finite);
    out.push({
      id: 'evictions-later',
      title: t('{0} pod(s) the drill does not wait for are evicted', finite.length),
      phase: 'failure',
      min: w.min,
      max: w.max,
      basis: t('not waited for: they tolerate the unreachable taint for {0}, so they would be marked for deletion {1}–{2} after the fault', w.tol, fmt(w.min), fmt(w.max)),
      seed: evictionSeed(),
      slack,
      informational: true,
    });
  }
  if (later.length > finite.length) {
    out.push({ id: 'evictions-never', title: t('{0} pod(s) tolerate the unreachable taint forever', later.length - finite.length), phase: 'failure', basis: t('a toleration without tolerationSeconds: never evicted'), slack, informational: true });
  }
  return out;
}

export function apiExpectation(role: 'control-plane' | 'worker'): Expectation {
  return {
    id: 'api',
    title: t('the API through the VIP'),
    phase: 'failure',
    basis:
      role === 'control-plane'
        ? t('round robin sends some new connections to the failed server until HAProxy marks it DOWN; after that every request must succeed')
        : t('a worker is not behind the balancer: every request must succeed'),
    seed: t('kubectl keeps working through the VIP without errors.'),
    slack: 2,
  };
}

export function recoveryExpectations(role: 'control-plane' | 'worker', restoreLimit: number): Expectation[] {
  const out: Expectation[] = [
    {
      id: 'node-ready',
      title: t('the Node is Ready again'),
      phase: 'recovery',
      max: restoreLimit,
      basis: t('boot (power-off) or start of containerd and kubelet, kubelet registers and reports Ready once the CNI is up'),
      seed: t('after power-on the node boots, starts containerd and kubelet, and kubelet starts the static pods from /etc/kubernetes/manifests.'),
      slack: 0,
      informational: true,
    },
  ];
  if (role === 'control-plane') {
    out.push(
      {
        id: 'apiserver-ready',
        title: t("the node's own API server answers /readyz"),
        phase: 'recovery',
        max: restoreLimit,
        basis: t('kube-apiserver listens on its port within seconds of its start, but is ready only once its local etcd member is back and its post-start hooks ran; asked directly (not through the VIP) from here'),
        seed: t('kubelet starts the static pods: etcd rejoins, kube-apiserver becomes ready, HAProxy puts it back in the rotation.'),
        slack: 0,
        informational: true,
      },
      { id: 'etcd-rejoin', title: t('the etcd member answers again and follows the leader'), phase: 'recovery', max: restoreLimit, basis: t('the etcd static pod starts and contacts its peers'), seed: t('the etcd member contacts the leader, catches up on the missed log (RAFT INDEX) and is back in the quorum.'), slack: 0, informational: true },
      { id: 'etcd-caught-up', title: t("the member's raft index caught up with the leader's"), phase: 'recovery', max: restoreLimit, basis: t("its applied index reached the leader's raft index at the moment it answered"), slack: 0, informational: true },
    );
  }
  return out;
}

/** Quorum arithmetic for the plan and the report. */
export function quorumText(voting: number, healthyBefore: number, targetIsHealthyMember: boolean): string {
  const quorum = Math.floor(voting / 2) + 1;
  const during = healthyBefore - (targetIsHealthyMember ? 1 : 0);
  const tolerates = during - quorum;
  const outcome = during < quorum ? t('QUORUM LOST: the cluster stops accepting writes') : tolerates === 1 ? t('quorum holds, writes go on; tolerates 1 further failure') : t('quorum holds, writes go on; tolerates {0} further failures', tolerates);
  return t('etcd: {0} voting members, quorum ⌊{0}/2⌋+1 = {1}; {2} healthy now, {3} while the node is down → {4}', voting, quorum, healthyBefore, during, outcome);
}
