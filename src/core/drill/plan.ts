/**
 * A failure drill's plan, made from a read-only snapshot of the cluster before anything breaks: which
 * node, how it fails (`stop` over SSH, or `power-off` through the user's own hypervisor command), how it
 * comes back, what is polled where, what each measurement should show given the cluster's settings,
 * and whether the drill may run at all — it refuses when the cluster could not take the failure (etcd
 * would lose quorum, another control-plane node or HAProxy backend is already down) or when the node
 * could not be brought back.
 */
import { hostsWithRole, type HostSpec, type Inventory } from '../inventory/types';
import { checkControlPlaneDrain, holderNode, type ControlPlaneMember } from '../drain/controlPlaneGuard';
import type { EtcdModel } from '../live/etcd';
import { hostForNode, nodeReadiness } from '../live/controlPlane';
import type { Lease, Node } from '../live/types';
import type { RemoteCommand, SudoOptions } from '../ssh/command';
import { asRoot, startNodeCommand, stopNodeCommand, type HaproxyProbeMethod } from './commands';
import {
  apiExpectation,
  etcdLeaderExpectation,
  evictionExpectations,
  taintDelaySeconds,
  EVICTION_SLACK_SECONDS,
  haproxyDownExpectation,
  haproxyUpExpectation,
  leaseExpectation,
  notReadyExpectation,
  quorumText,
  recoveryExpectations,
  type Expectation,
  type FaultKind,
} from './expect';
import { isUp, type ServerState } from './haproxyState';
import { powerCommands, userCommand, type LocalCommand } from './localCommand';
import { clusterTimings, serversFor, type ClusterTimings, type ComponentArgs, type HaproxyCfgInfo, type HaproxyCheckParams } from './params';
import { buildBalancerDrillPlan, vrrpPlanLines, type VrrpDrillPlan, type VrrpSnapshot } from './balancerPlan';
import { healCommand, partitionCutCommand } from './faults';

export type { FaultKind } from './expect';
export type DrillRole = 'control-plane' | 'worker' | 'loadbalancer';

export interface DrillRequest {
  host: string;
  kind: FaultKind;
  /** Templates with {host} / {address}, run locally without a shell (power-off only). */
  powerOffCommand?: string | undefined;
  powerOnCommand?: string | undefined;
  /** How long after NotReady to wait for taint-based evictions (0: do not wait). */
  evictionWaitSeconds?: number | undefined;
  /** Longest observation of the failure (default: the NotReady bound + 30 s). */
  observeSeconds?: number | undefined;
  /** Longest wait for the node to come back (default 300 s). */
  restoreSeconds?: number | undefined;
  /** Poll interval of the SSH and API probes (default 1000 ms; the API probe runs twice as often). */
  pollMs?: number | undefined;
  /**
   * partition: templates with {host} / {address} that cut the node's network and heal it, run locally without a
   * shell (your switch, hypervisor or cloud firewall); without them the cut is an nftables table over SSH that heals
   * itself after a while (src/core/drill/faults.ts).
   */
  cutCommand?: string | undefined;
  healCommand?: string | undefined;
}

/** Whether the fault is made over SSH on the host it fails (the preflight must pass there); power-off and a cut by your own commands are not. */
export function faultActsOverSsh(req: Pick<DrillRequest, 'kind' | 'cutCommand' | 'healCommand'>): boolean {
  if (req.kind === 'power-off') return false;
  return req.kind !== 'partition' || !(req.cutCommand && req.healCommand);
}

/** A pod on the target node, as the API returns it (only the fields the drill reads). */
export interface DrillPodJson {
  metadata: { name: string; namespace?: string; deletionTimestamp?: string; annotations?: Record<string, string>; ownerReferences?: { kind: string; name: string; controller?: boolean }[] };
  spec?: { nodeName?: string; tolerations?: { key?: string; operator?: string; effect?: string; tolerationSeconds?: number }[] };
  status?: { phase?: string };
}

export interface BalancerSnapshot {
  host: string;
  cfg?: HaproxyCfgInfo | undefined;
  method?: HaproxyProbeMethod | undefined;
  /** The balancer's clock when it was asked (journal fallback reads lines from then on). */
  clockEpoch?: number | undefined;
  /** Current state per `backend/server`, when the admin socket could be read. */
  states?: Record<string, ServerState> | undefined;
  error?: string | undefined;
}

export interface DrillSnapshot {
  apiServer: string;
  nodes: Node[];
  leaderLeases: Lease[];
  kubeVersion?: string | undefined;
  componentArgs: ComponentArgs;
  etcd?: EtcdModel | undefined;
  etcdError?: string | undefined;
  balancers: BalancerSnapshot[];
  /** Pods bound to the target node. */
  pods: DrillPodJson[];
  /** ReplicaSets owning the target's evictable pods: `ns/name` → desired replicas. */
  replicaSets: { key: string; desired: number }[];
  /** `stop`: whether kubelet runs and crictl exists on the target; `partition` and `split-brain` over SSH: whether nft can cut it. */
  targetCheck?: { ok: boolean; detail: string } | undefined;
  /** Balancer drills: the balancers as the live view reads them, their keepalived.conf and the node that watches the VIP's ARP entry. */
  vrrp?: VrrpSnapshot | undefined;
}

export type DrillAction = { where: 'ssh'; host: string; title: string; command: RemoteCommand } | { where: 'local'; title: string; command: LocalCommand };

export interface BalancerProbe {
  host: string;
  backend: string;
  server: string;
  /** The server's port in the backend: where the target's own API server listens. */
  port: number | undefined;
  params: HaproxyCheckParams;
  method: HaproxyProbeMethod;
  socket: string;
  sinceEpoch: number;
}

export interface DrillPlan {
  cluster: string;
  apiServer: string;
  kubeVersion: string | undefined;
  target: { host: string; node: string; address: string; role: DrillRole };
  kind: FaultKind;
  fault: DrillAction | undefined;
  restore: DrillAction | undefined;
  balancers: BalancerProbe[];
  etcd:
    | {
        targetMember: string | undefined;
        leader: string | undefined;
        term: number | undefined;
        names: Record<string, string>;
        /** Control-plane hosts whose etcd the drill polls (never the target). */
        survivors: string[];
        quorum: string;
      }
    | undefined;
  leases: { name: string; holder: string | undefined; holderNode: string | undefined; onTarget: boolean; durationSeconds: number }[];
  evictable: { key: string; tolerationSeconds: number | undefined; owner: string | undefined }[];
  /** Keys of the evictable pods the drill waits for: their tolerationSeconds fit in the eviction wait. */
  awaited: string[];
  /** The ReplicaSets owning the awaited pods (their way back to full strength is measured). */
  replicaSets: { key: string; desired: number }[];
  timings: ClusterTimings;
  expectations: Expectation[];
  limits: { observeSeconds: number; evictionWaitSeconds: number; restoreSeconds: number; pollMs: number };
  /** Balancer drills: the VRRP pair as it runs and what is watched (./balancerPlan.ts). */
  vrrp?: VrrpDrillPlan | undefined;
  /** Reasons the drill must not start. */
  refusals: string[];
  warnings: string[];
}

const UNREACHABLE = 'node.kubernetes.io/unreachable';

function tolerationSecondsFor(pod: DrillPodJson, key: string): number | undefined | 'none' {
  const t = (pod.spec?.tolerations ?? []).filter((x) => (x.effect === 'NoExecute' || !x.effect) && (x.operator === 'Exists' ? !x.key || x.key === key : x.key === key));
  if (!t.length) return 'none';
  const finite = t.map((x) => x.tolerationSeconds);
  if (finite.some((x) => x === undefined)) return undefined;
  return Math.min(...(finite as number[]));
}

/** Pods that taint-based eviction removes from an unreachable node: not DaemonSet pods, not mirror pods, not finished. */
export function evictablePods(pods: DrillPodJson[]): { key: string; tolerationSeconds: number | undefined; owner: string | undefined }[] {
  return pods
    .filter((p) => !p.metadata.annotations?.['kubernetes.io/config.mirror'])
    .filter((p) => !(p.metadata.ownerReferences ?? []).some((o) => o.kind === 'DaemonSet'))
    .filter((p) => p.status?.phase !== 'Succeeded' && p.status?.phase !== 'Failed' && !p.metadata.deletionTimestamp)
    .map((p) => {
      const t = tolerationSecondsFor(p, UNREACHABLE);
      const owner = (p.metadata.ownerReferences ?? []).find((o) => o.controller !== false);
      // No toleration at all: evicted as soon as the taint lands (0 s).
      return { key: `${p.metadata.namespace ?? 'default'}/${p.metadata.name}`, tolerationSeconds: t === 'none' ? 0 : t, owner: owner ? `${owner.kind}/${owner.name}` : undefined };
    });
}

function nodeFor(snapshot: DrillSnapshot, inv: Inventory, host: HostSpec): Node | undefined {
  return snapshot.nodes.find((n) => hostForNode(inv, n.metadata.name, n)?.name === host.name);
}

function defaultSocket(cfg: HaproxyCfgInfo | undefined): string {
  return cfg?.statsSocket ?? '/run/haproxy/admin.sock';
}

export function buildDrillPlan(inv: Inventory, req: DrillRequest, snapshot: DrillSnapshot, become: (host: string) => SudoOptions | undefined = () => undefined): DrillPlan {
  const refusals: string[] = [];
  const warnings: string[] = [];
  const host = inv.hosts.find((h) => h.name === req.host);
  const pollMs = Math.max(250, req.pollMs ?? 1000);
  const evictionWaitSeconds = Math.max(0, Math.min(req.evictionWaitSeconds ?? 0, 1800));
  const restoreSeconds = Math.max(30, req.restoreSeconds ?? 300);
  const timings = clusterTimings({ ...snapshot.componentArgs, kubeVersion: snapshot.kubeVersion });
  const role: DrillRole = host?.roles.includes('control-plane') ? 'control-plane' : 'worker';
  const empty = (why: string): DrillPlan => ({
    cluster: inv.cluster.name,
    apiServer: snapshot.apiServer,
    kubeVersion: snapshot.kubeVersion,
    target: { host: req.host, node: req.host, address: host?.address ?? '?', role },
    kind: req.kind,
    fault: undefined,
    restore: undefined,
    balancers: [],
    etcd: undefined,
    leases: [],
    evictable: [],
    awaited: [],
    replicaSets: [],
    timings,
    expectations: [],
    limits: { observeSeconds: 0, evictionWaitSeconds, restoreSeconds, pollMs },
    refusals: [why],
    warnings,
  });
  if (!host) return empty(`no host named ${req.host} in the inventory`);
  if (!host.roles.includes('control-plane') && !host.roles.includes('worker')) {
    if (host.roles.includes('loadbalancer')) return buildBalancerDrillPlan(inv, req, snapshot, empty, become);
    return empty(`${host.name} is neither a control-plane node, a worker nor a balancer (roles ${host.roles.join(', ')})`);
  }
  if (req.kind === 'haproxy' || req.kind === 'split-brain') return empty(`${req.kind} is a balancer drill; ${host.name} is a ${role === 'control-plane' ? 'control-plane node' : 'worker'} (its drills: stop, power-off, partition)`);
  const node = nodeFor(snapshot, inv, host);
  if (!node) return empty(`${host.name} has no Node in the cluster (${snapshot.apiServer})`);
  const nodeName = node.metadata.name;
  const readiness = nodeReadiness(node).readiness;
  if (readiness !== 'Ready') refusals.push(`${nodeName} is ${readiness} already: a drill starts from a healthy node`);

  // ---- the fault and its undoing
  let fault: DrillAction | undefined;
  let restore: DrillAction | undefined;
  if (req.kind === 'stop') {
    fault = { where: 'ssh', host: host.name, title: `stop kubelet and kill every container on ${host.name} (the host stays up)`, command: asRoot(stopNodeCommand(), become(host.name)) };
    restore = { where: 'ssh', host: host.name, title: `start containerd and kubelet on ${host.name}`, command: asRoot(startNodeCommand(), become(host.name)) };
    if (snapshot.targetCheck && !snapshot.targetCheck.ok) refusals.push(`${host.name}: ${snapshot.targetCheck.detail}`);
  } else if (req.kind === 'partition') {
    ({ fault, restore } = partitionActions(req, host, become, refusals, snapshot.targetCheck, (req.observeSeconds ?? timings.nodeMonitorGraceMs / 1000 + 90) + 120));
  } else {
    const vars = { host: host.name, address: host.address };
    const { off, on } = powerCommands(req, vars, refusals);
    if (off) fault = { where: 'local', title: `power ${host.name} off`, command: off };
    if (on) restore = { where: 'local', title: `power ${host.name} on`, command: on };
  }

  // ---- HAProxy
  const slack = pollMs / 1000 + 1.5;
  const balancers: BalancerProbe[] = [];
  const expectations: Expectation[] = [];
  if (role === 'control-plane') {
    const lbs = hostsWithRole(inv, 'loadbalancer');
    if (!lbs.length) warnings.push('the inventory has no load balancer: HAProxy is not measured');
    for (const lb of lbs) {
      const b = snapshot.balancers.find((x) => x.host === lb.name);
      if (!b || b.error || !b.cfg) {
        refusals.push(`cannot read HAProxy on ${lb.name}: ${b?.error ?? 'not asked'}`);
        continue;
      }
      const refs = serversFor(b.cfg, host);
      if (!refs.length) {
        warnings.push(`${lb.name}'s haproxy.cfg has no server for ${host.name} (${host.address}): nothing to measure there`);
        continue;
      }
      for (const ref of refs) {
        // Every other server of the backend must be UP, or the API would lose its last backend.
        for (const other of b.cfg.servers.filter((s) => s.backend === ref.backend && s.server !== ref.server)) {
          const st = b.states?.[`${other.backend}/${other.server}`];
          if (st && !isUp(st.status)) refusals.push(`HAProxy on ${lb.name}: ${other.backend}/${other.server} is ${st.status}; fix it before failing ${host.name}`);
        }
        const own = b.states?.[`${ref.backend}/${ref.server}`];
        if (own && !isUp(own.status)) refusals.push(`HAProxy on ${lb.name}: ${ref.backend}/${ref.server} is ${own.status} already`);
      }
      const ref = refs[0]!;
      if (b.method === 'journal') warnings.push(`${lb.name}: neither socat nor perl can reach HAProxy's admin socket; its DOWN/UP moments come from the journal (less precise)`);
      balancers.push({ host: lb.name, backend: ref.backend, server: ref.server, port: ref.port, params: ref.params, method: b.method ?? 'journal', socket: defaultSocket(b.cfg), sinceEpoch: b.clockEpoch ?? Math.floor(Date.now() / 1000) });
      expectations.push(haproxyDownExpectation(lb.name, ref.server, ref.params, req.kind, slack));
    }
  }
  expectations.push(apiExpectation(role));

  // ---- etcd and the control-plane guard
  let etcd: DrillPlan['etcd'];
  const leaderLeases = snapshot.leaderLeases.map((l) => ({
    name: l.metadata.name,
    holder: l.spec?.holderIdentity,
    holderNode: l.spec?.holderIdentity ? holderNode(l.spec.holderIdentity) : undefined,
    onTarget: !!l.spec?.holderIdentity && holderNode(l.spec.holderIdentity) === nodeName,
    durationSeconds: l.spec?.leaseDurationSeconds ?? 15,
  }));
  if (role === 'control-plane') {
    const cps = hostsWithRole(inv, 'control-plane');
    if (!snapshot.etcd) refusals.push(`cannot verify etcd quorum: ${snapshot.etcdError ?? 'etcd not read'}`);
    else {
      const model = snapshot.etcd;
      const memberOf = (h: HostSpec) => model.members.find((m) => m.host === h.name);
      const members: ControlPlaneMember[] = cps.map((h) => {
        const n = nodeFor(snapshot, inv, h);
        return { nodeName: n?.metadata.name ?? h.name, nodeReady: nodeReadiness(n).readiness === 'Ready', etcdHealthy: !!memberOf(h)?.healthy };
      });
      const verdict = checkControlPlaneDrain(nodeName, members, snapshot.leaderLeases.map((l) => ({ namespace: 'kube-system', name: l.metadata.name, holder: l.spec?.holderIdentity ?? '' })));
      if (!verdict.ok) refusals.push(...verdict.reasons);
      else warnings.push(...verdict.warnings);
      const target = memberOf(host);
      if (!target) warnings.push(`no etcd member maps to ${host.name}: its failure is not an etcd failure`);
      const survivors = cps.filter((h) => h.name !== host.name && memberOf(h)?.healthy).map((h) => h.name);
      const leader = model.members.find((m) => m.isLeader);
      etcd = {
        targetMember: target?.id,
        leader: model.leaderId,
        term: leader?.raftTerm ?? Math.max(...model.members.map((m) => m.raftTerm ?? 0)),
        names: Object.fromEntries(model.members.map((m) => [m.id, m.host ?? m.name])),
        survivors,
        quorum: quorumText(model.voting, model.healthyVoting, !!target?.healthy && !target.isLearner),
      };
      expectations.push(etcdLeaderExpectation(timings, !!target && target.id === model.leaderId, slack));
    }
    for (const l of leaderLeases) expectations.push(leaseExpectation(l.name, l.durationSeconds, timings, l.onTarget, l.holderNode, slack));
  }
  const cmLease = role === 'control-plane' ? leaderLeases.find((l) => l.name === 'kube-controller-manager' && l.onTarget) : undefined;
  const cmHandover = cmLease ? leaseExpectation(cmLease.name, cmLease.durationSeconds, timings, true, cmLease.holderNode, 0) : undefined;
  const notReady = notReadyExpectation(timings, slack, cmHandover ? { min: cmHandover.min ?? 0, max: cmHandover.max ?? 0 } : undefined);
  expectations.push(notReady);

  // ---- pods on the node (taint-based eviction): waited for when their toleration fits in the wait
  const evictable = evictablePods(snapshot.pods);
  // a pod is waited for when its eviction fits in the wait after NotReady even with the taint as late as it may come,
  // and seen by the pods' poll (every two intervals) before the wait ends
  const evictionMargin = taintDelaySeconds(timings) + EVICTION_SLACK_SECONDS + (2 * pollMs) / 1000;
  const fits = (p: (typeof evictable)[number]) => evictionWaitSeconds > 0 && p.tolerationSeconds !== undefined && p.tolerationSeconds + evictionMargin <= evictionWaitSeconds;
  const awaited = evictable.filter(fits);
  expectations.push(...evictionExpectations(timings, awaited.map((p) => p.tolerationSeconds!), evictable.filter((p) => !fits(p)).map((p) => p.tolerationSeconds), slack));
  const awaitedOwners = new Set(awaited.filter((p) => p.owner?.startsWith('ReplicaSet/')).map((p) => `${p.key.split('/')[0]}/${p.owner!.slice('ReplicaSet/'.length)}`));
  const replicaSets = snapshot.replicaSets.filter((r) => awaitedOwners.has(r.key));
  if (evictionWaitSeconds > 0 && !awaited.length) {
    warnings.push(
      !Number.isFinite(evictionMargin)
        ? 'kube-controller-manager runs with --node-eviction-rate 0: it taints no node NoExecute, so there are no evictions to wait for'
        : evictable.length
        ? `no pod on ${nodeName} tolerates the unreachable taint for less than the ${evictionWaitSeconds} s eviction wait (−${evictionMargin} s for the taint and the controller): the drill reports when they would go`
        : `no pod on ${nodeName} can be evicted (only DaemonSet and static pods): there are no evictions to wait for`,
    );
  }
  if (awaited.length) {
    const readyWorkers = snapshot.nodes.filter((n) => n.metadata.name !== nodeName && nodeReadiness(n).readiness === 'Ready' && !n.spec?.unschedulable && !(n.spec?.taints ?? []).some((t) => t.effect === 'NoSchedule'));
    if (!readyWorkers.length) warnings.push('no other Ready, schedulable node without NoSchedule taints: evicted pods will have nowhere to go');
  }
  for (const n of snapshot.nodes) if (n.metadata.name !== nodeName && nodeReadiness(n).readiness !== 'Ready') warnings.push(`node ${n.metadata.name} is ${nodeReadiness(n).readiness} before the drill`);

  expectations.push(...recoveryExpectations(role, restoreSeconds));
  for (const b of balancers) expectations.push(haproxyUpExpectation(b.host, b.server, b.params, restoreSeconds, slack));

  const notReadyMax = notReady.max ?? 60;
  const observeSeconds = Math.max(20, req.observeSeconds ?? Math.ceil(notReadyMax + 30));
  const endpoint = inv.cluster.controlPlaneEndpoint.replace(/^\[|\](?=:)/g, '');
  if (!snapshot.apiServer.includes(endpoint)) warnings.push(`the kubeconfig's server is ${snapshot.apiServer}, not the inventory's controlPlaneEndpoint ${inv.cluster.controlPlaneEndpoint}: the API is measured through that server`);

  return {
    cluster: inv.cluster.name,
    apiServer: snapshot.apiServer,
    kubeVersion: snapshot.kubeVersion,
    target: { host: host.name, node: nodeName, address: host.address, role },
    kind: req.kind,
    fault,
    restore,
    balancers,
    etcd,
    leases: role === 'control-plane' ? leaderLeases : [],
    evictable,
    awaited: awaited.map((p) => p.key),
    replicaSets,
    timings,
    expectations,
    limits: { observeSeconds, evictionWaitSeconds, restoreSeconds, pollMs },
    refusals,
    warnings,
  };
}

/**
 * The partition's cut and heal: the user's own commands (local, no shell) when given — a switch port, a hypervisor's
 * link, a cloud security group — else an nftables table over SSH that keeps this SSH session and heals itself after
 * `healAfterSeconds` whatever becomes of the drill (./faults.ts).
 */
function partitionActions(req: DrillRequest, host: HostSpec, become: (host: string) => SudoOptions | undefined, refusals: string[], check: DrillSnapshot['targetCheck'], healAfterSeconds: number): { fault: DrillAction | undefined; restore: DrillAction | undefined } {
  if (req.cutCommand?.trim() || req.healCommand?.trim()) {
    const vars = { host: host.name, address: host.address };
    const missing = (what: string) => `a partition with your own commands needs both: the ${what} command is missing (a template with {host} or {address})`;
    const cut = userCommand(req.cutCommand, vars, 'cut', missing('cut'), refusals);
    const heal = userCommand(req.healCommand, vars, 'heal', missing('heal'), refusals);
    return { fault: cut && { where: 'local', title: `cut ${host.name}'s network`, command: cut }, restore: heal && { where: 'local', title: `heal ${host.name}'s network`, command: heal } };
  }
  if (check && !check.ok) refusals.push(`${host.name}: ${check.detail}`);
  return {
    fault: { where: 'ssh', host: host.name, title: `cut ${host.name}'s network in both directions with nftables (the machine keeps running; this SSH session stays; it heals itself after ${Math.round(healAfterSeconds)} s)`, command: asRoot(partitionCutCommand(healAfterSeconds), become(host.name)) },
    restore: { where: 'ssh', host: host.name, title: `heal ${host.name}'s network (delete the drill's nftables table)`, command: asRoot(healCommand(), become(host.name)) },
  };
}

export function actionDisplay(a: DrillAction | undefined): string {
  if (!a) return '(none)';
  return a.where === 'ssh' ? `ssh ${a.host}: ${a.command.display}` : `local: ${a.command.display}`;
}

function range(e: Expectation): string {
  if (e.min !== undefined && e.max !== undefined) return `${e.min}–${e.max} s`;
  if (e.max !== undefined) return `≤ ${e.max} s`;
  return '—';
}

/** The plan as Markdown: shown before the modal (editor) or the [y/N] question (CLI). */
export function renderDrillPlan(p: DrillPlan): string {
  const roleText = p.target.role === 'control-plane' ? 'control-plane node' : p.target.role === 'loadbalancer' ? 'balancer' : 'worker';
  const lb = p.target.role === 'loadbalancer';
  const out: string[] = [
    `# Failure drill: ${p.kind} ${p.target.host} (${roleText})`,
    '',
    `Cluster ${p.cluster} · API ${p.apiServer}${p.kubeVersion ? ` · Kubernetes ${p.kubeVersion}` : ''} · ${lb ? 'Balancer' : 'Node'} ${p.target.node} (${p.target.address})`,
    '',
  ];
  if (p.refusals.length) out.push('## REFUSED — nothing will be done', '', ...p.refusals.map((r) => `- ${r}`), '');
  out.push(
    '## What happens',
    '',
    `1. **Fault** — ${p.fault?.title ?? '(none)'}: \`${actionDisplay(p.fault)}\``,
    `2. **Observe** for up to ${p.limits.observeSeconds} s${p.limits.evictionWaitSeconds ? ` (+ up to ${p.limits.evictionWaitSeconds} s after NotReady for evictions)` : ''}, polling every ${p.limits.pollMs / 1000} s: ${probeList(p)}.`,
    `3. **Restore** — always, also after an error or a cancel — ${p.restore?.title ?? '(none)'}: \`${actionDisplay(p.restore)}\``,
    lb
      ? `4. **Watch the way back** for up to ${p.limits.restoreSeconds} s: ${p.kind === 'split-brain' ? 'one MASTER again' : p.vrrp && p.vrrp.sides.find((s) => s.host === p.target.host)?.preempt === false ? 'the VIP stays where it went (nopreempt)' : `the VIP back on ${p.target.host} (preempt)`}, and the requests that fail meanwhile.`
      : `4. **Watch it come back** for up to ${p.limits.restoreSeconds} s: Node Ready${p.target.role === 'control-plane' ? ', etcd member back and caught up, HAProxy backend UP' : ''}${p.awaited.length ? ', evicted pods cleaned up' : ''}.`,
    '',
  );
  out.push('## Safety', '');
  if (p.etcd) out.push(`- ${p.etcd.quorum}`, `- etcd leader now: ${p.etcd.leader ? (p.etcd.names[p.etcd.leader] ?? p.etcd.leader) : '?'} (term ${p.etcd.term ?? '?'})${p.etcd.leader && p.etcd.leader === p.etcd.targetMember ? ' — the failed node is the leader: a new one will be elected' : ''}`);
  for (const l of p.leases) out.push(`- ${l.name} lease: held by ${l.holderNode ?? 'nobody'}${l.onTarget ? ' — the failed node: it will move' : ''}`);
  if (p.target.role === 'worker' || p.evictable.length) {
    const tol = [...new Set(p.evictable.map((e) => (e.tolerationSeconds === undefined ? 'forever' : `${e.tolerationSeconds} s`)))].join(', ');
    out.push(`- ${p.evictable.length} evictable pod(s) on ${p.target.node}${p.evictable.length ? ` (tolerate unreachable: ${tol})` : ''}; the drill waits for the eviction of ${p.awaited.length ? `${p.awaited.length}: ${p.awaited.join(', ')}` : 'none'}`);
  }
  out.push(...vrrpPlanLines(p));
  for (const w of p.warnings) out.push(`- ⚠ ${w}`);
  out.push('', '## Expected (from this cluster\'s settings)', '', '| measurement | expected | why |', '| --- | --- | --- |');
  for (const e of p.expectations) out.push(`| ${e.title} | ${range(e)} | ${e.basis.replace(/\|/g, '\\|')} |`);
  out.push('');
  return out.join('\n');
}

function probeList(p: DrillPlan): string {
  const parts: string[] = [`the API through ${p.apiServer} (new connection per request, every ${p.limits.pollMs / 2000} s)`];
  if (p.vrrp) parts.push(`the VIP on every balancer (every ${p.vrrp.vipPollMs / 1000} s)`, ...(p.vrrp.neighbour ? [`${p.vrrp.neighbour}'s ARP entry for it`] : []), `the balancers as the Inventory view and \`status\` read them (every ${p.vrrp.verdictPollMs / 1000} s)`);
  else parts.push(`Node ${p.target.node}`);
  for (const b of p.balancers) parts.push(`HAProxy on ${b.host} (${b.method === 'journal' ? 'journal' : `${b.method} → ${b.socket}`})`);
  if (p.etcd) parts.push(`etcd on ${p.etcd.survivors.join(', ')}`);
  if (p.leases.length) parts.push('the leader Leases');
  if (p.awaited.length) parts.push(`pods on ${p.target.node}`);
  return parts.join(', ');
}
