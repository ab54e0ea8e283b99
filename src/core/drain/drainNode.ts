/**
 * cordon / drain / uncordon of one node with kubectl's semantics, over a small cluster interface so the CLI,
 * the editor and the tests share one orchestration:
 *
 *   drain: [control-plane guard] → cordon → list + classify the node's pods (classify.ts) → a refused pod
 *   stops the drain before anything is evicted (the node stays cordoned, as with kubectl) → evict through
 *   the Eviction API, 429 retried every 5 s, each pod waited for by UID (evict.ts) → `node/X drained` →
 *   [maintenance command over SSH → wait until the node is Ready again] → [uncordon].
 *
 * It prints the lines kubectl prints (`node/X cordoned`, `Warning: ...`, `evicting pod ns/name`,
 * `error when evicting ... (will retry after 5s): ...`, `pod/name evicted`, `node/X drained`), so an
 * administrator reads the same story in both tools. Nothing here talks HTTP or SSH: the adapter does
 * (src/adapters/kube/drain.ts, the CLI's and the editor's SSH pool).
 */
import { classifyPodsForDrain, type DaemonSetLookup, type DrainClassification, type DrainOptions, type DrainPod } from './classify';
import { checkControlPlaneDrain, holderNode, type ControlPlaneMember, type GuardVerdict, type HeldLease } from './controlPlaneGuard';
import { evictPods, type EvictionClient, type EvictionEvent } from './evict';
import { formatSeconds } from './planText';
import { abortableSleep } from '../sleep';
import { errorMessage } from '../errors';
import { t } from '../l10n';

export interface DrainNodeInfo {
  name: string;
  unschedulable: boolean;
  ready: boolean;
  controlPlane: boolean;
  /** status.nodeInfo.bootID: a new value means the machine rebooted. */
  bootId?: string;
  /** renewTime of the node's Lease in kube-node-lease (ms since epoch): the kubelet's last heartbeat. */
  heartbeatMs?: number;
}

export type DaemonSetAnswer = ReturnType<DaemonSetLookup>;

/** What a drain needs from the API; src/adapters/kube/drain.ts implements it over HTTPS. */
export interface DrainCluster {
  /** Rejects with a message naming the node when it does not exist. */
  getNode(name: string): Promise<DrainNodeInfo>;
  /** spec.unschedulable; `dryRun` lets the server validate the change without storing it. */
  setUnschedulable(name: string, value: boolean, dryRun: boolean): Promise<void>;
  /** Every pod bound to the node (all namespaces), in the API's order (namespace, name). */
  listPodsOnNode(name: string): Promise<DrainPod[]>;
  daemonSet(namespace: string, name: string): Promise<DaemonSetAnswer>;
  eviction(opts: { gracePeriodSeconds: number; dryRun: boolean }): EvictionClient;
  /** Control-plane nodes with their readiness and their etcd member's health. */
  controlPlaneMembers(): Promise<ControlPlaneMember[]>;
  /** Leader-election leases (kube-system). */
  leaderLeases(): Promise<HeldLease[]>;
}

/** An optional command run on the node's host after the drain (e.g. a kernel update and a reboot). */
export interface Maintenance {
  host: string;
  /** The exact command as shown in the plan. */
  display: string;
  /** Whether the plan expects the machine to reboot (then the wait also asks for a new boot ID). */
  expectReboot: boolean;
  /** Values to redact from the command's output (a sudo password). */
  secrets?: readonly string[];
  /**
   * Runs it. Resolves when it exits 0, with `disconnected` when the connection dropped before an exit
   * status came (the machine went down under it); rejects with a message naming host and command otherwise.
   */
  run(io: { signal: AbortSignal; onOutput(stream: 'stdout' | 'stderr', text: string): void }): Promise<{ disconnected: boolean }>;
}

export type DryRun = 'none' | 'client' | 'server';

export interface DrainRunOptions extends DrainOptions {
  /** Seconds each pod gets to terminate; negative = the pod's own terminationGracePeriodSeconds (kubectl's -1). */
  gracePeriodSeconds: number;
  dryRun: DryRun;
  maintenance?: Maintenance | undefined;
  /** How long to wait for the node to be Ready again after the maintenance command. */
  readyTimeoutSeconds: number;
  /** Uncordon once the node is back (or right after the drain when there is no maintenance command). */
  uncordonAfter: boolean;
  signal?: AbortSignal | undefined;
  onLine?: (line: DrainLine) => void;
  onProgress?: (progress: DrainProgress) => void;
  /** Tests: shorter intervals and a virtual clock. */
  retryIntervalMs?: number;
  pollIntervalMs?: number;
  readyPollMs?: number;
  /** After the command, a heartbeat counts only if it is this much newer than the command's end (a reboot's kubelet may still renew once while shutting down). */
  settleMs?: number;
  sleep?: (ms: number, signal?: AbortSignal) => Promise<void>;
  now?: () => number;
}

export const DEFAULT_READY_TIMEOUT_SECONDS = 600;
const DEFAULT_SETTLE_MS = 15_000;

/** One output line. kubectl's own lines keep kubectl's stream; `host` marks the maintenance command's output. */
export interface DrainLine {
  stream: 'stdout' | 'stderr';
  text: string;
  host?: string;
}

export type DrainStep = 'node' | 'guard' | 'cordon' | 'classify' | 'evict' | 'maintenance' | 'ready' | 'uncordon';

export interface DrainProgress {
  step: DrainStep;
  message: string;
  /** Pods gone so far and pods to evict (evict step). */
  done?: number;
  total?: number;
}

export interface DrainResult {
  ok: boolean;
  cancelled: boolean;
  node: string;
  failedStep?: DrainStep;
  /** Names the node and the pod or step that failed. */
  error?: string;
  /** `namespace/name` of each pod, by what the drain did with it. */
  evicted: string[];
  kept: string[];
  refused: string[];
  failedPods: { pod: string; error: string }[];
  classification?: DrainClassification;
  guard?: GuardVerdict;
  /** Milliseconds: cordon to `drained` (the part comparable with `kubectl drain`), and the whole run. */
  drainMs?: number;
  totalMs: number;
}

export interface DrainPlan {
  node: DrainNodeInfo;
  classification: DrainClassification;
  /** Only for control-plane nodes. */
  guard?: GuardVerdict;
  options: Pick<DrainRunOptions, 'gracePeriodSeconds' | 'timeoutSeconds' | 'dryRun' | 'readyTimeoutSeconds' | 'uncordonAfter' | 'ignoreDaemonSets' | 'deleteEmptyDirData' | 'force'>;
  maintenance?: { host: string; display: string; expectReboot: boolean } | undefined;
}

const key = (p: DrainPod): string => `${p.namespace}/${p.name}`;

export { formatSeconds, planBlockers, renderDrainPlan } from './planText';

// ------------------------------------------------------------------------------------------- classify

/** Lists the node's pods and classifies them; DaemonSets are looked up once each (classify needs a synchronous answer). */
export async function classifyNode(cluster: DrainCluster, node: string, options: DrainOptions, now = Date.now()): Promise<DrainClassification> {
  const pods = await cluster.listPodsOnNode(node);
  const wanted = new Map<string, Promise<DaemonSetAnswer>>();
  for (const p of pods) {
    if (p.controller?.kind === 'DaemonSet' && p.controller.apiVersion === 'apps/v1') {
      const k = `${p.namespace}/${p.controller.name}`;
      if (!wanted.has(k)) wanted.set(k, cluster.daemonSet(p.namespace, p.controller.name));
    }
  }
  const answers = new Map<string, DaemonSetAnswer>();
  for (const [k, answer] of wanted) answers.set(k, await answer);
  return classifyPodsForDrain(pods, options, (ns, name) => answers.get(`${ns}/${name}`) ?? { exists: false, notFound: false, error: t('daemonset {0}/{1} was not looked up', ns, name) }, now);
}

// ---------------------------------------------------------------------------------------------- guard

/** The control-plane guard for `node` (only meaningful for a control-plane node). An unreadable etcd refuses. */
export async function guardFor(cluster: DrainCluster, node: string): Promise<GuardVerdict> {
  const leases = await cluster.leaderLeases().catch((): HeldLease[] => []);
  let members: ControlPlaneMember[];
  try {
    members = await cluster.controlPlaneMembers();
  } catch (e) {
    return { ok: false, reasons: [t('cannot check etcd quorum before taking {0} down: {1}', node, errorMessage(e))], heldLeases: leases.filter((l) => holderNode(l.holder) === node) };
  }
  return checkControlPlaneDrain(node, members, leases);
}

/**
 * The guard's members from what the API and etcd say: every control-plane node, with the health of the etcd
 * member of the same name (kubeadm names a stacked member after its node) or on the same inventory host.
 * Voting members without a node still count for quorum.
 */
export function controlPlaneMembersFrom(
  nodes: { name: string; ready: boolean; host?: string | undefined }[],
  etcd: { name: string; host?: string | undefined; healthy: boolean; isLearner: boolean }[],
): ControlPlaneMember[] {
  const voting = etcd.filter((m) => !m.isLearner);
  const used = new Set<(typeof voting)[number]>();
  const out: ControlPlaneMember[] = nodes.map((n) => {
    const m = voting.find((x) => x.name === n.name) ?? voting.find((x) => !!n.host && x.host === n.host);
    if (m) used.add(m);
    return { nodeName: n.name, nodeReady: n.ready, etcdHealthy: m?.healthy ?? false };
  });
  for (const m of voting) if (!used.has(m)) out.push({ nodeName: m.name, nodeReady: true, etcdHealthy: m.healthy });
  return out;
}

// ----------------------------------------------------------------------------------------------- plan

export async function planDrain(cluster: DrainCluster, nodeName: string, options: DrainRunOptions): Promise<DrainPlan> {
  const node = await cluster.getNode(nodeName);
  const [classification, guard] = await Promise.all([classifyNode(cluster, nodeName, options), node.controlPlane ? guardFor(cluster, nodeName) : Promise.resolve(undefined)]);
  const m = options.maintenance;
  return {
    node,
    classification,
    ...(guard ? { guard } : {}),
    options: {
      gracePeriodSeconds: options.gracePeriodSeconds,
      timeoutSeconds: options.timeoutSeconds,
      dryRun: options.dryRun,
      readyTimeoutSeconds: options.readyTimeoutSeconds,
      uncordonAfter: options.uncordonAfter,
      ignoreDaemonSets: options.ignoreDaemonSets,
      deleteEmptyDirData: options.deleteEmptyDirData,
      force: options.force,
    },
    maintenance: m ? { host: m.host, display: m.display, expectReboot: m.expectReboot } : undefined,
  };
}

// ------------------------------------------------------------------------------------ cordon/uncordon

/** kubectl cordon/uncordon: `node/X cordoned` or `node/X already cordoned` (with kubectl's dry-run suffixes). */
export async function setCordon(cluster: DrainCluster, nodeName: string, cordon: boolean, dryRun: DryRun, onLine: (l: DrainLine) => void = () => {}, known?: DrainNodeInfo): Promise<void> {
  const node = known ?? (await cluster.getNode(nodeName));
  const suffix = dryRun === 'client' ? ' (dry run)' : dryRun === 'server' ? ' (server dry run)' : '';
  const word = cordon ? 'cordoned' : 'uncordoned';
  if (node.unschedulable === cordon) {
    onLine({ stream: 'stdout', text: `node/${nodeName} already ${word}${suffix}` });
    return;
  }
  if (dryRun !== 'client') await cluster.setUnschedulable(nodeName, cordon, dryRun === 'server');
  onLine({ stream: 'stdout', text: `node/${nodeName} ${word}${suffix}` });
}

// ---------------------------------------------------------------------------------------------- drain

export async function runDrain(cluster: DrainCluster, nodeName: string, options: DrainRunOptions): Promise<DrainResult> {
  const now = options.now ?? Date.now;
  const sleep = options.sleep ?? abortableSleep;
  const emit = options.onLine ?? (() => {});
  const progress = options.onProgress ?? (() => {});
  const signal = options.signal ?? new AbortController().signal;
  const started = now();
  const result: DrainResult = { ok: false, cancelled: false, node: nodeName, evicted: [], kept: [], refused: [], failedPods: [], totalMs: 0 };
  const out = (text: string) => emit({ stream: 'stdout', text });
  const err = (text: string) => emit({ stream: 'stderr', text });
  const fail = (step: DrainStep, error: string): DrainResult => {
    result.failedStep = step;
    result.error = error;
    result.cancelled = signal.aborted;
    result.totalMs = now() - started;
    err(`error: ${error}`);
    return result;
  };
  const suffix = options.dryRun === 'client' ? ' (dry run)' : options.dryRun === 'server' ? ' (server dry run)' : '';

  progress({ step: 'node', message: t('reading node {0}', nodeName) });
  let node: DrainNodeInfo;
  try {
    node = await cluster.getNode(nodeName);
  } catch (e) {
    return fail('node', t('cannot drain node "{0}": {1}', nodeName, errorMessage(e)));
  }

  if (node.controlPlane) {
    progress({ step: 'guard', message: t('checking etcd quorum and the other control-plane nodes') });
    const guard = await guardFor(cluster, nodeName);
    result.guard = guard;
    if (guard.heldLeases.length) out(t('node/{0} holds leader leases: {1} (they move when it goes down)', nodeName, guard.heldLeases.map((l) => `${l.namespace}/${l.name}`).join(', ')));
    if (!guard.ok) return fail('guard', t('refusing to drain control-plane node "{0}": {1}', nodeName, guard.reasons.join(' ')));
    for (const w of guard.warnings) err(`Warning: ${w}`);
  }
  if (signal.aborted) return fail('cordon', t('drain of node "{0}" cancelled before anything was done', nodeName));

  const drainStart = now();
  progress({ step: 'cordon', message: t('cordoning {0}', nodeName) });
  try {
    await setCordon(cluster, nodeName, true, options.dryRun, emit, node);
  } catch (e) {
    return fail('cordon', `unable to cordon node "${nodeName}": ${errorMessage(e)}`);
  }

  progress({ step: 'classify', message: t('listing the pods on {0}', nodeName) });
  let c: DrainClassification;
  try {
    c = await classifyNode(cluster, nodeName, options, now());
  } catch (e) {
    return fail('classify', `unable to drain node "${nodeName}": cannot list its pods: ${errorMessage(e)}`);
  }
  result.classification = c;
  result.kept = c.pods.filter((p) => p.verdict.action === 'keep').map((p) => key(p.pod));
  result.refused = c.pods.filter((p) => p.verdict.action === 'refuse').map((p) => key(p.pod));
  if (c.errors.length) {
    // kubectl's wording; the node stays cordoned, nothing was evicted.
    return fail('classify', `unable to drain node "${nodeName}" due to error: [${c.errors.join(', ')}]; node/${nodeName} stays cordoned and no pod was evicted`);
  }
  if (c.warnings.length) err(`Warning: ${c.warnings.join('; ')}`);

  if (options.dryRun === 'client') {
    for (const p of c.toEvict) out(`evicting pod ${key(p)} (dry run)`);
    result.evicted = c.toEvict.map(key);
    out(`node/${nodeName} drained (dry run)`);
    if (options.maintenance) out(t('would run on {0}: {1} (dry run)', options.maintenance.host, options.maintenance.display));
    if (options.uncordonAfter) out(`node/${nodeName} uncordoned (dry run)`);
    result.ok = true;
    result.drainMs = now() - drainStart;
    result.totalMs = now() - started;
    return result;
  }

  const total = c.toEvict.length;
  let done = 0;
  progress({ step: 'evict', message: t('evicting {0} pod(s)', total), done, total });
  const outcome = await evictPods(c.toEvict, cluster.eviction({ gracePeriodSeconds: options.gracePeriodSeconds, dryRun: options.dryRun === 'server' }), {
    timeoutMs: options.timeoutSeconds > 0 ? options.timeoutSeconds * 1000 : Infinity,
    signal,
    skipWait: options.dryRun === 'server',
    skipWaitForDeleteTimeoutSeconds: options.skipWaitForDeleteTimeoutSeconds,
    ...(options.retryIntervalMs !== undefined ? { retryIntervalMs: options.retryIntervalMs } : {}),
    ...(options.pollIntervalMs !== undefined ? { pollIntervalMs: options.pollIntervalMs } : {}),
    sleep,
    now,
    onEvent: (e: EvictionEvent) => {
      const afterS = (ms: number) => `${Math.round(ms / 1000)}s`;
      if (e.type === 'evicting') {
        out(`evicting pod ${key(e.pod)}${suffix}`);
        progress({ step: 'evict', message: e.attempt > 1 ? t('evicting {0} (attempt {1})', key(e.pod), e.attempt) : t('evicting {0}', key(e.pod)), done, total });
      } else if (e.type === 'retry') {
        err(e.kind === 'too-many-requests'
          ? `error when evicting pods/"${e.pod.name}" -n "${e.pod.namespace}" (will retry after ${afterS(e.afterMs)}): ${e.reason}`
          : `error when evicting pod "${e.pod.name}" from terminating namespace "${e.pod.namespace}" (will retry after ${afterS(e.afterMs)}): ${e.reason}`);
        progress({ step: 'evict', message: t('{0}: {1} — retrying in {2}', key(e.pod), e.reason, afterS(e.afterMs)), done, total });
      } else if (e.type === 'waiting') {
        progress({ step: 'evict', message: t('waiting for {0} to terminate', key(e.pod)), done, total });
      } else if (e.type === 'gone' || e.type === 'skipped') {
        done++;
        if (e.type === 'skipped') out(e.message);
        else if (!e.notFound) out(`pod/${e.pod.name} evicted`);
        progress({ step: 'evict', message: t('{0} gone', key(e.pod)), done, total });
      }
    },
  });
  if (options.dryRun === 'server') for (const p of outcome.evicted) out(`pod/${p.name} evicted${suffix}`);
  result.evicted = outcome.evicted.map(key);
  result.failedPods = outcome.failed.map((f) => ({ pod: key(f.pod), error: f.error }));
  if (outcome.failed.length) {
    const what = signal.aborted ? 'cancelled' : outcome.failed.map((f) => f.error).join(', ');
    return fail('evict', `unable to drain node "${nodeName}" due to error: ${what}; pods not evicted: ${outcome.failed.map((f) => key(f.pod)).join(', ')}; node/${nodeName} stays cordoned`);
  }
  out(`node/${nodeName} drained${suffix}`);
  result.drainMs = now() - drainStart;

  const m = options.maintenance;
  if (m && options.dryRun === 'none') {
    progress({ step: 'maintenance', message: `${m.host}: ${m.display}` });
    out(t('running on {0}: {1}', m.host, m.display));
    let disconnected = false;
    try {
      ({ disconnected } = await m.run({ signal, onOutput: (stream, text) => emit({ stream, text, host: m.host }) }));
    } catch (e) {
      return fail('maintenance', t('maintenance of node "{0}" failed: {1}; node/{0} stays cordoned', nodeName, errorMessage(e)));
    }
    const ended = now();
    if (disconnected) out(t('{0}: the connection dropped while the command ran (the machine is going down)', m.host));
    // Only a command the plan called a reboot has to come back with a new boot ID; a dropped connection alone
    // (e.g. a network restart) does not prove the machine went down.
    const expectReboot = m.expectReboot;
    const readyMs = options.readyTimeoutSeconds > 0 ? options.readyTimeoutSeconds * 1000 : Infinity;
    progress({ step: 'ready', message: t('waiting for {0} to be Ready', nodeName) });
    out(expectReboot && node.bootId ? t('waiting for node/{0} to be Ready with a new boot ID (timeout {1})', nodeName, formatSeconds(options.readyTimeoutSeconds)) : t('waiting for node/{0} to be Ready (timeout {1})', nodeName, formatSeconds(options.readyTimeoutSeconds)));
    const settle = options.settleMs ?? DEFAULT_SETTLE_MS;
    let last: DrainNodeInfo | undefined;
    let lastError = '';
    for (;;) {
      if (signal.aborted) return fail('ready', t('waiting for node "{0}" to be Ready: cancelled; node/{0} stays cordoned', nodeName));
      try {
        last = await cluster.getNode(nodeName);
        lastError = '';
      } catch (e) {
        // The API may be unavailable while a control-plane node reboots: keep asking until the timeout.
        lastError = errorMessage(e);
      }
      if (last && !lastError && isBack(last, node, ended + settle, expectReboot, now())) break;
      if (now() - ended >= readyMs) {
        const heartbeat = last?.heartbeatMs ? t('{0}s ago', Math.round((now() - last.heartbeatMs) / 1000)) : t('unknown');
        const sameBoot = expectReboot && node.bootId && last?.bootId === node.bootId;
        const seen = !last ? '' : sameBoot ? t('{0}, last heartbeat {1}, same boot ID (no reboot seen)', last.ready ? 'Ready' : 'NotReady', heartbeat) : t('{0}, last heartbeat {1}', last.ready ? 'Ready' : 'NotReady', heartbeat);
        const state = lastError ? t('the API did not answer: {0}', lastError) : !last ? t('unknown') : seen;
        return fail('ready', t('node "{0}" did not come back Ready within {1} after `{2}` on {3} ({4}); node/{0} stays cordoned', nodeName, formatSeconds(options.readyTimeoutSeconds), m.display, m.host, state));
      }
      await sleep(options.readyPollMs ?? 2000, signal);
    }
    const after = Math.round((now() - ended) / 1000);
    out(expectReboot && node.bootId && last.bootId !== node.bootId ? t('node/{0} is Ready again after {1}s (rebooted: new boot ID)', nodeName, after) : t('node/{0} is Ready again after {1}s', nodeName, after));
  }

  if (options.uncordonAfter) {
    progress({ step: 'uncordon', message: t('uncordoning {0}', nodeName) });
    try {
      await setCordon(cluster, nodeName, false, options.dryRun, emit, { ...node, unschedulable: options.dryRun === 'none' ? true : node.unschedulable });
    } catch (e) {
      return fail('uncordon', `unable to uncordon node "${nodeName}": ${errorMessage(e)}`);
    }
  }
  result.ok = true;
  result.totalMs = now() - started;
  return result;
}

/** Back after maintenance: Ready, a kubelet heartbeat newer than `after`, and a new boot ID when a reboot was expected. */
function isBack(n: DrainNodeInfo, before: DrainNodeInfo, after: number, expectReboot: boolean, nowMs: number): boolean {
  if (!n.ready) return false;
  // Without a node lease (very old kubelets) only time tells: the Ready condition may still be the one from before.
  if (n.heartbeatMs !== undefined ? n.heartbeatMs < after : nowMs < after) return false;
  if (expectReboot && before.bootId && n.bootId === before.bootId) return false;
  return true;
}

/** Maintenance commands that reboot the machine (shown in the plan; the wait then asks for a new boot ID). */
export function looksLikeReboot(command: string): boolean {
  return /(^|[\s;&|(])(reboot|systemctl\s+(reboot|kexec)|shutdown\s+(-r|--reboot)|kexec)\b/.test(command);
}
