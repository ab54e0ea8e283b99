/**
 * The `kubectl run` sequence as lanes — kubectl, API server, scheduler, kubelet, container
 * runtime — built from every kind of evidence there is, each kept with its source and precision:
 *   - what we observed ourselves (the POST, the 201, watch; client clock, milliseconds),
 *   - the pod's Events (Scheduled, Pulling, Pulled, Created, Started; eventTime has microseconds,
 *     firstTimestamp only seconds),
 *   - the pod's conditions and container statuses (seconds),
 *   - when the feed could read them, the API server's audit log and the node's kubelet and
 *     containerd journals (microseconds; see audit.ts and journal.ts).
 * Steps are placed in causal order (causal.ts): a second-precision time is an interval, narrowed
 * by what must precede and follow it, and the client's clock anchors the picture.
 * It also computes the pod-startup SLI the way SIG Scalability defines it (creation to all
 * containers started as observed by watch, minus image pulling) against the 5 s SLO, and explains
 * a stall from the events' own messages.
 */

import { t } from '../l10n';
import { fitClock, placeCausally, readTime, sourceRank, STEP_RANK, type Clock, type ClockFit, type Observation, type Precision, type Step } from './causal';

export const LANES = ['kubectl', 'apiserver', 'scheduler', 'kubelet', 'runtime'] as const;
export type Lane = (typeof LANES)[number];

const LANE_TITLE: Record<Lane, () => string> = {
  kubectl: () => 'kubectl',
  apiserver: () => t('API server'),
  scheduler: () => t('Scheduler'),
  kubelet: () => 'kubelet',
  runtime: () => t('Container runtime'),
};

/** A lane's name in the display language (kubectl and kubelet are names in every language). */
export function laneTitle(lane: Lane): string {
  return LANE_TITLE[lane]();
}

/** Every lane's name in the display language (the webview gets them with the timeline). */
export function laneTitles(): Record<Lane, string> {
  return Object.fromEntries(LANES.map((l) => [l, laneTitle(l)])) as Record<Lane, string>;
}

export type { Precision } from './causal';

/** Where a step was read. Each has its clock and precision; the view names it next to the step. */
export type Source = 'client' | 'watch' | 'event' | 'condition' | 'status' | 'audit' | 'journal';

export interface TimelineEntry {
  lane: Lane;
  label: string;
  /** Where it is drawn, epoch ms in the client's clock (inside [lo, hi], after every step it depends on). */
  at: number;
  /** The interval it can be in: a second-precision reading spans up to a second, narrowed by its neighbours. */
  lo: number;
  hi: number;
  /** Which hop of the sequence it is. */
  step: Step;
  precision: Precision;
  source: Source;
  /** The reading as its source printed it (ISO time), before placement. */
  read: string;
  container?: string;
  detail?: string;
  /** Entries of a failure (FailedScheduling, ErrImagePull...). */
  warning?: boolean;
  /** Moved by a causal edge beyond its precision: the clocks of two machines disagree. */
  adjusted?: boolean;
  /** Whose clock the reading is in (its `read` time is put on the client's by `Timeline.clock`). */
  clock: Clock;
  /** Stamped after the fact: the step happened up to this many ms before `read` (Infinity: any time before it). */
  earlierBy?: number;
}

/** A step read from the cluster's own logs (audit, kubelet and containerd journals), in the cluster's clock. */
export interface Evidence {
  lane: Lane;
  step: Step;
  label: string;
  /** Epoch ms, fractional for µs. */
  at: number;
  precision: Precision;
  source: 'audit' | 'journal';
  container?: string;
  detail?: string;
  warning?: boolean;
  /** Stamped after the fact: the step happened up to this many ms before `at` (an audit ResponseComplete: its request's duration; Infinity: any time before, e.g. a kubelet line logged once the pod worker is at it). */
  earlierBy?: number;
}

/** One source of evidence and whether it could be read: what is missing and how to get it. */
export interface SourceNote {
  /** The source's name in the display language. */
  source: string;
  /** Which source it is, for code and `--json` readers (the name is in the display language). */
  id?: 'api' | 'audit' | 'journal' | 'cni';
  state: 'read' | 'missing';
  text: string;
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
  /** involvedObject.fieldPath, e.g. spec.containers{web}. */
  fieldPath?: string;
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
  /** How the cluster's clock was put on the client's. */
  clock: ClockFit;
  /** Each source: read, or what is missing and how to get it. */
  sources: SourceNote[];
}

export const STARTUP_SLO_MS = 5000;

/** Extra evidence the feed could read (audit log, journals) and what it could not. */
export interface MoreEvidence {
  evidence?: Evidence[];
  sources?: SourceNote[];
}

const EVENT_STEP: Record<string, [Lane, Step]> = {
  Scheduled: ['scheduler', 'scheduled'],
  FailedScheduling: ['scheduler', 'other'],
  Pulling: ['kubelet', 'pulling'],
  Pulled: ['kubelet', 'pulled'],
  Failed: ['kubelet', 'other'],
  BackOff: ['kubelet', 'other'],
  FailedCreatePodSandBox: ['runtime', 'other'],
  SandboxChanged: ['runtime', 'other'],
  Created: ['runtime', 'container-created'],
  Started: ['runtime', 'container-started'],
  Killing: ['runtime', 'other'],
};

const CONDITION_STEP: Record<string, [Lane, Step]> = {
  // The API server writes PodScheduled=True with the binding.
  PodScheduled: ['apiserver', 'bound'],
  PodReadyToStartContainers: ['runtime', 'network-ready'],
  Initialized: ['kubelet', 'initialized'],
  ContainersReady: ['kubelet', 'ready'],
  Ready: ['kubelet', 'ready'],
};

const time = readTime;

/** The container an event is about: involvedObject.fieldPath is spec.containers{NAME}. */
function containerOf(ev: PodEvent): string | undefined {
  return /^spec\.(?:initC|c)ontainers\{([^}]+)\}$/.exec(ev.fieldPath ?? '')?.[1];
}

type Reading = Omit<TimelineEntry, 'lo' | 'hi' | 'at' | 'adjusted' | 'read'> & { at: number; clock: Clock };

export function buildTimeline(pod: PodSnapshot, events: PodEvent[], client: ClientObservation = {}, now = Date.now(), more: MoreEvidence = {}): Timeline {
  const readings: Reading[] = [];
  const push = (r: Reading): void => void readings.push(r);
  const node = pod.nodeName ?? t('a node');

  if (client.createSentAt) push({ lane: 'kubectl', step: 'request-sent', label: t('POST pods sent'), at: client.createSentAt, precision: 'ms', source: 'client', clock: 'client' });
  if (client.createdAt) push({ lane: 'kubectl', step: 'response-received', label: t('201 Created received'), at: client.createdAt, precision: 'ms', source: 'client', clock: 'client' });
  const created = time(pod.creationTimestamp);
  if (created) push({ lane: 'apiserver', step: 'stored', label: t('Pod stored in etcd'), at: created.at, precision: created.precision, source: 'status', clock: 'cluster', detail: 'metadata.creationTimestamp' });
  if (client.bindingObservedAt) push({ lane: 'kubectl', step: 'bind-observed', label: t('Watch: bound to {0}', node), at: client.bindingObservedAt, precision: 'ms', source: 'watch', clock: 'client' });
  if (client.runningObservedAt) push({ lane: 'kubectl', step: 'running-observed', label: t('Watch: all containers running'), at: client.runningObservedAt, precision: 'ms', source: 'watch', clock: 'client' });
  if (client.readyObservedAt) push({ lane: 'kubectl', step: 'ready-observed', label: t('Watch: Ready'), at: client.readyObservedAt, precision: 'ms', source: 'watch', clock: 'client' });

  for (const ev of events) {
    const t = time(ev.eventTime) ?? time(ev.firstTimestamp) ?? time(ev.lastTimestamp);
    if (!t) continue;
    const [lane, step] = EVENT_STEP[ev.reason] ?? ['kubelet', 'other'];
    const container = containerOf(ev);
    // The scheduler writes its Scheduled event after the bind it reports: its time is only the latest the decision had.
    const stampedAfter = ev.reason === 'Scheduled' ? { earlierBy: Infinity } : {};
    push({ ...stampedAfter, lane, step: ev.count && ev.count > 1 ? 'other' : step, label: ev.count && ev.count > 1 ? `${ev.reason} ×${ev.count}` : ev.reason, at: t.at, precision: t.precision, source: 'event', clock: lane === 'scheduler' ? 'cluster' : 'node', ...(container ? { container } : {}), ...(ev.message ? { detail: ev.message } : {}), ...(ev.type === 'Warning' ? { warning: true } : {}) });
  }
  for (const c of pod.conditions ?? []) {
    const t = time(c.lastTransitionTime);
    if (!t) continue;
    const ok = c.status === 'True';
    const [lane, step] = CONDITION_STEP[c.type] ?? ['kubelet', 'other'];
    push({ lane, step: ok ? step : 'other', label: `${c.type}=${c.status}`, at: t.at, precision: t.precision, source: 'condition', clock: c.type === 'PodScheduled' ? 'cluster' : 'node', ...(c.message ? { detail: c.message } : {}), ...(!ok ? { warning: true } : {}) });
  }
  for (const cs of pod.containerStatuses ?? []) {
    const t = time(cs.state?.running?.startedAt);
    if (t) push({ lane: 'runtime', step: 'container-started', label: `${cs.name} startedAt`, at: t.at, precision: t.precision, source: 'status', clock: 'node', container: cs.name });
  }
  for (const e of more.evidence ?? []) push({ ...e, clock: e.source === 'audit' ? 'cluster' : 'node' });

  const obs: Observation[] = readings.map((r) => ({ step: r.step, at: r.at, precision: r.precision, clock: r.clock, source: r.source, ...(r.container ? { container: r.container } : {}), ...(r.earlierBy ? { earlierBy: r.earlierBy } : {}) }));
  const clock = fitClock(obs);
  const placed = placeCausally(obs, clock);
  const entries: TimelineEntry[] = readings.map((r, k) => {
    const p = placed[k]!;
    return { ...r, at: p.at, lo: p.lo, hi: p.hi, read: isoMicro(r.at), ...(p.adjusted ? { adjusted: true } : {}) };
  });
  // By where they are drawn; at the same instant, in the sequence's order (one step's readings in their sources'
  // order), then lane order.
  entries.sort((a, b) => a.at - b.at || STEP_RANK[a.step] - STEP_RANK[b.step] || sourceRank(a.step, a.source) - sourceRank(b.step, b.source) || LANES.indexOf(a.lane) - LANES.indexOf(b.lane));
  const start = entries.length ? Math.min(...entries.map((e) => e.lo)) : now;
  const end = Math.max(...entries.map((e) => Math.max(e.hi, e.at)), start);
  const timeline: Timeline = { pod: { namespace: pod.namespace, name: pod.name, ...(pod.nodeName ? { node: pod.nodeName } : {}) }, start, end, entries, clock, sources: more.sources ?? [] };
  const storedAt = entries.find((e) => e.step === 'stored')?.at;
  const sli = startupSli(pod, events, client, storedAt);
  if (sli) timeline.sli = sli;
  const stall = explainStall(pod, events, client, now);
  if (stall) timeline.stall = stall;
  return timeline;
}

/** ISO time with the microseconds a reading had. */
export function isoMicro(at: number): string {
  const ms = Math.floor(at);
  const us = Math.round((at - ms) * 1000);
  const iso = new Date(ms).toISOString();
  return us ? iso.replace(/Z$/, `${String(us).padStart(3, '0')}Z`) : iso;
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

/**
 * Creation to all containers running as observed by watch, minus pulls. Creation is the placed time
 * (between the POST and the 201 when we sent it), not the start of creationTimestamp's second.
 */
export function startupSli(pod: PodSnapshot, events: PodEvent[], client: ClientObservation, createdAt = time(pod.creationTimestamp)?.at): StartupSli | undefined {
  if (createdAt === undefined || !client.runningObservedAt) return undefined;
  const pullMs = imagePullMs(events);
  const valueMs = Math.max(0, Math.round(client.runningObservedAt - createdAt - pullMs));
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
      return { stage: 'scheduling', summary: t('The scheduler found no node for the pod.'), messages: why.length ? why : cond?.message ? [cond.message] : [t('No Scheduled event yet: is kube-scheduler running and does it hold its leader lease?')] };
    }
    return undefined;
  }
  const sandbox = messages(['FailedCreatePodSandBox']);
  if (sandbox.length) return { stage: 'sandbox', summary: t('The container runtime could not create the pod sandbox — usually the CNI plugin is missing or failing on the node.'), messages: sandbox };
  const image = waiting.filter((w) => /ImagePull|ErrImage|InvalidImageName/.test(w.reason!));
  if (image.length) return { stage: 'image', summary: t('The image cannot be pulled.'), messages: [...new Set([...messages(['Failed']).filter((m) => /pull|image/i.test(m)), ...image.map((w) => w.message ?? w.reason!)])] };
  const crash = waiting.filter((w) => /CrashLoopBackOff|CreateContainer|RunContainerError/.test(w.reason!));
  if (crash.length) return { stage: 'container', summary: t('The container does not stay up.'), messages: [...new Set([...crash.map((w) => `${w.reason}: ${w.message ?? ''}`.trim()), ...messages(['BackOff', 'Failed'])])] };
  const ready = pod.conditions?.find((c) => c.type === 'Ready');
  if (pod.phase === 'Running' && ready?.status === 'False' && created && now - created > STALL_AFTER_MS) {
    return { stage: 'readiness', summary: t('Containers run but the pod is not Ready — check its readiness probe.'), messages: messages(['Unhealthy']).concat(ready.message ? [ready.message] : []) };
  }
  return undefined;
}
