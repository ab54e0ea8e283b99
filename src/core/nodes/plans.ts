/**
 * Removing a node from the cluster, and resetting a host for re-use, as phases of the plan engine: every
 * step has a check that asks the host or the API whether its effect is there, so a re-run (or a resumed
 * run) skips what is done. The cluster-side steps run on the helper — a control-plane host that answers and
 * whose etcd member is healthy — never on the node being removed, which may be gone for good. Steps on that
 * node are in the plan only when it answered over SSH; otherwise the plan says what is skipped and why.
 */
import { t } from '../l10n';
import { HAPROXY_BACKEND, haproxyServerNames } from '../generate/haproxy';
import { hostsWithRole, type HostSpec, type Inventory } from '../inventory/types';
import { sameContent } from '../phases/checks';
import type { PhasePlan, Step } from '../plan/types';
import { and } from '../ssh/command';
import {
  backendServers, controlPlanePodsGone, controlPlanePodsStopped, deleteNode, drainNode, HAPROXY_CONFIG, HAPROXY_STAGED, hostIsReset, installHaproxyConfig,
  leasesHeldElsewhere, memberAbsent, memberRemove, nodeAbsent, resetHost, stopControlPlanePods,
} from './commands';

const GATE = 'a gate: it only asks the API or the host for a state and changes nothing, so it is its own check';
export const DEFAULT_DRAIN_TIMEOUT_SECONDS = 300;

function step(phase: Step['phase'], host: string, key: string, rest: Omit<Step, 'id' | 'phase' | 'host'>): Step {
  return { id: `${phase}/${host}/${key}`, phase, host, ...rest };
}

export interface RemovalInput {
  /** The inventory as it is (the target still in it). */
  inventory: Inventory;
  target: HostSpec;
  /** Control-plane host whose admin.conf and etcd pod do the cluster-side work. */
  helper: string;
  /** Whether the target answered over SSH when the plan was made. */
  targetAnswers: boolean;
  /** The target's etcd member ID, when it has one. */
  memberId?: string;
  drainTimeoutSeconds?: number;
}

/** The Node deleted through a host whose admin.conf answers; gone only when the API answered without it. */
function deleteNodeStep(helper: string, name: string): Step {
  return step('remove-node', helper, `delete-node-${name}`, {
    title: t('Delete the Node {0}', name),
    about: name,
    check: nodeAbsent(name),
    run: deleteNode(name),
    verify: nodeAbsent(name),
    verifyTimeoutMs: 30_000,
  });
}

/** The reset of a host that answers: kubeadm reset and the clean-up kubeadm leaves to the user. */
export function resetStep(phase: Step['phase'], host: string): Step {
  return step(phase, host, 'reset', {
    title: t('kubeadm reset on {0}, then its CNI configuration, kube-proxy/CNI iptables rules, IPVS tables and CNI interfaces', host),
    why: t('kubeadm reset leaves the CNI configuration, iptables and IPVS state behind; a host re-used with them routes pods of a cluster that is gone.'),
    check: hostIsReset(),
    run: resetHost(),
    verify: hostIsReset(),
    timeoutMs: 5 * 60_000,
  });
}

/** What the plan says when the target does not answer (so its reset is not in it). */
export function unreachableNote(target: string): string {
  return t('{0} does not answer over SSH: it is removed from the cluster without it, and its kubeadm reset is skipped. Reset it before re-using it (kubeadm-workbench reset --host {0}), or re-image it.', target);
}

export function removeWorkerPhases(input: RemovalInput): PhasePlan[] {
  const { target, helper } = input;
  const name = target.name;
  const steps: Step[] = [
    step('remove-node', helper, `drain-${name}`, {
      title: t('Drain {0} (PodDisruptionBudgets honoured, {1} s at most)', name, input.drainTimeoutSeconds ?? DEFAULT_DRAIN_TIMEOUT_SECONDS),
      about: name,
      why: t('Evictions let the PodDisruptionBudgets decide, so the workloads keep their replicas while the node empties.'),
      check: nodeAbsent(name),
      run: drainNode(name, input.drainTimeoutSeconds ?? DEFAULT_DRAIN_TIMEOUT_SECONDS),
      timeoutMs: ((input.drainTimeoutSeconds ?? DEFAULT_DRAIN_TIMEOUT_SECONDS) + 60) * 1000,
    }),
    deleteNodeStep(helper, name),
  ];
  if (input.targetAnswers) steps.push(resetStep('remove-node', name));
  return [{ phase: 'remove-node', title: t('Remove the worker {0}', name), order: 'serial', steps, warnings: input.targetAnswers ? [] : [unreachableNote(name)] }];
}

/**
 * HAProxy's backend made from `served` (the inventory without the removed node; for a replace, with the new node
 * only once it has joined) on every balancer: staged, checked with `haproxy -c`, put in place, reloaded, and
 * verified through the admin socket — the backend lists exactly the servers of `served`, and `mustBeUp` are UP.
 * A reloaded HAProxy takes every listed server for UP until its checks say otherwise: a server whose API server
 * is not there yet would get requests for its first failed checks, so a new node is added only once it is Ready.
 */
export function haproxyPhase(served: Inventory, config: string, title: string, key: string, mustBeUp: readonly string[] = []): PhasePlan {
  const names = haproxyServerNames(served);
  const servers = names.map((n) => n.server);
  const up = names.filter((n) => mustBeUp.includes(n.host)).map((n) => n.server);
  const steps = hostsWithRole(served, 'loadbalancer').map((b) =>
    step('remove-node', b.name, key, {
      title: up.length ? t('haproxy.cfg with the backend {0} (checked with haproxy -c, reloaded); {1} UP', servers.join(', '), up.join(', ')) : t('haproxy.cfg with the backend {0} (checked with haproxy -c, reloaded)', servers.join(', ')),
      why: t('A reload keeps the connections HAProxy holds; the admin socket then shows what the running HAProxy really balances over.'),
      check: and(sameContent(HAPROXY_CONFIG, config), backendServers(HAPROXY_BACKEND, servers, up)),
      files: [{ path: HAPROXY_STAGED, content: config, mode: 0o644 }],
      run: installHaproxyConfig(),
      verify: backendServers(HAPROXY_BACKEND, servers, up),
      verifyTimeoutMs: up.length ? 2 * 60_000 : 30_000,
    }),
  );
  return { phase: 'remove-node', title, order: 'parallel', steps, warnings: [] };
}

/**
 * A control-plane node out of the cluster: first out of HAProxy (so no request goes to an API server about
 * to stop), its API server, controller-manager and scheduler stopped (the leases move), drained, its etcd
 * member removed by ID from the helper's etcd, its Node deleted, then reset when it answers.
 */
export function removeControlPlanePhases(input: RemovalInput, after: Inventory, haproxyConfig: string): PhasePlan[] {
  const { target, helper } = input;
  const name = target.name;
  const phases: PhasePlan[] = [haproxyPhase(after, haproxyConfig, t('Take {0} out of HAProxy on every balancer', name), `haproxy-without-${name}`)];
  const steps: Step[] = [];
  if (input.targetAnswers) {
    steps.push(step('remove-node', name, 'stop-control-plane', {
      title: t('Stop the API server, controller-manager and scheduler on {0} (etcd keeps running until its member is removed)', name),
      why: t('Its scheduler and controller-manager release nothing when the node is removed under them; stopping them hands the leader leases to the others now.'),
      check: controlPlanePodsStopped(),
      run: stopControlPlanePods(),
      verify: controlPlanePodsGone(),
      verifyTimeoutMs: 60_000,
    }));
  }
  steps.push(
    step('remove-node', helper, `leases-${name}`, {
      title: t('The scheduler and controller-manager leases are held by another node than {0}', name),
      about: name,
      why: t('A leader lease held by a node that is gone stops scheduling and reconciling until it expires.'),
      rerun: GATE,
      verify: leasesHeldElsewhere(name),
      verifyTimeoutMs: 90_000,
    }),
    step('remove-node', helper, `drain-${name}`, {
      title: t('Drain {0} (PodDisruptionBudgets honoured, {1} s at most)', name, input.drainTimeoutSeconds ?? DEFAULT_DRAIN_TIMEOUT_SECONDS),
      about: name,
      check: nodeAbsent(name),
      run: drainNode(name, input.drainTimeoutSeconds ?? DEFAULT_DRAIN_TIMEOUT_SECONDS),
      timeoutMs: ((input.drainTimeoutSeconds ?? DEFAULT_DRAIN_TIMEOUT_SECONDS) + 60) * 1000,
    }),
  );
  if (input.memberId) {
    steps.push(step('remove-node', helper, `etcd-member-${name}`, {
      title: t('etcdctl member remove {0} ({1}), from {2}\'s etcd', input.memberId, name, helper),
      about: name,
      why: t('A member that is gone for good still counts against the quorum: until it is removed, one more failure can stop the cluster.'),
      check: memberAbsent(helper, input.memberId),
      run: memberRemove(helper, input.memberId),
      verify: memberAbsent(helper, input.memberId),
      verifyTimeoutMs: 30_000,
    }));
  }
  steps.push(deleteNodeStep(helper, name));
  if (input.targetAnswers) steps.push(resetStep('remove-node', name));
  phases.push({ phase: 'remove-node', title: t('Remove the control-plane node {0}', name), order: 'serial', steps, warnings: input.targetAnswers ? [] : [unreachableNote(name)] });
  return phases;
}

export function resetPhases(host: string): PhasePlan[] {
  return [{ phase: 'reset-node', title: t('Reset {0} for re-use', host), order: 'serial', steps: [resetStep('reset-node', host)], warnings: [] }];
}

export function isControlPlane(host: HostSpec): boolean {
  return host.roles.includes('control-plane');
}
