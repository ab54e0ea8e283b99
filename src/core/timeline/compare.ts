/**
 * Two runs of the same pod side by side (cold image then warm, or two nodes): the time of each hop
 * in both, aligned at the POST, and why their startup SLIs differ, in the words of their own evidence
 * ("the pull took 1.20 s on w01; w02 had the image").
 */
import { imagePullMs, type Timeline, type TimelineEntry } from './model';
import type { Step } from './causal';
import { formatDuration } from './layout';
import { t } from '../l10n';

/** The hops of the seed's sequence, by what code matches (their names are in the display language). */
export type HopId = 'api' | 'scheduling' | 'binding' | 'sandbox' | 'pull' | 'start' | 'ready';

export interface HopTime {
  /** The hop's name in the display language. */
  hop: string;
  id: HopId;
  /** ms, undefined when a side lacks either end; `coarse` when an end is a second-precision interval. */
  ms?: number;
  coarse?: boolean;
}

export interface RunComparison {
  hops: { hop: string; id: HopId; a: HopTime; b: HopTime; deltaMs?: number }[];
  /** b's SLI minus a's, ms. */
  sliDeltaMs?: number;
  explanation: string[];
}

const HOPS: [HopId, Step[], Step[]][] = [
  ['api', ['request-sent'], ['response-received']],
  ['scheduling', ['stored'], ['scheduled', 'bound']],
  ['binding', ['bound', 'scheduled'], ['kubelet-sync']],
  ['sandbox', ['sandbox-start', 'kubelet-sync'], ['sandbox-ready', 'network-ready']],
  ['pull', ['pulling'], ['pulled']],
  ['start', ['pulled', 'container-created'], ['container-started']],
  ['ready', ['container-started'], ['ready']],
];

const HOP_TITLE: Record<HopId, () => string> = {
  api: () => t('API: POST to 201'),
  scheduling: () => t('Scheduling'),
  binding: () => t('Binding to the kubelet'),
  sandbox: () => t('Sandbox and CNI'),
  pull: () => t('Image pull'),
  start: () => t('Create and start'),
  ready: () => t('Started to Ready'),
};

/** Every hop's name in the display language (the webview gets them with the timeline). */
export function hopTitles(): Record<HopId, string> {
  return Object.fromEntries(HOPS.map(([id]) => [id, HOP_TITLE[id]()])) as Record<HopId, string>;
}

function firstOf(tl: Timeline, steps: Step[]): TimelineEntry | undefined {
  for (const s of steps) {
    const found = tl.entries.filter((e) => e.step === s);
    // The most precise reading of the step, then the earliest.
    const best = found.sort((x, y) => (x.hi - x.lo) - (y.hi - y.lo) || x.at - y.at)[0];
    if (best) return best;
  }
  return undefined;
}

export function hopTimes(timeline: Timeline): HopTime[] {
  return HOPS.map(([id, from, to]) => {
    const hop = HOP_TITLE[id]();
    const a = firstOf(timeline, from);
    const b = firstOf(timeline, to);
    if (!a || !b) return { hop, id };
    const coarse = a.hi - a.lo >= 2 || b.hi - b.lo >= 2;
    // Between second-precision events the kubelet's own measure of a pull (its Pulled event's words) is the better number.
    const measured = id === 'pull' && coarse ? /\bin ([\d.]+)(ms|s)\b/.exec(b.detail ?? '') : null;
    if (measured) return { hop, id, ms: Number(measured[1]) * (measured[2] === 's' ? 1000 : 1) };
    return { hop, id, ms: Math.max(0, b.at - a.at), ...(coarse ? { coarse: true } : {}) };
  });
}

/** The image was already on the node: the kubelet says so in its Pulled event. */
function imagePresent(tl: Timeline): boolean {
  return tl.entries.some((e) => e.step === 'pulled' && /already present on machine/.test(e.detail ?? ''));
}

function pullMsOf(tl: Timeline): number {
  return tl.sli?.pullMs ?? imagePullMs(tl.entries.filter((e) => e.step === 'pulled').map((e) => ({ reason: 'Pulled', ...(e.detail ? { message: e.detail } : {}) })));
}

export function compareRuns(a: Timeline, b: Timeline): RunComparison {
  const ha = hopTimes(a);
  const hb = hopTimes(b);
  const hops = ha.map((x, i) => ({ hop: x.hop, id: x.id, a: x, b: hb[i]!, ...(x.ms !== undefined && hb[i]!.ms !== undefined ? { deltaMs: hb[i]!.ms! - x.ms } : {}) }));
  const explanation: string[] = [];
  const nodeA = a.pod.node ?? t('its node');
  const nodeB = b.pod.node ?? t('its node');
  const sameNode = a.pod.node !== undefined && a.pod.node === b.pod.node;
  const [pa, pb] = [pullMsOf(a), pullMsOf(b)];
  // Only once both runs have their image (a run still starting has not pulled *yet*).
  const bothPulled = [a, b].every((tl) => tl.entries.some((e) => e.step === 'pulled'));
  if (!bothPulled) explanation.push(t('Waiting for both runs to have their image…'));
  else if (pa > 0 && pb === 0) explanation.push(t('The pull took {0} on {1}; {2}{3}.', formatDuration(pa), nodeA, sameNode ? t('the second run found the image there') : t('{0} had the image', nodeB), imagePresent(b) ? ' ("already present on machine")' : ''));
  else if (pb > 0 && pa === 0) explanation.push(t('The pull took {0} on {1}; {2}.', formatDuration(pb), nodeB, sameNode ? t('the first run found the image there') : t('{0} had the image', nodeA)));
  else if (pa > 0 && pb > 0) explanation.push(t('Both runs pulled the image: {0} on {1}, {2} on {3}.', formatDuration(pa), nodeA, formatDuration(pb), nodeB));
  const sliDeltaMs = a.sli && b.sli ? b.sli.valueMs - a.sli.valueMs : undefined;
  if (sliDeltaMs !== undefined) {
    // The SLI leaves pulls out: its difference is in the other hops; name the one that moved most.
    const moved = hops.filter((h) => h.id !== 'pull' && h.deltaMs !== undefined).sort((x, y) => Math.abs(y.deltaMs!) - Math.abs(x.deltaMs!))[0];
    const what = moved && Math.abs(moved.deltaMs!) >= 1 ? t('; most of it in "{0}" ({1}{2}{3})', moved.hop, moved.deltaMs! > 0 ? '+' : '−', formatDuration(Math.abs(moved.deltaMs!)), moved.a.coarse || moved.b.coarse ? t(', from second-precision readings') : '') : '';
    explanation.push(t('Startup SLI (pulls excluded): {0} then {1}, {2}{3}{4}.', formatDuration(a.sli!.valueMs), formatDuration(b.sli!.valueMs), sliDeltaMs >= 0 ? '+' : '−', formatDuration(Math.abs(sliDeltaMs)), what));
  }
  return { hops, ...(sliDeltaMs !== undefined ? { sliDeltaMs } : {}), explanation };
}
