/**
 * The upgrade as plans of the plan engine (kubernetes.io "Upgrading kubeadm clusters", with the gates an HA
 * cluster behind HAProxy needs):
 *
 *   etcd snapshot → every node's Kubernetes package source switched to the target minor →
 *   control-plane nodes one at a time: kubeadm upgraded and held; on the first `kubeadm upgrade plan` (shown)
 *   and `kubeadm upgrade apply`, on the others `kubeadm upgrade node` — each between its API server taken out of
 *   HAProxy on every balancer (maint, through the admin socket) and put back (ready) once its own /readyz answers
 *   at the target; then the etcd gate (its member voting, every voter healthy) and the lease gate →
 *   kubelets: control-plane nodes one at a time, then workers `maxUnavailable` at a time: drain, kubelet and
 *   kubectl upgraded and held, kubelet restarted (a control-plane node out of HAProxy around it: the new kubelet
 *   restarts the static pods' containers), Ready at the target, uncordoned →
 *   kubeadm's backups in /etc/kubernetes/tmp listed.
 *
 * Every step has a check that asks the host or the API whether the node is at the target already (or is a gate
 * that only asks), so a re-run, or a resumed run, converges. The order keeps the skew policy: no kubelet is
 * upgraded before every API server is (`skewAlongPlan` walks the plan to prove it).
 */
import { t } from '../l10n';
import { hostsWithRole, type HostSpec, type Inventory } from '../inventory/types';
import { aptSourceSteps, keyringInstalled } from '../phases/aptSources';
import { votingMemberHealthy } from '../phases/bringUp';
import { all, sameContent, sourcesOffer } from '../phases/checks';
import type { PhasePlan, Plan, RunValues, Step } from '../plan/types';
import { and, raw, sh } from '../ssh/command';
import {
  addonsAtTarget, apiServerSettledAfterKubelet, KUBELET_FIRST_SYNC_SECONDS, clusterAtTarget, clusterConfigAtTarget, kubeadmUpgradeAddons, kubeadmUpgradeApply, kubeadmUpgradeNode, kubeadmUpgradePlan, leadersRenewing, listKubeadmBackups, nodeReadyAtTarget, nodeReportsTarget, nodeSchedulable,
  nodesReady, ownApiServerReady, packagesAtTarget, reportAtTarget, restartKubelet, staticPodsAtTarget, upgradePackages,
} from './commands';
import { waitForKubeadmToExit } from '../phases/interrupted';
import { balancersIn as sharedBalancersIn, balancersOut as sharedBalancersOut, GATE_RERUN, type MakeBalancerStep } from '../nodes/haproxyGates';
import { memberFollowsCommand } from '../certs/renewPlan';
import type { TargetSource } from './packageSource';
import { formatVersion, minorOf, type KubeVersion, type VersionChange } from './versions';

const GATE = GATE_RERUN;
const APT = 'DEBIAN_FRONTEND=noninteractive apt-get -o DPkg::Lock::Timeout=300 -y -q';
export const DEFAULT_DRAIN_TIMEOUT_SECONDS = 300;

export interface UpgradeHooks {
  /** The pre-upgrade etcd snapshot (the backup's code, in-process); `display` says where it goes. */
  snapshot: { run: (signal?: AbortSignal) => Promise<void>; display: string };
  /** Our drain (cordon, evictions honouring PodDisruptionBudgets), through the API. */
  drain: (node: string, signal?: AbortSignal) => Promise<void>;
  uncordon: (node: string, signal?: AbortSignal) => Promise<void>;
  /** Whether the drain evicts pods with emptyDir volumes (their data is lost); otherwise they stop it. */
  drainDeletesEmptyDirData?: boolean;
  /**
   * When `host`'s etcd member leads, hands the leadership to another healthy voting member (preferring one not in
   * `upcoming`) and waits until it leads: the renewal's way (engine/renew.ts). Absent: no such step.
   */
  moveEtcdLeader?: (host: string, upcoming: readonly string[], signal?: AbortSignal) => Promise<void>;
}

export interface UpgradePlanInput {
  inventory: Inventory;
  target: KubeVersion;
  source: TargetSource;
  /** Workers drained and upgraded at the same time (default 1). */
  maxUnavailable?: number;
  drainTimeoutSeconds?: number;
}

function step(host: string, key: string, rest: Omit<Step, 'id' | 'phase' | 'host'>): Step {
  return { id: `upgrade/${host}/${key}`, phase: 'upgrade', host, ...rest };
}

const LEADERS_TITLE = (): string => t('The scheduler\'s and controller-manager\'s leader leases are held and renewed');
const LEADERS_WHY = (): string => t('A restarted scheduler or controller-manager stops renewing its lease, which keeps its name until it expires: the next node is drained only once a live leader renews each (the endpoint controller takes drained pods out of Services).');

/** The capture key of a control-plane node's "already at the target" gate. */
export function atTargetKey(node: string): string {
  return `at-target:${node}`;
}

/** The capture key of a control-plane node's "kubelet Ready at the target already" gate. */
function kubeletAtTargetKey(node: string): string {
  return `kubelet-at-target:${node}`;
}

function captureAtTarget(valueKey: string): (stdout: string) => Record<string, string> {
  return (stdout) => ({ [valueKey]: /at-target=yes/.test(stdout) ? 'yes' : 'no' });
}

const skipWhenYes = (valueKey: string) => (values: RunValues) => values.get(valueKey) === 'yes';
const skipAtTarget = (node: string) => skipWhenYes(atTargetKey(node));

function snapshotPhase(first: HostSpec, target: KubeVersion, hooks: UpgradeHooks): PhasePlan {
  return {
    phase: 'upgrade', title: t('etcd snapshot before the upgrade'), order: 'serial', warnings: [],
    steps: [step(first.name, 'etcd-snapshot', {
      title: t('etcd snapshot, kept outside the cluster ({0})', hooks.snapshot.display),
      why: t('A minor upgrade rewrites the control plane and etcd; the snapshot is the way back if it fails half-way.'),
      check: clusterAtTarget(target),
      action: async (_v, signal) => hooks.snapshot.run(signal),
      planDisplay: t('take an etcd snapshot with the backup\'s code ({0})', hooks.snapshot.display),
    })],
  };
}

function packageSourcePhase(nodes: readonly HostSpec[], target: KubeVersion, source: TargetSource): PhasePlan {
  const { files, keys, keyrings } = aptSourceSteps({ kubernetesApt: source.kubernetesApt, ...(source.kubernetesAptKey ? { kubernetesAptKey: source.kubernetesAptKey } : {}), ...(source.kubernetesAptKeySha256 ? { kubernetesAptKeySha256: source.kubernetesAptKeySha256 } : {}), cniManifest: '' });
  const offered = ['kubeadm', 'kubelet', 'kubectl'].map((name) => ({ name, version: `${target.major}.${target.minor}.${target.patch}` }));
  return {
    phase: 'upgrade', title: t('Kubernetes package source for {0} on every node', minorOf(target)), order: 'parallel', warnings: [],
    steps: nodes.map((n) => step(n.name, 'package-source', {
      title: t('kubernetes.list names the {0} packages ({1})', minorOf(target), source.kubernetesApt),
      why: t('pkgs.k8s.io is split per minor: a node sees the next minor\'s packages only from its own source.'),
      check: all(...files.map((f) => sameContent(f.path, f.content)), ...keyrings.map(keyringInstalled), sourcesOffer(offered)),
      files,
      run: and(...keys, sh`${raw(APT)} update`),
      verify: sourcesOffer(offered),
      timeoutMs: 5 * 60_000,
    })),
  };
}

function kubeadmPackageStep(host: HostSpec, target: KubeVersion): Step {
  return step(host.name, 'kubeadm-package', {
    title: t('kubeadm {0}: unhold, upgrade, hold', formatVersion(target)),
    check: packagesAtTarget(['kubeadm'], target),
    run: upgradePackages(['kubeadm'], target),
    verify: sh`kubeadm version -o short | grep -qx ${formatVersion(target)}`,
    timeoutMs: 10 * 60_000,
  });
}

/** A stopped run's kubeadm may outlive it on the node (nothing hangs it up until it prints): judging beside it would race it. */
function noKubeadmRunning(host: HostSpec): Step {
  return step(host.name, 'no-kubeadm-running', {
    title: t('No kubeadm of an interrupted run still running on {0}', host.name),
    why: t('A run killed during kubeadm upgrade leaves that kubeadm running until it next writes to the closed connection; a second one beside it would race it.'),
    check: sh`! pgrep -x kubeadm >/dev/null`,
    run: waitForKubeadmToExit(host),
  });
}

/**
 * `host`'s API server out of HAProxy on every balancer, and back once it answers /readyz itself at the target (the
 * shared steps of nodes/haproxyGates.ts). `occasion` keeps the keys of the two restarts apart (kubeadm's and the
 * kubelet's); `skip` says when the node needs no restart at all.
 */
function balancerStep(occasion: '' | 'kubelet-', host: HostSpec): MakeBalancerStep {
  return (b, key, rest) => step(b, `haproxy-${key}-${occasion}${host.name}`, rest);
}

function balancersOut(inv: Inventory, host: HostSpec, occasion: '' | 'kubelet-', skip: (values: RunValues) => boolean): Step[] {
  const restart = occasion ? t('its kubelet restarts (the new kubelet restarts the static pods\' containers)') : t('kubeadm restarts it');
  return sharedBalancersOut(inv, host, { step: balancerStep(occasion, host), restart, skipWhen: skip });
}

/** `host`'s API server back in HAProxy on every balancer once it answers /readyz itself (asked at its address). */
function balancersIn(inv: Inventory, host: HostSpec, occasion: '' | 'kubelet-', target: KubeVersion): Step[] {
  const v = formatVersion(target);
  return [
    step(host.name, `own-readyz${occasion ? '-kubelet' : ''}`, {
      title: t('{0}\'s own API server answers /readyz at {1} (asked at {2}, not through the VIP)', host.name, v, host.address),
      rerun: GATE,
      verify: ownApiServerReady(host.address, target),
      verifyTimeoutMs: 5 * 60_000,
    }),
    ...sharedBalancersIn(inv, host, { step: balancerStep(occasion, host) }),
  ];
}

/**
 * Before something restarts `host`'s etcd member (kubeadm's etcd phase, or the new kubelet restarting the static pods):
 * when it leads, the leadership goes to another member first. A leader that restarts leaves etcd without one until an
 * election, and every API server's requests wait on it meanwhile (seen on the lab: requests through the VIP timing out
 * while a control-plane kubelet restarted); a handed-over leadership takes no election.
 */
function leaderAway(inv: Inventory, host: HostSpec, occasion: '' | 'kubelet-', skip: (values: RunValues) => boolean, hooks: UpgradeHooks): Step[] {
  const move = hooks.moveEtcdLeader;
  if (!move) return [];
  const cps = hostsWithRole(inv, 'control-plane').map((h) => h.name);
  const upcoming = cps.slice(cps.indexOf(host.name) + 1);
  return [step(host.name, `etcd-leader-away-${occasion}${host.name}`, {
    title: t('etcd: when {0}\'s member leads, the leadership handed to another healthy voting member before its etcd restarts', host.name),
    why: t('A leader that restarts leaves etcd without one until an election, and every API server\'s requests wait on it; a handed-over leadership takes none.'),
    skipWhen: skip,
    check: memberFollowsCommand(),
    planDisplay: t('when this member leads: etcdctl move-leader <a healthy voting member, preferably one upgraded already>, then wait until it answers as the leader'),
    action: (_v, signal) => move(host.name, upcoming, signal),
  })];
}

function controlPlanePhase(inv: Inventory, host: HostSpec, index: number, target: KubeVersion, ignore: readonly string[], hooks: UpgradeHooks): PhasePlan {
  const first = hostsWithRole(inv, 'control-plane')[0]!;
  const v = formatVersion(target);
  // On the first node, `upgrade apply` is done only when its cluster-wide phases are too, not just its manifests.
  const upgraded = index === 0 ? and(staticPodsAtTarget(target), clusterConfigAtTarget(target)) : staticPodsAtTarget(target);
  const steps: Step[] = [
    noKubeadmRunning(host),
    step(host.name, 'at-target', {
      title: index === 0
        ? t('Are {0}\'s static pods and the kubeadm-config ClusterConfiguration at {1} already? (the HAProxy and kubeadm steps are skipped when they are)', host.name, v)
        : t('Are {0}\'s static pods at {1} already? (the HAProxy and kubeadm steps of a node at the target are skipped)', host.name, v),
      rerun: GATE,
      run: reportAtTarget(upgraded),
      capture: captureAtTarget(atTargetKey(host.name)),
    }),
    step(first.name, `etcd-before-${host.name}`, {
      title: t('etcd: {0}\'s member votes and every voting member is healthy, before its etcd restarts', host.name),
      about: host.name,
      why: t('kubeadm restarts the node\'s etcd member: with another member unhealthy, that restart could lose the quorum.'),
      rerun: GATE,
      verify: votingMemberHealthy(first, host),
      verifyTimeoutMs: 60_000,
    }),
    kubeadmPackageStep(host, target),
  ];
  if (index === 0) {
    steps.push(step(host.name, 'kubeadm-upgrade-plan', {
      title: t('kubeadm upgrade plan {0} (its output is shown; changes nothing)', v),
      why: t('kubeadm\'s own checks and the component versions it will move to, read before anything restarts.'),
      rerun: 'it only reads the cluster and prints kubeadm\'s plan',
      skipWhen: skipAtTarget(host.name),
      run: kubeadmUpgradePlan(target, ignore),
      timeoutMs: 5 * 60_000,
    }));
  }
  steps.push(...balancersOut(inv, host, '', skipAtTarget(host.name)));
  steps.push(...leaderAway(inv, host, '', skipAtTarget(host.name), hooks));
  steps.push(step(host.name, 'kubeadm-upgrade', {
    title: index === 0 ? `kubeadm upgrade apply ${v}` : 'kubeadm upgrade node',
    why: index === 0 ? t('Upgrades this node\'s static pods, the cluster\'s configuration and the CoreDNS and kube-proxy add-ons.') : t('Upgrades this node\'s static pods to the version the first node set in the cluster\'s configuration.'),
    check: upgraded,
    run: index === 0 ? kubeadmUpgradeApply(target, ignore) : kubeadmUpgradeNode(ignore),
    timeoutMs: 30 * 60_000,
  }));
  steps.push(...balancersIn(inv, host, '', target));
  steps.push(
    step(first.name, `etcd-after-${host.name}`, {
      title: t('etcd: {0}\'s member is back, voting, and every voting member is healthy', host.name),
      about: host.name,
      rerun: GATE,
      verify: votingMemberHealthy(first, host),
      verifyTimeoutMs: 3 * 60_000,
    }),
    step(first.name, `leases-after-${host.name}`, {
      title: LEADERS_TITLE(),
      about: host.name,
      why: LEADERS_WHY(),
      rerun: GATE,
      verify: leadersRenewing(),
      verifyTimeoutMs: 90_000,
    }),
  );
  if (index === hostsWithRole(inv, 'control-plane').length - 1) {
    steps.push(step(host.name, 'addons', {
      title: t('CoreDNS and kube-proxy at {0} (kubeadm upgrades them once every control-plane node is)', v),
      why: t('With other control-plane nodes at the old version, upgrade apply leaves the add-ons to the last node\'s upgrade node; a run stopped in it would leave them behind.'),
      check: addonsAtTarget(target),
      run: kubeadmUpgradeAddons(),
      verify: addonsAtTarget(target),
      verifyTimeoutMs: 60_000,
      timeoutMs: 5 * 60_000,
    }));
  }
  return { phase: 'upgrade', title: t('Upgrade the control plane on {0}', host.name), order: 'serial', steps, warnings: [] };
}

/** One node's kubelet: (worker: kubeadm and `kubeadm upgrade node`), drain, packages, restart, Ready at the target, uncordon. */
function kubeletSteps(inv: Inventory, host: HostSpec, worker: boolean, target: KubeVersion, hooks: UpgradeHooks, ignore: readonly string[], drainSeconds: number): Step[] {
  const v = formatVersion(target);
  const steps: Step[] = [];
  if (!worker) {
    steps.push(step(host.name, 'kubelet-at-target', {
      title: t('Is {0}\'s kubelet Ready at {1} already? (its HAProxy steps are skipped when it is)', host.name, v),
      rerun: GATE,
      run: reportAtTarget(nodeReadyAtTarget(host.name, target)),
      capture: captureAtTarget(kubeletAtTargetKey(host.name)),
    }));
  }
  if (worker) {
    steps.push(noKubeadmRunning(host), kubeadmPackageStep(host, target), step(host.name, 'kubeadm-upgrade-node', {
      title: t('kubeadm upgrade node (the kubelet configuration of the new version)'),
      check: nodeReportsTarget(host.name, target),
      run: kubeadmUpgradeNode(ignore),
      timeoutMs: 10 * 60_000,
    }));
  }
  if (!worker) {
    // The drain's guard refuses while another control-plane node is NotReady: wait for a transient one first.
    const cps = hostsWithRole(inv, 'control-plane').map((h) => h.name);
    steps.push(step(hostsWithRole(inv, 'control-plane')[0]!.name, `control-plane-ready-before-${host.name}`, {
      title: t('Every control-plane Node is Ready before {0} is drained', host.name),
      about: host.name,
      why: t('Draining a control-plane node takes one of them away; with another not Ready the drain refuses, and that can last seconds right after the node before it was upgraded.'),
      rerun: GATE,
      skipWhen: skipWhenYes(kubeletAtTargetKey(host.name)),
      verify: nodesReady(cps),
      verifyTimeoutMs: 3 * 60_000,
    }));
  }
  steps.push(
    step(host.name, 'drain', {
      title: t('Drain {0} (PodDisruptionBudgets honoured, {1} s at most)', host.name, drainSeconds),
      why: t('The kubelet restarts with a new version: its pods move first, within what the PodDisruptionBudgets allow.'),
      check: nodeReportsTarget(host.name, target),
      action: async (_v, signal) => hooks.drain(host.name, signal),
      planDisplay: t('cordon {0} and evict its pods through the Eviction API (DaemonSet pods stay; {1})', host.name, hooks.drainDeletesEmptyDirData ? t('pods with emptyDir volumes are evicted and that data is DELETED (--delete-emptydir-data)') : t('a pod with emptyDir data stops the drain: --delete-emptydir-data evicts it and deletes that data')),
    }),
    step(host.name, 'kubelet-package', {
      title: t('kubelet and kubectl {0}: unhold, upgrade, hold', v),
      check: packagesAtTarget(['kubelet', 'kubectl'], target),
      run: upgradePackages(['kubelet', 'kubectl'], target),
      timeoutMs: 10 * 60_000,
    }),
  );
  // A control-plane node's new kubelet restarts its static pods' containers, the API server's too (a request
  // through the VIP failed there on the lab): the node is out of HAProxy around it, as around kubeadm's restart.
  if (!worker) steps.push(...balancersOut(inv, host, 'kubelet-', skipWhenYes(kubeletAtTargetKey(host.name))), ...leaderAway(inv, host, 'kubelet-', skipWhenYes(kubeletAtTargetKey(host.name)), hooks));
  steps.push(
    step(host.name, 'kubelet-restart', {
      title: t('systemctl daemon-reload, restart kubelet; the Node is Ready at {0}', v),
      check: nodeReadyAtTarget(host.name, target),
      run: restartKubelet(),
      verify: nodeReadyAtTarget(host.name, target),
      verifyTimeoutMs: 3 * 60_000,
    }),
  );
  if (!worker) {
    steps.push(step(host.name, 'apiserver-settled-kubelet', {
      title: t('{0}\'s API server is the one the new kubelet keeps (restarted after it, or kept for {1} s)', host.name, KUBELET_FIRST_SYNC_SECONDS),
      why: t('The new kubelet restarts the static pods\' containers a few seconds after it starts: until then the API server that answers is the old one about to stop, and a node put back into HAProxy then would send clients to its next API server before that one can authorise them (a 403 seen by a client through the VIP).'),
      rerun: GATE,
      skipWhen: skipWhenYes(kubeletAtTargetKey(host.name)),
      verify: apiServerSettledAfterKubelet(),
      verifyTimeoutMs: 3 * 60_000,
    }));
    steps.push(...balancersIn(inv, host, 'kubelet-', target));
    // The new kubelet restarted etcd and the controllers too: the next node waits for them, as after kubeadm's restart.
    const first = hostsWithRole(inv, 'control-plane')[0]!;
    steps.push(
      step(first.name, `etcd-after-kubelet-${host.name}`, {
        title: t('etcd: {0}\'s member is back, voting, and every voting member is healthy', host.name),
        about: host.name,
        rerun: GATE,
        skipWhen: skipWhenYes(kubeletAtTargetKey(host.name)),
        verify: votingMemberHealthy(first, host),
        verifyTimeoutMs: 3 * 60_000,
      }),
      step(first.name, `leases-after-kubelet-${host.name}`, {
        title: LEADERS_TITLE(),
        about: host.name,
        why: LEADERS_WHY(),
        rerun: GATE,
        skipWhen: skipWhenYes(kubeletAtTargetKey(host.name)),
        verify: leadersRenewing(),
        verifyTimeoutMs: 90_000,
      }),
    );
  }
  steps.push(
    step(host.name, 'uncordon', {
      title: t('Uncordon {0}', host.name),
      check: nodeSchedulable(host.name),
      action: async (_v, signal) => hooks.uncordon(host.name, signal),
      planDisplay: t('uncordon {0} through the API', host.name),
      verify: nodeSchedulable(host.name),
      verifyTimeoutMs: 30_000,
    }),
  );
  return steps;
}

export function buildUpgradePlan(input: UpgradePlanInput, hooks: UpgradeHooks): Plan {
  const { inventory: inv, target } = input;
  const cps = hostsWithRole(inv, 'control-plane');
  const workers = hostsWithRole(inv, 'worker').filter((h) => !h.roles.includes('control-plane'));
  if (!cps.length) throw new Error(t('the inventory has no control-plane host'));
  const maxUnavailable = Math.max(1, Math.floor(input.maxUnavailable ?? 1));
  const drainSeconds = input.drainTimeoutSeconds ?? DEFAULT_DRAIN_TIMEOUT_SECONDS;
  const ignore = inv.cluster.ignorePreflightErrors ?? [];
  const phases: PhasePlan[] = [snapshotPhase(cps[0]!, target, hooks), packageSourcePhase([...cps, ...workers], target, input.source)];
  cps.forEach((h, i) => phases.push(controlPlanePhase(inv, h, i, target, ignore, hooks)));
  for (const h of cps) {
    phases.push({ phase: 'upgrade', title: t('Upgrade the kubelet on {0}', h.name), order: 'serial', warnings: [], steps: kubeletSteps(inv, h, false, target, hooks, ignore, drainSeconds) });
  }
  for (let i = 0; i < workers.length; i += maxUnavailable) {
    const group = workers.slice(i, i + maxUnavailable);
    phases.push({
      phase: 'upgrade', title: t('Upgrade the kubelet on {0}', group.map((g) => g.name).join(', ')), order: 'parallel', warnings: [],
      steps: group.flatMap((h) => kubeletSteps(inv, h, true, target, hooks, ignore, drainSeconds)),
    });
  }
  phases.push({
    phase: 'upgrade', title: t('kubeadm\'s backups in /etc/kubernetes/tmp (kept; remove them once the cluster works)'), order: 'parallel', warnings: [],
    steps: cps.map((h) => step(h.name, 'kubeadm-backups', { title: t('List kubeadm\'s backups of manifests and etcd data'), rerun: 'it only lists files', run: listKubeadmBackups() })),
  });
  return { fingerprint: `upgrade:${inv.cluster.name}:${formatVersion(target)}:${maxUnavailable}`, phases };
}

/** The version changes the plan makes, in its order: what `skewAlongPlan` walks. */
export function versionChanges(plan: Plan): VersionChange[] {
  const out: VersionChange[] = [];
  for (const s of plan.phases.flatMap((p) => p.steps)) {
    if (s.id.endsWith('/kubeadm-upgrade')) out.push({ kind: 'apiserver', node: s.host, stepId: s.id });
    if (s.id.endsWith('/kubelet-restart')) out.push({ kind: 'kubelet', node: s.host, stepId: s.id });
  }
  return out;
}
