/**
 * Two runs of the same pod side by side (cold image then warm, or two nodes): the time of each hop
 * in both, aligned at the POST, and why their startup SLIs differ, in the words of their own evidence
 * ("the pull took 1.20 s on w01; w02 had the image").
 */
import { imagePullMs, type Timeline, type TimelineEntry } from './model';
import type { Step } from './causal';
import { formatDuration } from './layout';

export interface HopTime {
  hop: string;
  /** ms, undefined when a side lacks either end; `coarse` when an end is a second-precision interval. */
  ms?: number;
  coarse?: boolean;
}

export interface RunComparison {
  hops: { hop: string; a: HopTime; b: HopTime; deltaMs?: number }[];
  /** b's SLI minus a's, ms. */
  sliDeltaMs?: number;
  explanation: string[];
}

const HOPS: [string, Step[], Step[]][] = [
  ['API: POST to 201', ['request-sent'], ['response-received']],
  ['Scheduling', ['stored'], ['scheduled', 'bound']],
  ['Binding to the kubelet', ['bound', 'scheduled'], ['kubelet-sync']],
  ['Sandbox and CNI', ['sandbox-start', 'kubelet-sync'], ['sandbox-ready', 'network-ready']],
  ['Image pull', ['pulling'], ['pulled']],
  ['Create and start', ['pulled', 'container-created'], ['container-started']],
  ['Started to Ready', ['container-started'], ['ready']],
];

function firstOf(t: Timeline, steps: Step[]): TimelineEntry | undefined {
  for (const s of steps) {
    const found = t.entries.filter((e) => e.step === s);
    // The most precise reading of the step, then the earliest.
    const best = found.sort((x, y) => (x.hi - x.lo) - (y.hi - y.lo) || x.at - y.at)[0];
    if (best) return best;
  }
  return undefined;
}

export function hopTimes(t: Timeline): HopTime[] {
  return HOPS.map(([hop, from, to]) => {
    const a = firstOf(t, from);
    const b = firstOf(t, to);
    if (!a || !b) return { hop };
    const coarse = a.hi - a.lo >= 2 || b.hi - b.lo >= 2;
    // Between second-precision events the kubelet's own measure of a pull is the better number.
    const measured = hop === 'Image pull' && coarse ? /\bin ([\d.]+)(ms|s)\b/.exec(b.detail ?? '') : null;
    if (measured) return { hop, ms: Number(measured[1]) * (measured[2] === 's' ? 1000 : 1) };
    return { hop, ms: Math.max(0, b.at - a.at), ...(coarse ? { coarse: true } : {}) };
  });
}

/** The image was already on the node: the kubelet says so in its Pulled event. */
function imagePresent(t: Timeline): boolean {
  return t.entries.some((e) => e.step === 'pulled' && /already present on machine/.test(e.detail ?? ''));
}

function pullMsOf(t: Timeline): number {
  return t.sli?.pullMs ?? imagePullMs(t.entries.filter((e) => e.step === 'pulled').map((e) => ({ reason: 'Pulled', ...(e.detail ? { message: e.detail } : {}) })));
}

export function compareRuns(a: Timeline, b: Timeline): RunComparison {
  const ha = hopTimes(a);
  const hb = hopTimes(b);
  const hops = ha.map((x, i) => ({ hop: x.hop, a: x, b: hb[i]!, ...(x.ms !== undefined && hb[i]!.ms !== undefined ? { deltaMs: hb[i]!.ms! - x.ms } : {}) }));
  const explanation: string[] = [];
  const nodeA = a.pod.node ?? 'its node';
  const nodeB = b.pod.node ?? 'its node';
  const sameNode = a.pod.node !== undefined && a.pod.node === b.pod.node;
  const [pa, pb] = [pullMsOf(a), pullMsOf(b)];
  // Only once both runs have their image (a run still starting has not pulled *yet*).
  const bothPulled = [a, b].every((t) => t.entries.some((e) => e.step === 'pulled'));
  if (!bothPulled) explanation.push('Waiting for both runs to have their image…');
  else if (pa > 0 && pb === 0) explanation.push(`The pull took ${formatDuration(pa)} on ${nodeA}; ${sameNode ? 'the second run found the image there' : `${nodeB} had the image`}${imagePresent(b) ? ' ("already present on machine")' : ''}.`);
  else if (pb > 0 && pa === 0) explanation.push(`The pull took ${formatDuration(pb)} on ${nodeB}; ${sameNode ? 'the first run found the image there' : `${nodeA} had the image`}.`);
  else if (pa > 0 && pb > 0) explanation.push(`Both runs pulled the image: ${formatDuration(pa)} on ${nodeA}, ${formatDuration(pb)} on ${nodeB}.`);
  const sliDeltaMs = a.sli && b.sli ? b.sli.valueMs - a.sli.valueMs : undefined;
  if (sliDeltaMs !== undefined) {
    // The SLI leaves pulls out: its difference is in the other hops; name the one that moved most.
    const moved = hops.filter((h) => h.hop !== 'Image pull' && h.deltaMs !== undefined).sort((x, y) => Math.abs(y.deltaMs!) - Math.abs(x.deltaMs!))[0];
    const what = moved && Math.abs(moved.deltaMs!) >= 1 ? `; most of it in "${moved.hop}" (${moved.deltaMs! > 0 ? '+' : '−'}${formatDuration(Math.abs(moved.deltaMs!))}${moved.a.coarse || moved.b.coarse ? ', from second-precision readings' : ''})` : '';
    explanation.push(`Startup SLI (pulls excluded): ${formatDuration(a.sli!.valueMs)} then ${formatDuration(b.sli!.valueMs)}, ${sliDeltaMs >= 0 ? '+' : '−'}${formatDuration(Math.abs(sliDeltaMs))}${what}.`);
  }
  return { hops, ...(sliDeltaMs !== undefined ? { sliDeltaMs } : {}), explanation };
}
