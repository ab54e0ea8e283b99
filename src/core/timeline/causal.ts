/**
 * Places the steps of a `kubectl run` by what must precede what, not only by their timestamps.
 *
 * The evidence comes in three precisions and two clocks: the client's own clock (ms, the anchor),
 * and the cluster's (µs from events.k8s.io, audit and journals; only seconds from creationTimestamp,
 * conditions and core/v1 Events, which the API truncates to the start of their second). A timestamp
 * is therefore an interval: [t, t+1 s) for a second, [t, t+1 ms) for a millisecond. The seed's
 * sequence gives hard edges (the pod is stored before the 201 reaches kubectl; the sandbox exists
 * before the image is pulled into it), and those edges
 *   1. bound the offset of the cluster's clock against the client's (the create must fall between
 *      the POST and the 201), and
 *   2. narrow every interval (creation lies between the POST and the 201, not at the start of its second).
 * Each step is then drawn at a point inside its interval that never precedes a step it depends on.
 */

/** One hop of the seed's sequence. `other` has no causal place (warnings, back-offs). */
export const STEPS = [
  'request-sent', 'request-received', 'stored', 'response-received',
  'scheduled', 'bound', 'bind-observed', 'kubelet-sync', 'initialized',
  'sandbox-start', 'cni-add', 'sandbox-ready', 'network-ready',
  'pulling', 'pulled', 'container-created', 'container-started',
  'running-observed', 'ready', 'ready-observed', 'other',
] as const;
export type Step = (typeof STEPS)[number];

/**
 * Edges: `pred` happens before `succ` (the seed's steps 1–8), each a law: they bound the clocks' fit and move a
 * reading that disagrees.
 */
const EDGES: [Step, Step][] = [
  ['request-sent', 'request-received'], ['request-received', 'stored'], ['stored', 'response-received'],
  ['stored', 'scheduled'], ['scheduled', 'bound'], ['bound', 'bind-observed'], ['bound', 'kubelet-sync'],
  ['kubelet-sync', 'initialized'], ['kubelet-sync', 'sandbox-start'], ['sandbox-start', 'cni-add'],
  ['cni-add', 'sandbox-ready'], ['sandbox-ready', 'network-ready'], ['sandbox-ready', 'pulling'],
  ['pulling', 'pulled'], ['sandbox-ready', 'pulled'], ['pulled', 'container-created'], ['container-created', 'container-started'],
  ['container-started', 'running-observed'], ['container-started', 'ready'], ['ready', 'ready-observed'],
  // The kubelet's conditions are in the pod status the watch saw Ready in, so they were written before it: a
  // second-precision PodReadyToStartContainers (or Initialized) cannot be drawn after "Watch: Ready".
  ['network-ready', 'ready-observed'], ['initialized', 'ready-observed'],
];

/**
 * One step read from several sources, in the order they happen (a reading of the same step from an earlier source
 * cannot follow one from a later): the kubelet records Pulling before it asks the runtime, and records Pulled,
 * Created and Started after the runtime's call returned; a container's process starts (its status's startedAt)
 * before StartContainer returns.
 */
const SOURCE_ORDER: Partial<Record<Step, readonly string[]>> = {
  pulling: ['event', 'journal'],
  pulled: ['journal', 'event'],
  'container-created': ['journal', 'event'],
  'container-started': ['status', 'journal', 'event'],
};

/** Where a reading of `step` from `source` stands among that step's sources (0 when the step has no such order). */
export function sourceRank(step: Step, source: string | undefined): number {
  const order = SOURCE_ORDER[step];
  return order && source ? Math.max(0, order.indexOf(source)) : 0;
}

/** Steps that belong to one container: an edge between two of them holds only for the same container. */
const PER_CONTAINER = new Set<Step>(['pulling', 'pulled', 'container-created', 'container-started']);

export type Precision = 'ms' | 'us' | 's';
/**
 * Whose clock a reading is in: ours (the anchor), the control plane's (API server, scheduler: creation,
 * audit, Scheduled) or the pod's node (kubelet, containerd). Each machine's clock is fitted on its own.
 */
export type Clock = 'client' | 'cluster' | 'node';

export interface Observation {
  step: Step;
  /** Epoch ms as read from its own clock (the start of its second for second precision). */
  at: number;
  precision: Precision;
  clock: Clock;
  /** The container a per-container step is about. */
  container?: string;
  /** Where it was read (client, event, status, journal…): orders readings of one step (SOURCE_ORDER). */
  source?: string;
  /**
   * A record stamped after the fact: the step happened up to this many ms before `at` (an audit ResponseComplete: since
   * its request arrived), or at any time before it (Infinity: the scheduler's Scheduled event, written after its bind).
   */
  earlierBy?: number;
}

export interface Placement {
  /** Earliest and latest possible time in the client's clock. */
  lo: number;
  hi: number;
  /** Where it is drawn: inside [lo, hi], never before a step it depends on. */
  at: number;
  /** The reading was moved by a causal edge beyond what its precision allows (clocks disagree). */
  adjusted: boolean;
}

export interface DomainFit {
  /** Added to this clock's times to put them in the client's clock. */
  offsetMs: number;
  /** The offsets the edges allow, when they bound it (lower > upper: readings of this clock disagree). */
  lowerMs?: number;
  upperMs?: number;
}

export interface ClockFit {
  cluster: DomainFit;
  node: DomainFit;
  /** Whether the seed's diagram order (DIAGRAM_ONLY) held in the readings, and so placed them too. */
  diagramOrder: boolean;
}

/**
 * An RFC 3339 time as epoch ms with its precision: seconds when it has no fraction (metav1.Time),
 * ms, or µs for longer fractions (MicroTime, journald, containerd's ns) — Date.parse alone keeps ms.
 */
export function readTime(iso: string | undefined): { at: number; precision: Precision } | undefined {
  if (!iso) return undefined;
  const m = /^(\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d)(?:\.(\d+))?(Z|[+-]\d\d:?\d\d)$/.exec(iso.trim());
  if (!m) return undefined;
  const zone = m[3] === 'Z' ? 'Z' : m[3]!.replace(/^([+-]\d\d)(\d\d)$/, '$1:$2');
  const whole = Date.parse(`${m[1]}${zone}`);
  if (Number.isNaN(whole)) return undefined;
  const fraction = m[2] ?? '';
  const micros = Number(fraction.slice(0, 6).padEnd(6, '0'));
  return { at: whole + micros / 1000, precision: fraction.length === 0 ? 's' : fraction.length <= 3 ? 'ms' : 'us' };
}

const RESOLUTION: Record<Precision, number> = { s: 1000, ms: 1, us: 0.001 };

/**
 * The seed's diagram order that is not a law: the 201 reaching kubectl before the scheduler acts. The scheduler only
 * needs the stored pod, and a busy client reads its 201 tens of milliseconds after the API server sent it — after the
 * binding, measured on the lab's loaded machine. It places readings only where it holds at the clocks the laws fit
 * (fitClock): taken as a law, it shifted the control plane's clock by that delay and moved the kubelet's readings.
 */
const DIAGRAM_ONLY: [Step, Step][] = [['response-received', 'scheduled']];

/** Transitive closure of the edges: before.get(a).has(b) ⇔ a precedes b. */
function closure(edges: [Step, Step][]): Map<Step, Set<Step>> {
  const direct = new Map<Step, Step[]>();
  for (const [a, b] of edges) direct.set(a, [...(direct.get(a) ?? []), b]);
  const found = new Map<Step, Set<Step>>();
  const visit = (s: Step): Set<Step> => {
    const known = found.get(s);
    if (known) return known;
    const out = new Set<Step>();
    for (const n of direct.get(s) ?? []) {
      out.add(n);
      for (const m of visit(n)) out.add(m);
    }
    found.set(s, out);
    return out;
  };
  for (const s of STEPS) visit(s);
  return found;
}

/** What must precede what (the laws). */
const BEFORE = closure(EDGES);
/** The seed's diagram order (laws and diagram-only edges). */
const DIAGRAM = closure([...EDGES, ...DIAGRAM_ONLY]);

/** Depth in the diagram's graph: a tie at the same instant reads in the seed's order. */
export const STEP_RANK: Record<Step, number> = Object.fromEntries(STEPS.map((s) => [s, STEPS.filter((o) => DIAGRAM.get(o)!.has(s)).length])) as Record<Step, number>;

/** Whether `a` precedes `b` by the laws, or (`diagram`) by the seed's diagram order too. */
export function mustPrecede(a: Observation, b: Observation, diagram = false): boolean {
  if (a.step === 'other' || b.step === 'other') return false;
  // Two containers' pulls and starts interleave; one container's cannot.
  const otherContainer = PER_CONTAINER.has(a.step) && PER_CONTAINER.has(b.step) && a.container && b.container && a.container !== b.container;
  if (a.step === b.step) {
    const order = SOURCE_ORDER[a.step];
    if (!order || !a.source || !b.source || otherContainer) return false;
    const i = order.indexOf(a.source);
    const j = order.indexOf(b.source);
    return i >= 0 && j >= 0 && i < j;
  }
  if (!(diagram ? DIAGRAM : BEFORE).get(a.step)!.has(b.step)) return false;
  return !otherContainer;
}

/**
 * One clock's offset against clocks already fitted: 0 when the edges allow it, else the smallest
 * shift that keeps every edge (the create between the POST and the 201, the start before the watch saw it).
 */
function fitDomain(obs: Observation[], domain: Clock, fixed: Partial<Record<Clock, number>>): DomainFit {
  let lower = -Infinity;
  let upper = Infinity;
  for (const a of obs) {
    for (const b of obs) {
      if (!mustPrecede(a, b)) continue;
      const fa = fixed[a.clock];
      const fb = fixed[b.clock];
      // Its earliest moment precedes the successor's latest: a record stamped after the fact bounds nothing from below.
      const aEarliest = a.at - (a.earlierBy ?? 0);
      if (!Number.isFinite(aEarliest)) continue;
      if (b.clock === domain && fa !== undefined) lower = Math.max(lower, aEarliest + fa - (b.at + RESOLUTION[b.precision])); // a ≤ b + d
      if (a.clock === domain && fb !== undefined) upper = Math.min(upper, b.at + fb + RESOLUTION[b.precision] - aEarliest); // a + d ≤ b
    }
  }
  const offsetMs = lower > upper ? (lower + upper) / 2 : Math.min(Math.max(0, lower), upper);
  return { offsetMs, ...(Number.isFinite(lower) ? { lowerMs: lower } : {}), ...(Number.isFinite(upper) ? { upperMs: upper } : {}) };
}

/**
 * The control plane's clock against ours, then the node's against both, by the laws alone; the seed's diagram order
 * then places the readings too when it holds at those clocks (it never shifts one: where it does not hold, the readings
 * say what happened).
 */
export function fitClock(obs: Observation[]): ClockFit {
  const cluster = fitDomain(obs, 'cluster', { client: 0 });
  const node = fitDomain(obs, 'node', { client: 0, cluster: cluster.offsetMs });
  const shift = (o: Observation): number => (o.clock === 'client' ? 0 : o.clock === 'cluster' ? cluster.offsetMs : node.offsetMs);
  const holds = obs.every((a) => obs.every((b) => !mustPrecede(a, b, true) || mustPrecede(a, b) || a.at - (a.earlierBy ?? 0) + shift(a) <= b.at + shift(b) + RESOLUTION[b.precision]));
  return { cluster, node, diagramOrder: holds };
}

export function placeCausally(obs: Observation[], fit: ClockFit = fitClock(obs)): Placement[] {
  const shift = (o: Observation): number => (o.clock === 'client' ? 0 : fit[o.clock].offsetMs);
  const lo = obs.map((o) => o.at - (o.earlierBy ?? 0) + shift(o));
  const hi = obs.map((o) => o.at + shift(o) + RESOLUTION[o.precision]);
  const adjusted = obs.map(() => false);
  const pairs: [number, number][] = [];
  obs.forEach((a, i) => obs.forEach((b, j) => { if (i !== j && mustPrecede(a, b, fit.diagramOrder)) pairs.push([i, j]); }));
  // Narrow to a fixpoint: a step starts no earlier than its predecessors, ends no later than its successors.
  for (let round = 0, changed = true; changed && round <= obs.length + 1; round++) {
    changed = false;
    for (const [i, j] of pairs) {
      if (lo[j]! < lo[i]!) { lo[j] = lo[i]!; changed = true; }
      if (hi[i]! > hi[j]!) { hi[i] = hi[j]!; changed = true; }
    }
    for (let k = 0; k < obs.length; k++) {
      // Contradiction (a node's clock off from the API server's): the edge wins over the reading.
      if (lo[k]! > hi[k]!) { hi[k] = lo[k]!; adjusted[k] = true; }
    }
  }
  // A record with no earliest moment that nothing before it narrowed: from its own time.
  for (let k = 0; k < obs.length; k++) if (!Number.isFinite(lo[k]!)) lo[k] = Math.min(obs[k]!.at + shift(obs[k]!), hi[k]!);
  const precise = (k: number): boolean => obs[k]!.precision !== 's';
  const raw = obs.map((o, k) => (precise(k) ? Math.min(Math.max(o.at + shift(o), lo[k]!), hi[k]!) : (lo[k]! + hi[k]!) / 2));
  // Points in dependency order: never before a predecessor's point.
  const order = obs.map((_, k) => k).sort((a, b) => STEP_RANK[obs[a]!.step] - STEP_RANK[obs[b]!.step]);
  const at = [...raw];
  for (let round = 0, changed = true; changed && round <= obs.length + 1; round++) {
    changed = false;
    for (const j of order) {
      for (const [p, s] of pairs) if (s === j && at[p]! > at[j]!) { at[j] = at[p]!; changed = true; }
    }
  }
  return obs.map((_, k) => ({ lo: lo[k]!, hi: Math.max(hi[k]!, at[k]!), at: at[k]!, adjusted: adjusted[k]! || at[k]! > hi[k]! }));
}
