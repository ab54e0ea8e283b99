/**
 * The `kubectl run` sequence as lanes — kubectl, API server, scheduler, kubelet, container
 * runtime — built from three kinds of evidence, each kept with its precision:
 *   - what we observed ourselves by watch (client clock, milliseconds),
 *   - the pod's Events (Scheduled, Pulling, Pulled, Created, Started; eventTime has microseconds,
 *     firstTimestamp only seconds),
 *   - the pod's conditions and container statuses (seconds).
 * It also computes the pod-startup SLI the way SIG Scalability defines it (creation to all
 * containers started as observed by watch, minus image pulling) against the 5 s SLO, and explains
 * a stall from the events' own messages.
 */

export const LANES = ['kubectl', 'apiserver', 'scheduler', 'kubelet', 'runtime'] as const;
export type Lane = (typeof LANES)[number];

export const LANE_TITLES: Record<Lane, string> = {
  kubectl: 'kubectl',
  apiserver: 'API server',
  scheduler: 'Scheduler',
  kubelet: 'kubelet',
  runtime: 'Container runtime',
};

export type Precision = 'ms' | 'us' | 's';

export interface TimelineEntry {
  lane: Lane;
  label: string;
  /** Epoch milliseconds. */
  at: number;
  precision: Precision;
  source: 'client' | 'watch' | 'event' | 'condition' | 'status';
  detail?: string;
  /** Entries of a failure (FailedScheduling, ErrImagePull...). */
  warning?: boolean;
}

/** The subset of a Pod the model reads. */
export interface PodSnapshot {
  name: string;
  namespace: string;
  uid?: string;
  creationTimestamp?: string;
  nodeName?: string;
  phase?: string;
  conditions?: { type: string; status: string; lastTransitionTime?: string; reason?: string; message?: string }[];
  containerStatuses?: { name: string; image?: string; state?: { running?: { startedAt?: string }; waiting?: { reason?: string; message?: string }; terminated?: { reason?: string; exitCode?: number } } }[];
}

export interface PodEvent {
  reason: string;
  message?: string;
  type?: string;
  /** MicroTime (events.k8s.io) or undefined. */
  eventTime?: string;
  firstTimestamp?: string;
  lastTimestamp?: string;
  count?: number;
  source?: string;
}

/** What the extension saw itself, in its own clock. */
export interface ClientObservation {
  /** The create request left the client. */
  createSentAt?: number;
  /** The API server answered 201. */
  createdAt?: number;
  /** Watch saw spec.nodeName for the first time. */
  bindingObservedAt?: number;
  /** Watch saw every container running. */
  runningObservedAt?: number;
  /** Watch saw Ready=True. */
  readyObservedAt?: number;
}

export interface StartupSli {
  /** Creation to all containers started (observed by watch), minus image pulls, in ms. */
  valueMs: number;
  pullMs: number;
  sloMs: number;
  met: boolean;
}

export interface Stall {
  stage: 'scheduling' | 'sandbox' | 'image' | 'container' | 'readiness';
  summary: string;
  messages: string[];
}

export interface Timeline {
  pod: { namespace: string; name: string; node?: string };
  start: number;
  end: number;
  entries: TimelineEntry[];
  sli?: StartupSli;
  stall?: Stall;
}

export const STARTUP_SLO_MS = 5000;

const EVENT_LANE: Record<string, Lane> = {
  Scheduled: 'scheduler',
  FailedScheduling: 'scheduler',
  Pulling: 'kubelet',
  Pulled: 'kubelet',
  Failed: 'kubelet',
  BackOff: 'kubelet',
  FailedCreatePodSandBox: 'runtime',
  SandboxChanged: 'runtime',
  Created: 'runtime',
  Started: 'runtime',
  Killing: 'runtime',
};

const CONDITION_LANE: Record<string, Lane> = {
  PodScheduled: 'scheduler',
  PodReadyToStartContainers: 'runtime',
  Initialized: 'kubelet',
  ContainersReady: 'kubelet',
  Ready: 'kubelet',
};

function time(iso: string | undefined): { at: number; precision: Precision } | undefined {
  if (!iso) return undefined;
  const at = Date.parse(iso);
  if (Number.isNaN(at)) return undefined;
  const fraction = /\.(\d+)/.exec(iso)?.[1];
  return { at, precision: fraction ? (fraction.length > 3 ? 'us' : 'ms') : 's' };
}

export function buildTimeline(pod: PodSnapshot, events: PodEvent[], client: ClientObservation = {}, now = Date.now()): Timeline {
  const entries: TimelineEntry[] = [];
  const push = (e: TimelineEntry): void => void entries.push(e);

  if (client.createSentAt) push({ lane: 'kubectl', label: 'POST /api/v1/namespaces/…/pods', at: client.createSentAt, precision: 'ms', source: 'client' });
  if (client.createdAt) push({ lane: 'kubectl', label: '201 Created', at: client.createdAt, precision: 'ms', source: 'client' });
  const created = time(pod.creationTimestamp);
  if (created) push({ lane: 'apiserver', label: 'Pod stored in etcd (creationTimestamp)', at: created.at, precision: created.precision, source: 'status' });
  if (client.bindingObservedAt) push({ lane: 'apiserver', label: `Binding to ${pod.nodeName ?? 'a node'} observed by watch`, at: client.bindingObservedAt, precision: 'ms', source: 'watch' });
  if (client.runningObservedAt) push({ lane: 'apiserver', label: 'All containers running, observed by watch', at: client.runningObservedAt, precision: 'ms', source: 'watch' });
  if (client.readyObservedAt) push({ lane: 'apiserver', label: 'Ready observed by watch', at: client.readyObservedAt, precision: 'ms', source: 'watch' });

  for (const ev of events) {
    const t = time(ev.eventTime) ?? time(ev.firstTimestamp) ?? time(ev.lastTimestamp);
    if (!t) continue;
    const lane = EVENT_LANE[ev.reason] ?? 'kubelet';
    const warning = ev.type === 'Warning';
    push({ lane, label: ev.count && ev.count > 1 ? `${ev.reason} ×${ev.count}` : ev.reason, at: t.at, precision: t.precision, source: 'event', ...(ev.message ? { detail: ev.message } : {}), ...(warning ? { warning } : {}) });
  }
  for (const c of pod.conditions ?? []) {
    const t = time(c.lastTransitionTime);
    if (!t) continue;
    const ok = c.status === 'True';
    push({ lane: CONDITION_LANE[c.type] ?? 'kubelet', label: `${c.type}=${c.status}`, at: t.at, precision: t.precision, source: 'condition', ...(c.message ? { detail: c.message } : {}), ...(!ok ? { warning: true } : {}) });
  }
  for (const cs of pod.containerStatuses ?? []) {
    const t = time(cs.state?.running?.startedAt);
    if (t) push({ lane: 'runtime', label: `container ${cs.name} startedAt`, at: t.at, precision: t.precision, source: 'status' });
  }

  // Stable order: by time, then by lane order so simultaneous second-precision entries read top-down.
  entries.sort((a, b) => a.at - b.at || LANES.indexOf(a.lane) - LANES.indexOf(b.lane));
  const start = Math.min(...entries.map((e) => e.at), created?.at ?? now);
  const end = Math.max(...entries.map((e) => e.at), start);
  const timeline: Timeline = { pod: { namespace: pod.namespace, name: pod.name, ...(pod.nodeName ? { node: pod.nodeName } : {}) }, start, end, entries };
  const sli = startupSli(pod, events, client);
  if (sli) timeline.sli = sli;
  const stall = explainStall(pod, events, client, now);
  if (stall) timeline.stall = stall;
  return timeline;
}

/** Time spent pulling images: each Pulling → the next Pulled (or the message's "in 1.2s"). */
export function imagePullMs(events: PodEvent[]): number {
  let total = 0;
  for (const ev of events.filter((e) => e.reason === 'Pulled')) {
    // kubelet: `Successfully pulled image "x" in 1.234s (1.234s including waiting)`; an image already
    // present took no pull time at all.
    const m = /in ([\d.]+)(ms|s)\b/.exec(ev.message ?? '');
    if (m) total += Number(m[1]) * (m[2] === 'ms' ? 1 : 1000);
  }
  return Math.round(total);
}

export function startupSli(pod: PodSnapshot, events: PodEvent[], client: ClientObservation): StartupSli | undefined {
  const created = time(pod.creationTimestamp);
  if (!created || !client.runningObservedAt) return undefined;
  const pullMs = imagePullMs(events);
  const valueMs = Math.max(0, client.runningObservedAt - created.at - pullMs);
  return { valueMs, pullMs, sloMs: STARTUP_SLO_MS, met: valueMs <= STARTUP_SLO_MS };
}

const STALL_AFTER_MS = 10_000;

export function explainStall(pod: PodSnapshot, events: PodEvent[], client: ClientObservation, now: number): Stall | undefined {
  const messages = (reasons: string[]): string[] => [...new Set(events.filter((e) => reasons.includes(e.reason)).map((e) => e.message ?? e.reason))];
  const waiting = (pod.containerStatuses ?? []).map((c) => c.state?.waiting).filter((w): w is { reason?: string; message?: string } => Boolean(w?.reason));
  const created = time(pod.creationTimestamp)?.at ?? client.createdAt;

  if (!pod.nodeName) {
    const why = messages(['FailedScheduling']);
    const cond = pod.conditions?.find((c) => c.type === 'PodScheduled' && c.status === 'False');
    if (why.length || cond || (created && now - created > STALL_AFTER_MS)) {
      return { stage: 'scheduling', summary: 'The scheduler found no node for the pod.', messages: why.length ? why : cond?.message ? [cond.message] : ['No Scheduled event yet: is kube-scheduler running and does it hold its leader lease?'] };
    }
    return undefined;
  }
  const sandbox = messages(['FailedCreatePodSandBox']);
  if (sandbox.length) return { stage: 'sandbox', summary: 'The container runtime could not create the pod sandbox — usually the CNI plugin is missing or failing on the node.', messages: sandbox };
  const image = waiting.filter((w) => /ImagePull|ErrImage|InvalidImageName/.test(w.reason!));
  if (image.length) return { stage: 'image', summary: 'The image cannot be pulled.', messages: [...new Set([...messages(['Failed']).filter((m) => /pull|image/i.test(m)), ...image.map((w) => w.message ?? w.reason!)])] };
  const crash = waiting.filter((w) => /CrashLoopBackOff|CreateContainer|RunContainerError/.test(w.reason!));
  if (crash.length) return { stage: 'container', summary: 'The container does not stay up.', messages: [...new Set([...crash.map((w) => `${w.reason}: ${w.message ?? ''}`.trim()), ...messages(['BackOff', 'Failed'])])] };
  const ready = pod.conditions?.find((c) => c.type === 'Ready');
  if (pod.phase === 'Running' && ready?.status === 'False' && created && now - created > STALL_AFTER_MS) {
    return { stage: 'readiness', summary: 'Containers run but the pod is not Ready — check its readiness probe.', messages: messages(['Unhealthy']).concat(ready.message ? [ready.message] : []) };
  }
  return undefined;
}
