/**
 * The failure drill's moving parts, shared by the CLI (`kubeadm-workbench drill`) and the editor
 * ("Kubeadm: Run Failure Drill…"): a read-only snapshot of the cluster for the plan, then the run —
 * the fault, pollers that feed the core's DrillObserver (HAProxy over SSH on each balancer, etcd over
 * SSH on the surviving control-plane nodes, the Node, the leader Leases, the pods through the API, and
 * a probe of the API through the VIP on a new connection per request), the restore in a `finally`
 * (also after an error or a cancel), the watch of the way back, and the report.
 *
 * Every remote command comes from src/core/drill/commands.ts (the `sh` template); local power commands
 * run with execFile (argv, no shell).
 */
import { execFile } from 'node:child_process';
import { hostsWithRole, isKubernetesHost, type Inventory } from '../core/inventory/types';
import { hexId } from '../core/live/bigjson';
import { hostForNode, nodeReadiness } from '../core/live/controlPlane';
import { buildEtcd, parseEndpointStatus, raftOf, type RawStatus } from '../core/live/etcd';
import { etcdctlTlsArgs, readEtcd, type EtcdctlRunner } from '../core/live/etcdSource';
import { describeError } from '../core/live/errors';
import type { Lease, Node } from '../core/live/types';
import type { RemoteCommand, SudoOptions } from '../core/ssh/command';
import type { RunOutput } from '../core/ssh/runLog';
import { ANY_EXIT_CODE, type SshTransport } from '../core/ssh/transport';
import { asRoot, etcdctlCommand, haproxyProbeCommand, stopPreflightCommand } from '../core/drill/commands';
import { cutPreflightCommand } from '../core/drill/faults';
import { snapshotVrrp, vrrpPollers } from './balancerDrill';
import { parseJournalState, parseShowStat, type ServerState } from '../core/drill/haproxyState';
import type { LocalCommand } from '../core/drill/localCommand';
import { DrillObserver, type EtcdPoint, type Observation } from '../core/drill/observer';
import { buildDrillPlan, evictablePods, type DrillAction, type DrillPlan, type DrillPodJson, type DrillRequest, type DrillSnapshot } from '../core/drill/plan';
import { buildDrillReport, type DrillReport, type RunFacts } from '../core/drill/report';
import { abortableSleep } from '../core/sleep';
import { readHaproxy } from './balancers';
import { readyz as readyzOver } from '../adapters/kube/readyz';
import { t } from '../core/l10n';

/** The API calls the drill makes (HttpsTransport). */
export interface DrillApi {
  readonly server: string;
  get(path: string, params?: Record<string, string>, timeoutMs?: number): Promise<{ status: number; body: string }>;
}

export interface LocalResult {
  code: number | null;
  stdout: string;
  stderr: string;
}

export interface DrillDeps {
  inventory: Inventory;
  ssh: SshTransport;
  /** Reads (nodes, leases, pods) through the kubeconfig's server. */
  api: DrillApi;
  /** The availability probe: same server and credentials, one connection per request. */
  probe: DrillApi;
  /** sudo options for hosts not logged into as root. */
  become: (host: string) => SudoOptions | undefined;
  output: RunOutput;
  /** Working directory of local power commands. */
  cwd?: string;
  /** Runs a local command (tests may replace it); default execFile without a shell. */
  runLocal?: (cmd: LocalCommand, timeoutMs: number) => Promise<LocalResult>;
  /** GET /readyz on one API server directly (default: HTTPS from here, certificate not checked). */
  readyz?: (address: string, port: number) => Promise<boolean>;
}

const LEADER_LEASES = ['kube-scheduler', 'kube-controller-manager'];
const ETCD_TLS = etcdctlTlsArgs();

export function runLocalCommand(cwd?: string) {
  return (cmd: LocalCommand, timeoutMs: number): Promise<LocalResult> =>
    new Promise((resolve) => {
      execFile(cmd.argv[0]!, cmd.argv.slice(1), { cwd, timeout: timeoutMs, maxBuffer: 16 * 1024 * 1024, encoding: 'utf8' }, (error, stdout, stderr) => {
        const code = error ? (typeof (error as { code?: unknown }).code === 'number' ? ((error as { code: number }).code) : null) : 0;
        resolve({ code, stdout, stderr: stderr || (error && code === null ? error.message : '') });
      });
    });
}

async function getJson<T>(api: DrillApi, path: string, params: Record<string, string> = {}, timeoutMs = 10_000): Promise<T> {
  const r = await api.get(path, params, timeoutMs);
  if (r.status !== 200) throw new Error(`GET ${path}: HTTP ${r.status} ${r.body.slice(0, 200)}`);
  return JSON.parse(r.body) as T;
}

async function exec(deps: DrillDeps, host: string, cmd: RemoteCommand, timeoutMs = 15_000): Promise<{ code: number; stdout: string; stderr: string }> {
  const r = await deps.ssh.exec(host, asRoot(cmd, deps.become(host)), { okCodes: [...ANY_EXIT_CODE], timeoutMs });
  return { code: r.code ?? -1, stdout: r.stdout, stderr: r.stderr };
}

function etcdRunner(deps: DrillDeps, host: string, timeoutMs = 8000): EtcdctlRunner {
  return (args) => exec(deps, host, etcdctlCommand(args), timeoutMs);
}

function containerArgv(pods: { metadata: { name: string; labels?: Record<string, string> }; spec?: { nodeName?: string; containers?: { command?: string[]; args?: string[] }[] } }[], component: string, avoidNode: string): string[] | undefined {
  const mine = pods.filter((p) => p.metadata.labels?.component === component);
  const pod = mine.find((p) => p.spec?.nodeName !== avoidNode) ?? mine[0];
  const c = pod?.spec?.containers?.[0];
  return c ? [...(c.command ?? []), ...(c.args ?? [])] : undefined;
}

/** Reads everything the plan needs. Read-only: nothing on the cluster or the hosts changes. */
export async function snapshotCluster(deps: DrillDeps, req: DrillRequest): Promise<DrillSnapshot> {
  const inv = deps.inventory;
  const host = inv.hosts.find((h) => h.name === req.host);
  if (host && host.roles.includes('loadbalancer') && !isKubernetesHost(host)) return snapshotForBalancer(deps, req);
  const nodes = (await getJson<{ items: Node[] }>(deps.api, '/api/v1/nodes')).items;
  const node = host ? nodes.find((n) => hostForNode(inv, n.metadata.name, n)?.name === host.name) : undefined;
  const nodeName = node?.metadata.name ?? req.host;
  const leaderLeases: Lease[] = [];
  for (const name of LEADER_LEASES) {
    const r = await deps.api.get(`/apis/coordination.k8s.io/v1/namespaces/kube-system/leases/${name}`, {}, 10_000);
    if (r.status === 200) leaderLeases.push(JSON.parse(r.body) as Lease);
  }
  const version = await getJson<{ gitVersion?: string }>(deps.api, '/version').catch(() => undefined);
  const cpPods = (await getJson<{ items: Parameters<typeof containerArgv>[0] }>(deps.api, '/api/v1/namespaces/kube-system/pods', { labelSelector: 'tier=control-plane' }).catch(() => ({ items: [] }))).items;
  const pods = (await getJson<{ items: DrillPodJson[] }>(deps.api, '/api/v1/pods', { fieldSelector: `spec.nodeName=${nodeName}` })).items;
  const replicaSets: DrillSnapshot['replicaSets'] = [];
  for (const owner of new Set(evictablePods(pods).map((p) => p.owner).filter((o): o is string => !!o?.startsWith('ReplicaSet/')))) {
    const pod = pods.find((p) => p.metadata.ownerReferences?.some((o) => `${o.kind}/${o.name}` === owner))!;
    const ns = pod.metadata.namespace ?? 'default';
    const rs = await getJson<{ spec?: { replicas?: number } }>(deps.api, `/apis/apps/v1/namespaces/${ns}/replicasets/${owner.slice('ReplicaSet/'.length)}`).catch(() => undefined);
    if (rs) replicaSets.push({ key: `${ns}/${owner.slice('ReplicaSet/'.length)}`, desired: rs.spec?.replicas ?? 0 });
  }
  const snapshot: DrillSnapshot = {
    apiServer: deps.api.server,
    nodes,
    leaderLeases,
    kubeVersion: version?.gitVersion,
    componentArgs: {
      controllerManager: containerArgv(cpPods, 'kube-controller-manager', nodeName),
      scheduler: containerArgv(cpPods, 'kube-scheduler', nodeName),
      etcd: containerArgv(cpPods, 'etcd', nodeName),
    },
    balancers: [],
    pods,
    replicaSets,
  };
  if (!host) return snapshot;
  const isCp = host.roles.includes('control-plane');
  if (isCp) {
    const errors: string[] = [];
    for (const cp of hostsWithRole(inv, 'control-plane').filter((h) => h.name !== host.name)) {
      try {
        snapshot.etcd = buildEtcd(await readEtcd(etcdRunner(deps, cp.name), ETCD_TLS), `ssh ${cp.name}`, Date.now(), inv);
        break;
      } catch (e) {
        errors.push(`${cp.name}: ${describeError(e)}`);
      }
    }
    if (!snapshot.etcd) snapshot.etcdError = errors.join('; ') || t('no other control-plane host');
    snapshot.balancers = await Promise.all(hostsWithRole(inv, 'loadbalancer').map((lb) => readHaproxy((host, cmd) => exec(deps, host, cmd), lb.name)));
  }
  if (req.kind === 'partition' && !req.cutCommand && !req.healCommand) snapshot.targetCheck = await cutPreflight(deps, host.name);
  if (req.kind === 'stop') {
    try {
      const r = await exec(deps, host.name, stopPreflightCommand(), 15_000);
      snapshot.targetCheck = r.code === 0 ? { ok: true, detail: t('kubelet active, crictl present') } : { ok: false, detail: t('kubelet is not active or crictl is missing (`systemctl is-active kubelet`, `command -v crictl`): {0}', (r.stderr || r.stdout).trim() || `exit ${r.code}`) };
    } catch (e) {
      snapshot.targetCheck = { ok: false, detail: t('cannot reach it over SSH: {0}', describeError(e)) };
    }
  }
  return snapshot;
}

/** Whether an nftables cut (with its self-heal) can run on the host: read-only. */
async function cutPreflight(deps: DrillDeps, host: string): Promise<{ ok: boolean; detail: string }> {
  try {
    const r = await exec(deps, host, cutPreflightCommand(), 15_000);
    return r.code === 0 ? { ok: true, detail: t('nft and the self-heal timer available') } : { ok: false, detail: t('cannot cut its network with nftables: {0}', (r.stderr || r.stdout).trim().split('\n').pop() || `exit ${r.code}`) };
  } catch (e) {
    return { ok: false, detail: t('cannot reach it over SSH: {0}', describeError(e)) };
  }
}

/** A balancer drill's snapshot: the API's identity and nodes, and the VRRP pair (engine/balancerDrill.ts). Read-only. */
async function snapshotForBalancer(deps: DrillDeps, req: DrillRequest): Promise<DrillSnapshot> {
  const nodes = (await getJson<{ items: Node[] }>(deps.api, '/api/v1/nodes')).items;
  const version = await getJson<{ gitVersion?: string }>(deps.api, '/version').catch(() => undefined);
  const snapshot: DrillSnapshot = { apiServer: deps.api.server, nodes, leaderLeases: [], kubeVersion: version?.gitVersion, componentArgs: {}, balancers: [], pods: [], replicaSets: [] };
  snapshot.vrrp = await snapshotVrrp((host, cmd) => exec(deps, host, cmd), deps.inventory);
  if (req.kind === 'split-brain') snapshot.targetCheck = await cutPreflight(deps, req.host);
  return snapshot;
}

/** Snapshot + plan: what the user approves. */
export async function prepareDrill(deps: DrillDeps, req: DrillRequest): Promise<{ plan: DrillPlan; snapshot: DrillSnapshot }> {
  const snapshot = await snapshotCluster(deps, req);
  return { plan: buildDrillPlan(deps.inventory, req, snapshot, deps.become), snapshot };
}

export interface DrillProgress {
  phase: 'fault' | 'observe' | 'restore' | 'recover' | 'done';
  message: string;
}

export interface RunDrillOptions {
  /** Cancels the observation; the restore runs anyway. */
  signal?: AbortSignal;
  onProgress?: (p: DrillProgress) => void;
}

const sleep = abortableSleep;

function pointFrom(status: RawStatus): EtcdPoint | undefined {
  const member = hexId(status.header?.member_id);
  if (!member) return undefined;
  const raft = raftOf(status);
  return { member, leader: hexId(status.leader), term: raft.raftTerm, index: raft.raftIndex, applied: raft.raftAppliedIndex };
}

/**
 * Runs an approved plan. Never throws for a failure of the cluster or a probe: those are the report's
 * content. The restore always runs once the fault was attempted.
 */
export async function runDrill(deps: DrillDeps, plan: DrillPlan, opts: RunDrillOptions = {}): Promise<DrillReport> {
  if (plan.refusals.length) throw new Error(t('the drill is refused: {0}', plan.refusals.join('; ')));
  if (!plan.fault || !plan.restore) throw new Error(t('the plan has no fault or no restore action'));
  const out = deps.output;
  const progress = (phase: DrillProgress['phase'], message: string) => opts.onProgress?.({ phase, message });
  // A control plane's own API server is asked /readyz directly while it comes back: the moment it can serve, to
  // set against the moment HAProxy admitted it. Only when it answers from here before the fault (a bastion that
  // reaches the nodes' 6443 only through the VIP cannot tell, and then nothing waits for it).
  const readyz = deps.readyz ?? readyzOver;
  const apiPort = plan.balancers.find((b) => b.port !== undefined)?.port ?? 6443;
  const apiserverProbed = plan.target.role === 'control-plane' && (await readyz(plan.target.address, apiPort).catch(() => false));
  const observer = new DrillObserver({
    role: plan.target.role,
    apiserverProbed,
    targetNode: plan.target.node,
    balancers: plan.balancers.filter((b) => b.params.checked).map((b) => b.host),
    ...(plan.etcd ? { etcd: { targetMember: plan.etcd.targetMember, leader: plan.etcd.leader, term: plan.etcd.term, names: plan.etcd.names } } : {}),
    leases: plan.leases.map((l) => ({ name: l.name, holder: l.holder, onTarget: l.onTarget })),
    evictable: plan.awaited,
    replicaSets: plan.replicaSets,
    waitForEvictions: plan.awaited.length > 0,
    ...(plan.vrrp
      ? { vrrp: { kind: plan.kind === 'split-brain' ? ('split-brain' as const) : ('move' as const), target: plan.target.host, taker: plan.vrrp.taker, macs: plan.vrrp.macs, neighbour: plan.vrrp.neighbour, preempt: plan.vrrp.sides.find((s) => s.host === plan.target.host)?.preempt ?? true } }
      : {}),
  });
  const startedAt = new Date().toISOString();
  const t0 = performance.now();
  const now = () => performance.now() - t0;
  const stamp = (ms: number) => `+${(ms / 1000).toFixed(1)} s`;
  const probeErrors: Record<string, string> = {};
  const feed = (o: Observation) => {
    for (const line of observer.observe(o)) out.message(`[${stamp(o.t)}] ${line}`);
  };
  let phase: 'failure' | 'recovery' = 'failure';
  const stopProbes = new AbortController();
  const pollers: Promise<void>[] = [];
  const poll = (name: string, everyMs: number, fn: () => Promise<void>) => {
    pollers.push(
      (async () => {
        while (!stopProbes.signal.aborted) {
          const started = performance.now();
          try {
            await fn();
          } catch (e) {
            if (!probeErrors[name]) {
              probeErrors[name] = describeError(e);
              out.message(`[${stamp(now())}] probe ${name}: ${probeErrors[name]}`, undefined, 'error');
            }
          }
          await sleep(Math.max(50, everyMs - (performance.now() - started)), stopProbes.signal);
        }
      })(),
    );
  };
  const mid = (a: number) => (a + now()) / 2;
  const every = plan.limits.pollMs;

  // ---- the API through the VIP: a request every half interval, each on its own connection
  const inflight = new Set<Promise<void>>();
  pollers.push(
    (async () => {
      while (!stopProbes.signal.aborted) {
        const t = now();
        const p = deps.probe.get('/readyz', {}, 2000).then(
          (r) => feed({ source: 'api', t, ok: r.status === 200, ms: now() - t, ...(r.status === 200 ? {} : { error: `HTTP ${r.status}` }) }),
          (e: unknown) => feed({ source: 'api', t, ok: false, ms: now() - t, error: describeError(e) }),
        );
        inflight.add(p);
        void p.finally(() => inflight.delete(p));
        await sleep(every / 2, stopProbes.signal);
      }
      await Promise.all(inflight);
    })(),
  );
  // ---- the target's own API server, while it comes back
  if (apiserverProbed) {
    poll('apiserver', every / 2, async () => {
      if (phase !== 'recovery') return;
      const a = now();
      feed({ source: 'apiserver', t: mid(a), ready: await readyz(plan.target.address, apiPort) });
    });
  }
  // ---- a balancer drill: the VIP on each balancer, a node's ARP entry for it, the balancers as the live view reads them
  if (plan.vrrp) vrrpPollers(plan, deps.inventory, (host, cmd) => exec(deps, host, cmd, 8000), feed, poll, now);
  // ---- the Node
  if (plan.target.role !== 'loadbalancer') poll('node', every, async () => {
    const a = now();
    const n = await getJson<Node>(deps.api, `/api/v1/nodes/${plan.target.node}`, {}, 3000);
    const r = nodeReadiness(n);
    feed({ source: 'node', t: mid(a), ready: r.condition?.status ?? 'Unknown', reason: r.reason, taints: (n.spec?.taints ?? []).map((x) => `${x.key}:${x.effect}`) });
  });
  // ---- leader leases
  if (plan.leases.length) {
    poll('leases', every, async () => {
      for (const l of plan.leases) {
        const a = now();
        const lease = await getJson<Lease>(deps.api, `/apis/coordination.k8s.io/v1/namespaces/kube-system/leases/${l.name}`, {}, 3000);
        feed({ source: 'lease', t: mid(a), name: l.name, holder: lease.spec?.holderIdentity });
      }
    });
  }
  // ---- pods on the node and the ReplicaSets that replace them
  if (plan.awaited.length) {
    poll('pods', every * 2, async () => {
      const a = now();
      const list = await getJson<{ items: DrillPodJson[] }>(deps.api, '/api/v1/pods', { fieldSelector: `spec.nodeName=${plan.target.node}` }, 5000);
      feed({ source: 'pods', t: mid(a), pods: list.items.map((p) => ({ key: `${p.metadata.namespace ?? 'default'}/${p.metadata.name}`, deleting: !!p.metadata.deletionTimestamp })) });
      if (!observer.has('evictions-first') || phase !== 'failure') return;
      for (const rs of plan.replicaSets) {
        const [ns, name] = rs.key.split('/') as [string, string];
        const b = now();
        const r = await getJson<{ spec?: { replicas?: number }; status?: { readyReplicas?: number } }>(deps.api, `/apis/apps/v1/namespaces/${ns}/replicasets/${name}`, {}, 5000);
        feed({ source: 'replicas', t: mid(b), key: rs.key, ready: r.status?.readyReplicas ?? 0, desired: r.spec?.replicas ?? rs.desired });
      }
    });
  }
  // ---- HAProxy on each balancer
  for (const b of plan.balancers) {
    poll(`haproxy@${b.host}`, every, async () => {
      const a = now();
      const r = await exec(deps, b.host, haproxyProbeCommand(b.method, b.socket, b.sinceEpoch), 5000);
      if (r.code !== 0) throw new Error(t('{0}: HAProxy probe exited {1}: {2}', b.host, r.code, (r.stderr || r.stdout).trim().slice(0, 200)));
      const state: ServerState | undefined = b.method === 'journal' ? (parseJournalState(r.stdout, b.backend, b.server) ?? { status: 'UP' }) : parseShowStat(r.stdout, b.backend, b.server);
      if (!state) throw new Error(t("{0}: no {1} in HAProxy's stats", b.host, `${b.backend}/${b.server}`));
      feed({ source: 'haproxy', t: mid(a), balancer: b.host, state });
    });
  }
  // ---- etcd: while the node is down each survivor's own view (fast: local endpoint only); while it comes
  // back, the whole cluster's statuses from one survivor (the returning member included).
  if (plan.etcd) {
    const survivors = plan.etcd.survivors;
    survivors.forEach((host, i) => {
      poll(`etcd@${host}`, every, async () => {
        if (phase === 'recovery' && i > 0) return;
        const a = now();
        const args = phase === 'failure' ? [...ETCD_TLS, 'endpoint', 'status', '-w', 'json'] : [...ETCD_TLS, 'endpoint', 'status', '--cluster', '-w', 'json'];
        const r = await etcdRunner(deps, host, 6000)(args);
        const points = parseEndpointStatus(r.stdout, r.stderr).flatMap((s) => (s.status ? [pointFrom(s.status)].filter((p): p is EtcdPoint => !!p) : []));
        if (!points.length) throw new Error(t('{0}: etcdctl endpoint status gave no status (exit {1}): {2}', host, r.code, r.stderr.trim().split('\n')[0] ?? ''));
        feed({ source: 'etcd', t: mid(a), via: host, points });
      });
    });
  }

  // ---- the fault
  let faultSeconds: number | undefined;
  let faultError: string | undefined;
  let observedSeconds: number | undefined;
  let restore: RunFacts['restore'] = { ok: false, seconds: undefined, attempted: false };
  let recoverySeconds: number | undefined;
  let cancelled = false;
  const action = async (a: DrillAction, timeoutMs: number): Promise<void> => {
    if (a.where === 'ssh') {
      const r = await deps.ssh.exec(a.host, a.command, { okCodes: [...ANY_EXIT_CODE], timeoutMs });
      for (const l of `${r.stdout}${r.stderr}`.split('\n').filter(Boolean)) out.message(l, a.host);
      if (r.code !== 0) throw new Error(t('{0}: `{1}` exited {2}: {3}', a.host, a.command.display, r.code, (r.stderr || r.stdout).trim().split('\n').pop() ?? ''));
    } else {
      const r = await (deps.runLocal ?? runLocalCommand(deps.cwd))(a.command, timeoutMs);
      for (const l of `${r.stdout}${r.stderr}`.split('\n').filter(Boolean)) out.message(l, 'local');
      const last = (r.stderr || r.stdout).trim().split('\n').pop() ?? '';
      if (r.code !== 0) throw new Error(r.code === null ? t('`{0}` did not finish (killed or timed out): {1}', a.command.display, last) : t('`{0}` exited {1}: {2}', a.command.display, r.code, last));
    }
  };
  try {
    try {
      progress('fault', plan.fault.title);
      out.message(`[${stamp(now())}] fault: ${plan.fault.title}`);
      const f0 = now();
      try {
        await action(plan.fault, 120_000);
      } catch (e) {
        faultError = describeError(e);
        out.message(t('fault command failed: {0}', faultError), undefined, 'error');
      }
      faultSeconds = Math.round((now() - f0) / 100) / 10;
      if (!faultError) {
        // ---- observe until every expected event was seen, the limit, or a cancel
        let deadline = plan.limits.observeSeconds * 1000;
        while (!opts.signal?.aborted) {
          const nr = observer.event('node-notready');
          if (nr && plan.awaited.length) deadline = Math.max(deadline, nr.t + plan.limits.evictionWaitSeconds * 1000);
          if (observer.failureComplete() || now() >= deadline) break;
          progress('observe', t('{0} down for {1} s', plan.target.host, Math.round(now() / 1000)));
          await sleep(250, opts.signal);
        }
        if (opts.signal?.aborted) cancelled = true;
      }
    } finally {
      // ---- the restore: always, whatever happened above
      phase = 'recovery';
      const r0 = now();
      observer.restoreStarted(r0);
      observedSeconds = Math.round(r0 / 100) / 10;
      progress('restore', plan.restore.title);
      out.message(`[${stamp(r0)}] restore: ${plan.restore.title}`);
      restore = { ok: false, seconds: undefined, attempted: true };
      for (let attempt = 1; attempt <= 3 && !restore.ok; attempt++) {
        try {
          await action(plan.restore, plan.limits.restoreSeconds * 1000);
          restore = { ok: true, seconds: Math.round((now() - r0) / 100) / 10, attempted: true };
        } catch (e) {
          restore = { ok: false, seconds: undefined, error: describeError(e), attempted: true };
          out.message(t('restore attempt {0} failed: {1}', attempt, restore.error), undefined, 'error');
          if (attempt < 3) await sleep(5000);
        }
      }
    }
    // ---- the way back (a cancel skips the watching, never the restore)
    if (restore.ok && !cancelled) {
      const until = now() + plan.limits.restoreSeconds * 1000;
      while (!observer.recoveryComplete() && now() < until && !opts.signal?.aborted) {
        progress('recover', t('waiting for {0} to come back ({1} s)', plan.target.host, Math.round((now() - (observer.restoreTime ?? 0)) / 1000)));
        await sleep(250, opts.signal);
      }
      if (opts.signal?.aborted) cancelled = true;
      recoverySeconds = Math.round((now() - (observer.restoreTime ?? 0)) / 100) / 10;
    }
  } finally {
    stopProbes.abort();
    await Promise.all(pollers);
  }
  const report = buildDrillReport(plan, observer.timeline(), { startedAt, faultSeconds, faultError, observedSeconds, restore, recoverySeconds, cancelled, probeErrors, apiserverProbed });
  progress('done', report.ok ? t('passed') : t('failed'));
  return report;
}
