/**
 * A failure drill's plan, made from a read-only snapshot of the cluster before anything breaks: which
 * node, how it fails (`stop` over SSH, or `power-off` through the user's own hypervisor command), how it
 * comes back, what is polled where, what each measurement should show given the cluster's settings,
 * and whether the drill may run at all — it refuses when the cluster could not take the failure (etcd
 * would lose quorum, another control-plane node or HAProxy backend is already down) or when the node
 * could not be brought back.
 */
import { hostsWithRole, isKubernetesHost, type HostSpec, type Inventory } from '../inventory/types';
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
import { catalogueLanguage, inEnglish, t } from '../l10n';

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
  /**
   * The same plan in English when the catalogue speaks another language: the report made from it is what `drill
   * --json` prints, whose text scripts match (./report.ts).
   */
  english?: DrillPlan | undefined;
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
  const plan = planFor(inv, req, snapshot, become);
  if (catalogueLanguage() !== 'en') plan.english = inEnglish(() => planFor(inv, req, snapshot, become));
  return plan;
}

/** The plan in the catalogue's language. */
function planFor(inv: Inventory, req: DrillRequest, snapshot: DrillSnapshot, become: (host: string) => SudoOptions | undefined): DrillPlan {
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
  if (!host) return empty(t('no host named {0} in the inventory', req.host));
  if (!isKubernetesHost(host)) {
    if (host.roles.includes('loadbalancer')) return buildBalancerDrillPlan(inv, req, snapshot, empty, become);
    return empty(t('{0} is neither a control-plane node, a worker nor a balancer (roles {1})', host.name, host.roles.join(', ')));
  }
  if (req.kind === 'haproxy' || req.kind === 'split-brain') return empty(role === 'control-plane' ? t('{0} is a balancer drill; {1} is a control-plane node (its drills: stop, power-off, partition)', req.kind, host.name) : t('{0} is a balancer drill; {1} is a worker (its drills: stop, power-off, partition)', req.kind, host.name));
  const node = nodeFor(snapshot, inv, host);
  if (!node) return empty(t('{0} has no Node in the cluster ({1})', host.name, snapshot.apiServer));
  const nodeName = node.metadata.name;
  const readiness = nodeReadiness(node).readiness;
  if (readiness !== 'Ready') refusals.push(t('{0} is {1} already: a drill starts from a healthy node', nodeName, readiness));

  // ---- the fault and its undoing
  let fault: DrillAction | undefined;
  let restore: DrillAction | undefined;
  if (req.kind === 'stop') {
    fault = { where: 'ssh', host: host.name, title: t('stop kubelet and kill every container on {0} (the host stays up)', host.name), command: asRoot(stopNodeCommand(), become(host.name)) };
    restore = { where: 'ssh', host: host.name, title: t('start containerd and kubelet on {0}', host.name), command: asRoot(startNodeCommand(), become(host.name)) };
    if (snapshot.targetCheck && !snapshot.targetCheck.ok) refusals.push(`${host.name}: ${snapshot.targetCheck.detail}`);
  } else if (req.kind === 'partition') {
    ({ fault, restore } = partitionActions(req, host, become, refusals, snapshot.targetCheck, (req.observeSeconds ?? timings.nodeMonitorGraceMs / 1000 + 90) + 120));
  } else {
    const vars = { host: host.name, address: host.address };
    const { off, on } = powerCommands(req, vars, refusals);
    if (off) fault = { where: 'local', title: t('power {0} off', host.name), command: off };
    if (on) restore = { where: 'local', title: t('power {0} on', host.name), command: on };
  }

  // ---- HAProxy
  const slack = pollMs / 1000 + 1.5;
  const balancers: BalancerProbe[] = [];
  const expectations: Expectation[] = [];
  if (role === 'control-plane') {
    const lbs = hostsWithRole(inv, 'loadbalancer');
    if (!lbs.length) warnings.push(t('the inventory has no load balancer: HAProxy is not measured'));
    for (const lb of lbs) {
      const b = snapshot.balancers.find((x) => x.host === lb.name);
      if (!b || b.error || !b.cfg) {
        refusals.push(t('cannot read HAProxy on {0}: {1}', lb.name, b?.error ?? t('not asked')));
        continue;
      }
      const refs = serversFor(b.cfg, host);
      if (!refs.length) {
        warnings.push(t("{0}'s haproxy.cfg has no server for {1} ({2}): nothing to measure there", lb.name, host.name, host.address));
        continue;
      }
      for (const ref of refs) {
        // Every other server of the backend must be UP, or the API would lose its last backend.
        for (const other of b.cfg.servers.filter((s) => s.backend === ref.backend && s.server !== ref.server)) {
          const st = b.states?.[`${other.backend}/${other.server}`];
          if (st && !isUp(st.status)) refusals.push(t('HAProxy on {0}: {1} is {2}; fix it before failing {3}', lb.name, `${other.backend}/${other.server}`, st.status, host.name));
        }
        const own = b.states?.[`${ref.backend}/${ref.server}`];
        if (own && !isUp(own.status)) refusals.push(t('HAProxy on {0}: {1} is {2} already', lb.name, `${ref.backend}/${ref.server}`, own.status));
      }
      const ref = refs[0]!;
      if (b.method === 'journal') warnings.push(t("{0}: neither socat nor perl can reach HAProxy's admin socket; its DOWN/UP moments come from the journal (less precise)", lb.name));
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
    if (!snapshot.etcd) refusals.push(t('cannot verify etcd quorum: {0}', snapshot.etcdError ?? t('etcd not read')));
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
      if (!target) warnings.push(t('no etcd member maps to {0}: its failure is not an etcd failure', host.name));
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
        ? t('kube-controller-manager runs with --node-eviction-rate 0: it taints no node NoExecute, so there are no evictions to wait for')
        : evictable.length
        ? t('no pod on {0} tolerates the unreachable taint for less than the {1} s eviction wait (−{2} s for the taint and the controller): the drill reports when they would go', nodeName, evictionWaitSeconds, evictionMargin)
        : t('no pod on {0} can be evicted (only DaemonSet and static pods): there are no evictions to wait for', nodeName),
    );
  }
  if (awaited.length) {
    const readyWorkers = snapshot.nodes.filter((n) => n.metadata.name !== nodeName && nodeReadiness(n).readiness === 'Ready' && !n.spec?.unschedulable && !(n.spec?.taints ?? []).some((t) => t.effect === 'NoSchedule'));
    if (!readyWorkers.length) warnings.push(t('no other Ready, schedulable node without NoSchedule taints: evicted pods will have nowhere to go'));
  }
  for (const n of snapshot.nodes) if (n.metadata.name !== nodeName && nodeReadiness(n).readiness !== 'Ready') warnings.push(t('node {0} is {1} before the drill', n.metadata.name, nodeReadiness(n).readiness));

  expectations.push(...recoveryExpectations(role, restoreSeconds));
  for (const b of balancers) expectations.push(haproxyUpExpectation(b.host, b.server, b.params, restoreSeconds, slack));

  const notReadyMax = notReady.max ?? 60;
  const observeSeconds = Math.max(20, req.observeSeconds ?? Math.ceil(notReadyMax + 30));
  const endpoint = inv.cluster.controlPlaneEndpoint.replace(/^\[|\](?=:)/g, '');
  if (!snapshot.apiServer.includes(endpoint)) warnings.push(t("the kubeconfig's server is {0}, not the inventory's controlPlaneEndpoint {1}: the API is measured through that server", snapshot.apiServer, inv.cluster.controlPlaneEndpoint));

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
    const missing = { cut: t('a partition with your own commands needs both: the cut command is missing (a template with {host} or {address})'), heal: t('a partition with your own commands needs both: the heal command is missing (a template with {host} or {address})') };
    const cut = userCommand(req.cutCommand, vars, 'cut', missing.cut, refusals);
    const heal = userCommand(req.healCommand, vars, 'heal', missing.heal, refusals);
    return { fault: cut && { where: 'local', title: t("cut {0}'s network", host.name), command: cut }, restore: heal && { where: 'local', title: t("heal {0}'s network", host.name), command: heal } };
  }
  if (check && !check.ok) refusals.push(`${host.name}: ${check.detail}`);
  return {
    fault: { where: 'ssh', host: host.name, title: t("cut {0}'s network in both directions with nftables (the machine keeps running; this SSH session stays; it heals itself after {1} s)", host.name, Math.round(healAfterSeconds)), command: asRoot(partitionCutCommand(healAfterSeconds), become(host.name)) },
    restore: { where: 'ssh', host: host.name, title: t("heal {0}'s network (delete the drill's nftables table)", host.name), command: asRoot(healCommand(), become(host.name)) },
  };
}

export function actionDisplay(a: DrillAction | undefined): string {
  if (!a) return t('(none)');
  return a.where === 'ssh' ? `ssh ${a.host}: ${a.command.display}` : `local: ${a.command.display}`;
}

function range(e: Expectation): string {
  if (e.min !== undefined && e.max !== undefined) return t('{0}–{1} s', e.min, e.max);
  if (e.max !== undefined) return t('≤ {0} s', e.max);
  return '—';
}

/** What step 4 of the plan watches on the way back. */
function wayBack(p: DrillPlan): string {
  if (p.target.role === 'loadbalancer') {
    const what = p.kind === 'split-brain' ? t('one MASTER again') : p.vrrp && p.vrrp.sides.find((s) => s.host === p.target.host)?.preempt === false ? t('the VIP stays where it went (nopreempt)') : t('the VIP back on {0} (preempt)', p.target.host);
    return t('4. **Watch the way back** for up to {0} s: {1}, and the requests that fail meanwhile.', p.limits.restoreSeconds, what);
  }
  const cp = p.target.role === 'control-plane' ? t(', etcd member back and caught up, HAProxy backend UP') : '';
  const pods = p.awaited.length ? t(', evicted pods cleaned up') : '';
  return t('4. **Watch it come back** for up to {0} s: Node Ready{1}{2}.', p.limits.restoreSeconds, cp, pods);
}

/** The plan as Markdown: shown before the modal (editor) or the [y/N] question (CLI). */
export function renderDrillPlan(p: DrillPlan): string {
  const roleText = p.target.role === 'control-plane' ? t('control-plane node') : p.target.role === 'loadbalancer' ? t('balancer') : t('worker');
  const lb = p.target.role === 'loadbalancer';
  const kube = p.kubeVersion ? ` · Kubernetes ${p.kubeVersion}` : '';
  const out: string[] = [
    `# ${t('Failure drill: {0} {1} ({2})', p.kind, p.target.host, roleText)}`,
    '',
    lb ? t('Cluster {0} · API {1}{2} · Balancer {3} ({4})', p.cluster, p.apiServer, kube, p.target.node, p.target.address) : t('Cluster {0} · API {1}{2} · Node {3} ({4})', p.cluster, p.apiServer, kube, p.target.node, p.target.address),
    '',
  ];
  if (p.refusals.length) out.push(`## ${t('REFUSED — nothing will be done')}`, '', ...p.refusals.map((r) => `- ${r}`), '');
  const evictions = p.limits.evictionWaitSeconds ? t(' (+ up to {0} s after NotReady for evictions)', p.limits.evictionWaitSeconds) : '';
  out.push(
    `## ${t('What happens')}`,
    '',
    t('1. **Fault** — {0}: `{1}`', p.fault?.title ?? t('(none)'), actionDisplay(p.fault)),
    t('2. **Observe** for up to {0} s{1}, polling every {2} s: {3}.', p.limits.observeSeconds, evictions, p.limits.pollMs / 1000, probeList(p)),
    t('3. **Restore** — always, also after an error or a cancel — {0}: `{1}`', p.restore?.title ?? t('(none)'), actionDisplay(p.restore)),
    wayBack(p),
    '',
  );
  out.push(`## ${t('Safety')}`, '');
  if (p.etcd) {
    const leader = p.etcd.leader ? (p.etcd.names[p.etcd.leader] ?? p.etcd.leader) : '?';
    const elected = p.etcd.leader && p.etcd.leader === p.etcd.targetMember ? t(' — the failed node is the leader: a new one will be elected') : '';
    out.push(`- ${p.etcd.quorum}`, `- ${t('etcd leader now: {0} (term {1}){2}', leader, p.etcd.term ?? '?', elected)}`);
  }
  for (const l of p.leases) out.push(`- ${t('{0} lease: held by {1}{2}', l.name, l.holderNode ?? t('nobody'), l.onTarget ? t(' — the failed node: it will move') : '')}`);
  if (p.target.role === 'worker' || p.evictable.length) {
    const tol = [...new Set(p.evictable.map((e) => (e.tolerationSeconds === undefined ? t('forever') : t('{0} s', e.tolerationSeconds))))].join(', ');
    const tolerate = p.evictable.length ? t(' (tolerate unreachable: {0})', tol) : '';
    const waited = p.awaited.length ? `${p.awaited.length}: ${p.awaited.join(', ')}` : t('none');
    out.push(`- ${t('{0} evictable pod(s) on {1}{2}; the drill waits for the eviction of {3}', p.evictable.length, p.target.node, tolerate, waited)}`);
  }
  out.push(...vrrpPlanLines(p));
  for (const w of p.warnings) out.push(`- ⚠ ${w}`);
  out.push('', `## ${t("Expected (from this cluster's settings)")}`, '', `| ${t('measurement')} | ${t('expected')} | ${t('why')} |`, '| --- | --- | --- |');
  for (const e of p.expectations) out.push(`| ${e.title} | ${range(e)} | ${e.basis.replace(/\|/g, '\\|')} |`);
  out.push('');
  return out.join('\n');
}

function probeList(p: DrillPlan): string {
  const parts: string[] = [t('the API through {0} (new connection per request, every {1} s)', p.apiServer, p.limits.pollMs / 2000)];
  if (p.vrrp) parts.push(t('the VIP on every balancer (every {0} s)', p.vrrp.vipPollMs / 1000), ...(p.vrrp.neighbour ? [t("{0}'s ARP entry for it", p.vrrp.neighbour)] : []), t('the balancers as the Inventory view and `status` read them (every {0} s)', p.vrrp.verdictPollMs / 1000));
  else parts.push(t('Node {0}', p.target.node));
  for (const b of p.balancers) parts.push(t('HAProxy on {0} ({1})', b.host, b.method === 'journal' ? t('journal') : `${b.method} → ${b.socket}`));
  if (p.etcd) parts.push(t('etcd on {0}', p.etcd.survivors.join(', ')));
  if (p.leases.length) parts.push(t('the leader Leases'));
  if (p.awaited.length) parts.push(t('pods on {0}', p.target.node));
  return parts.join(', ');
}
