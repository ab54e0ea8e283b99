/**
 * What the lab's two timeline tests (the CLI's, timeline.test.ts, and the panel's, ui-timeline.test.ts) share: the
 * seed's sequence from `kubectl run` to Ready with the source each hop must come from on the lab cluster (its API
 * servers write the audit log), the test image, and the worker the image is removed from for a cold run.
 */
import { spawnSync } from 'node:child_process';
import { mustPrecede, readTime, STEPS, type Observation, type Step } from '../../src/core/timeline/causal';
import type { TimelineReport } from '../../src/core/timeline/report';

export const WORKERS = ['labs-k8s-w01', 'labs-k8s-w02'];
export const IMAGE = '10.3.60.1:5000/kwlab/web:1.0';

/** The seed's sequence: each hop with the source it must come from on this cluster. */
export const SEQUENCE: [step: string, source: string, precision: string][] = [
  ['request-sent', 'client', 'ms'],
  ['request-received', 'audit', 'us'],
  ['stored', 'audit', 'us'],
  ['response-received', 'client', 'ms'],
  // µs from an events.k8s.io event; seconds from the core/v1 one a scheduler writes when the events API was not
  // there at its start (kubeadm starts it beside its API server): the binding's audit time is then the µs one.
  ['scheduled', 'event', 'us|s'],
  ['bound', 'audit', 'us'],
  ['kubelet-sync', 'journal', 'us'],
  ['sandbox-start', 'journal', 'us'],
  ['cni-add', 'journal', 'us'],
  ['sandbox-ready', 'journal', 'us'],
  ['pulling', 'journal', 'us'],
  ['pulled', 'journal', 'us'],
  ['container-created', 'journal', 'us'],
  ['container-started', 'journal', 'us'],
  ['running-observed', 'watch', 'ms'],
  ['ready-observed', 'watch', 'ms'],
];
/**
 * The pairs of the sequence (`want`, in the seed's order) that must be drawn in that order: those the model's laws
 * order (core/timeline/causal.ts). The seed's diagram puts the 201 before the scheduler, but the scheduler needs only
 * the stored pod: on a loaded machine kubectl reads its 201 after the binding, and the timeline says so.
 */
export function orderedPairs(want: typeof SEQUENCE): [a: (typeof SEQUENCE)[number], b: (typeof SEQUENCE)[number]][] {
  const obs = (step: string): Observation => ({ step: step as Step, at: 0, precision: 'ms', clock: 'client' });
  const out: [(typeof SEQUENCE)[number], (typeof SEQUENCE)[number]][] = [];
  want.forEach((a, i) => want.forEach((b, j) => { if (i < j && mustPrecede(obs(a[0]), obs(b[0]))) out.push([a, b]); }));
  return out;
}
/** The hops only a cold run has. */
export const PULL = new Set(['pulling', 'pulled']);

export function labSsh(env: Record<string, string>, host: string, command: string): { code: number; out: string } {
  const r = spawnSync('ssh', ['-F', env.LAB_SSH_CONFIG!, '-o', `UserKnownHostsFile=${env.LAB_KNOWN_HOSTS}`, host, command], { encoding: 'utf8', timeout: 60_000 });
  return { code: r.status ?? -1, out: `${r.stdout}${r.stderr}` };
}

/** A worker the image can be removed from (no container of an earlier test uses it there): the cold run's node. */
export async function coldNode(env: Record<string, string>): Promise<string | undefined> {
  const deadline = Date.now() + 60_000;
  while (Date.now() < deadline) {
    for (const w of WORKERS) {
      labSsh(env, w, `crictl rmi ${IMAGE} >/dev/null 2>&1 || true`);
      if (labSsh(env, w, `crictl inspecti ${IMAGE} >/dev/null 2>&1`).code !== 0) return w;
    }
    // Containers of pods deleted a moment ago are still being stopped.
    await new Promise((r) => setTimeout(r, 3000));
  }
  return undefined;
}

export function inSubnet(ip: string, cidr: string): boolean {
  const [net, bits] = cidr.split('/');
  const n = (a: string) => a.split('.').reduce((x, o) => (x << 8) + Number(o), 0) >>> 0;
  const mask = Number(bits) === 0 ? 0 : (~0 << (32 - Number(bits))) >>> 0;
  return ((n(ip) & mask) >>> 0) === ((n(net!) & mask) >>> 0);
}

/**
 * Every drawn step against its source's own time: the reading (`read`, in its machine's clock) put on the client's
 * clock by the run's fitted offsets is an interval of its precision; the step's interval must lie inside it and its
 * point inside its interval — unless the model moved it (`adjusted`: the clocks disagreed). On the lab every machine
 * shares this one's clock, so nothing may be moved and the fitted offsets stay within the few milliseconds the soft
 * edge (the 201's flight before the scheduler acts) allows. Returns what is wrong, one line each.
 */
export function checkAgainstSources(run: TimelineReport, sameClock: boolean): string[] {
  const problems: string[] = [];
  const post = run.steps.find((s) => s.step === 'request-sent');
  if (!post) return ['no POST on the timeline: nothing to measure from'];
  const origin = readTime(post.read)!.at;
  const shift = (clock: string) => (clock === 'cluster' ? run.clockFit.cluster.offsetMs : clock === 'node' ? run.clockFit.node.offsetMs : 0);
  const width: Record<string, number> = { s: 1000, ms: 1, us: 0.001 };
  for (const s of run.steps) {
    const r = readTime(s.read);
    if (!r) {
      problems.push(`${s.label} (${s.source}): unreadable source time ${s.read}`);
      continue;
    }
    // A record stamped after the fact allows earlier: since its request arrived (audit), or any time (Scheduled event).
    const earliest = s.latestOnly ? -Infinity : s.earliest ? readTime(s.earliest)!.at : r.at;
    const lo = earliest + shift(s.clock) - origin;
    const hi = r.at + shift(s.clock) - origin + (width[s.precision] ?? 1000);
    const where = `${s.label} (${s.step} from ${s.source}, read ${s.read})`;
    if (!(s.loMs <= s.offsetMs + 0.001 && s.offsetMs <= s.hiMs + 0.001)) problems.push(`${where}: drawn at ${s.offsetMs} ms outside its interval [${s.loMs}, ${s.hiMs}]`);
    if (s.adjusted) {
      if (sameClock) problems.push(`${where}: moved beyond its source's time by the causal order, on machines that share one clock`);
      continue;
    }
    if (s.loMs < lo - 0.01 || s.hiMs > hi + 0.01) problems.push(`${where}: drawn in [${s.loMs}, ${s.hiMs}] ms, its source says [${lo.toFixed(3)}, ${hi.toFixed(3)}] ms`);
  }
  if (sameClock) {
    for (const c of ['cluster', 'node'] as const) if (Math.abs(run.clockFit[c].offsetMs) > 5) problems.push(`the ${c}'s clock fitted ${run.clockFit[c].offsetMs.toFixed(1)} ms off the client's, on one machine's clock`);
  }
  return problems;
}

/**
 * The causal order of every pair of steps drawn (the model's own edges, not only the seed's sequence): a step that
 * must precede another is at no later a position and listed before it. `pos` is the time or the x on the chart.
 */
export function causalInversions(items: { step: string; source: string; container?: string | undefined; pos: number; label: string }[]): string[] {
  const out: string[] = [];
  const obs = (i: (typeof items)[number]): Observation => ({ step: (STEPS as readonly string[]).includes(i.step) ? (i.step as Step) : 'other', at: i.pos, precision: 'ms', clock: 'client', source: i.source, ...(i.container ? { container: i.container } : {}) });
  items.forEach((a, i) => items.forEach((b, j) => {
    if (i === j || !mustPrecede(obs(a), obs(b))) return;
    if (a.pos > b.pos) out.push(`${a.label} (${a.step}/${a.source}) at ${a.pos} after ${b.label} (${b.step}/${b.source}) at ${b.pos}`);
    else if (i > j) out.push(`${a.label} (${a.step}/${a.source}) listed after ${b.label} (${b.step}/${b.source})`);
  }));
  return out;
}
