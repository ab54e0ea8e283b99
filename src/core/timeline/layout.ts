/**
 * Where everything of a timeline goes on the chart: one band per component (the seed's sequence
 * diagram turned on its side), a marker per step, a bar per duration (the API request, the image
 * pull, the sandbox, the container start) and per second-precision interval, and labels that never
 * overlap. Labels sit in rows under their lane's axis; each takes the first row where its box is
 * free, so a burst of steps in the same millisecond stacks instead of printing over itself. The
 * width of a label is an upper bound of its text at LABEL_FONT (wide glyphs included), so the boxes
 * tested here contain what the browser draws.
 */
import { t } from '../l10n';
import { LANES, type Lane, type Timeline, type TimelineEntry } from './model';

export const LABEL_FONT_PX = 11;
/** Upper bound of a glyph's advance at LABEL_FONT_PX in the editor's sans fonts (average ≈ 6.2 px). */
export const CHAR_PX = 7.2;
const ROW_PX = 16;
const AXIS_PX = 18;
const LANE_GAP_PX = 10;
const LEFT = 150;
const RIGHT = 24;
const TOP = 34;
const LABEL_GAP = 4;

export interface Box { x: number; y: number; width: number; height: number }

export interface PlacedLabel {
  text: string;
  box: Box;
  /** The marker or bar the label belongs to, for a leader line. */
  anchorX: number;
  anchorY: number;
}

export interface Mark {
  /** Index into timeline.entries. */
  index: number;
  cx: number;
  cy: number;
  /** The interval the step can be in, when wider than a pixel. */
  x0: number;
  x1: number;
  label: PlacedLabel;
}

export interface Span {
  lane: Lane;
  name: string;
  from: number;
  to: number;
  x0: number;
  x1: number;
  y: number;
  label: PlacedLabel;
}

export interface LaneBand { lane: Lane; top: number; axisY: number; height: number }

export interface Layout {
  width: number;
  height: number;
  left: number;
  right: number;
  top: number;
  lanes: LaneBand[];
  marks: Mark[];
  spans: Span[];
  ticks: { x: number; text: string }[];
  x(at: number): number;
}

export function textWidth(text: string): number {
  return Math.ceil([...text].length * CHAR_PX) + 2;
}

export function boxesIntersect(a: Box, b: Box): boolean {
  return a.x < b.x + b.width && b.x < a.x + a.width && a.y < b.y + b.height && b.y < a.y + a.height;
}

export function formatOffset(ms: number): string {
  const abs = Math.abs(ms);
  const sign = ms < 0 ? '−' : '+';
  return abs < 1000 ? `${sign}${abs < 10 ? abs.toFixed(1).replace(/\.0$/, '') : Math.round(abs)} ms` : `${sign}${(abs / 1000).toFixed(abs < 10_000 ? 2 : 1)} s`;
}

/** An entry's time from the start: a point, or the interval a coarse reading can be in. */
export function formatWhen(e: Pick<TimelineEntry, 'at' | 'lo' | 'hi'>, start: number): string {
  if (e.hi - e.lo < 2) return formatOffset(e.at - start);
  return `${formatOffset(e.lo - start)} … ${formatOffset(e.hi - start).replace(/^\+/, '')}`;
}

export function formatDuration(ms: number): string {
  return formatOffset(ms).replace(/^\+/, '');
}

/**
 * Durations worth a bar: what the seed names as one hop taking time. Only between readings precise
 * enough to measure it (a gap between two second-precision readings is not a duration); a pull's
 * length may come from the kubelet's own "pulled … in 1.2s".
 */
export function spansOf(tl: Timeline): { lane: Lane; name: string; from: number; to: number }[] {
  const out: { lane: Lane; name: string; from: number; to: number }[] = [];
  const precise = (e: TimelineEntry): boolean => e.hi - e.lo < 2;
  const first = (pred: (e: TimelineEntry) => boolean): TimelineEntry | undefined => tl.entries.find((e) => precise(e) && pred(e));
  const pair = (lane: Lane, name: string, a?: TimelineEntry, b?: TimelineEntry): void => {
    if (a && b && b.at >= a.at) out.push({ lane, name, from: a.at, to: b.at });
  };
  pair('kubectl', t('request'), first((e) => e.step === 'request-sent'), first((e) => e.step === 'response-received'));
  pair('apiserver', t('authn, authz, admission, etcd'), first((e) => e.step === 'request-received'), first((e) => e.step === 'stored' && e.source === 'audit'));
  pair('runtime', t('sandbox'), first((e) => e.step === 'sandbox-start'), first((e) => e.step === 'sandbox-ready'));
  const containers = [...new Set(tl.entries.map((e) => e.container).filter((c): c is string => Boolean(c)))];
  for (const c of containers.length ? containers : [undefined]) {
    const of = (step: string) => first((e) => e.step === step && (c === undefined || e.container === c || !e.container));
    const suffix = containers.length > 1 ? ` ${c}` : '';
    const before = out.length;
    pair('kubelet', t('pull{0}', suffix), of('pulling'), of('pulled'));
    if (out.length === before) {
      // The kubelet's own measure: `Successfully pulled image "x" in 1.234s (…)`, ending at the Pulled event.
      const pulled = tl.entries.find((e) => e.step === 'pulled' && (c === undefined || e.container === c || !e.container) && /\bin [\d.]+m?s\b/.test(e.detail ?? ''));
      const m = /\bin ([\d.]+)(ms|s)\b/.exec(pulled?.detail ?? '');
      if (pulled && m) out.push({ lane: 'kubelet', name: t('pull{0} (kubelet\'s measure)', suffix), from: pulled.at - Number(m[1]) * (m[2] === 's' ? 1000 : 1), to: pulled.at });
    }
    pair('runtime', t('start{0}', suffix), of('container-created'), of('container-started'));
  }
  return out;
}

/** Round tick steps (1, 2, 5 × 10^n ms) about 90 px apart. */
function ticks(start: number, end: number, x: (at: number) => number, plotWidth: number): { x: number; text: string }[] {
  const span = Math.max(1, end - start);
  const raw = span / Math.max(1, plotWidth / 90);
  const mag = 10 ** Math.floor(Math.log10(raw));
  const step = [1, 2, 5, 10].map((m) => m * mag).find((s) => s >= raw) ?? 10 * mag;
  const out: { x: number; text: string }[] = [];
  for (let t = 0; t <= span + 1e-9; t += step) out.push({ x: x(start + t), text: t === 0 ? '0' : formatOffset(t) });
  return out;
}

export function layoutTimeline(t: Timeline, opts: { width: number; labelFor?: (e: TimelineEntry) => string; spanMs?: number }): Layout {
  const width = Math.max(LEFT + RIGHT + 200, opts.width);
  const plot = width - LEFT - RIGHT;
  // Two runs compared share one time scale: the longer one's.
  const span = Math.max(1, t.end - t.start, opts.spanMs ?? 0);
  const x = (at: number): number => LEFT + ((at - t.start) / span) * plot;
  const labelFor = opts.labelFor ?? ((e: TimelineEntry) => `${e.label} ${formatWhen(e, t.start)}`);
  const spanDefs = spansOf(t);

  const lanes: LaneBand[] = [];
  const marks: Mark[] = [];
  const spans: Span[] = [];
  let top = TOP;
  for (const lane of LANES) {
    const axisY = top + AXIS_PX / 2;
    const rows: Box[][] = [];
    // A label's first free row under the axis; to the left of its anchor when it would leave the plot.
    const place = (text: string, ax: number): Box => {
      const w = textWidth(text);
      const x0 = ax + w + LABEL_GAP > width - 4 ? Math.max(4, ax - LABEL_GAP - w) : ax + LABEL_GAP;
      for (let r = 0; ; r++) {
        const box = { x: x0, y: top + AXIS_PX + r * ROW_PX, width: w, height: ROW_PX - 2 };
        const row = (rows[r] ??= []);
        if (!row.some((b) => boxesIntersect(b, box))) {
          row.push(box);
          return box;
        }
      }
    };
    for (const s of spanDefs.filter((d) => d.lane === lane)) {
      const text = `${s.name} ${formatDuration(s.to - s.from)}`;
      const x0 = x(s.from);
      const x1 = Math.max(x(s.to), x0 + 2);
      spans.push({ ...s, x0, x1, y: axisY, label: { text, box: place(text, x0), anchorX: x0, anchorY: axisY } });
    }
    t.entries.forEach((e, index) => {
      if (e.lane !== lane) return;
      const cx = x(e.at);
      const text = labelFor(e);
      marks.push({ index, cx, cy: axisY, x0: x(e.lo), x1: x(e.hi), label: { text, box: place(text, cx), anchorX: cx, anchorY: axisY } });
    });
    const height = AXIS_PX + Math.max(1, rows.length) * ROW_PX + LANE_GAP_PX;
    lanes.push({ lane, top, axisY, height });
    top += height;
  }
  return { width, height: top + 30, left: LEFT, right: RIGHT, top: TOP, lanes, marks, spans, ticks: ticks(t.start, t.start + span, x, plot), x };
}

/** Every label box of a layout (marks and spans), for the overlap check. */
export function labelBoxes(l: Layout): { text: string; box: Box }[] {
  return [...l.spans.map((s) => s.label), ...l.marks.map((m) => m.label)];
}
