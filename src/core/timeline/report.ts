/**
 * A timeline for a terminal or a script: every step in causal order with its lane, source and precision, when
 * it happened after the POST and how long after the step before it, then the hops' durations (compare.ts), the
 * startup SLI and what each source could or could not read. The JSON form carries the same, with times as
 * numbers, for the lab's bench record and for CI.
 */
import { t } from '../l10n';
import { hopTimes, type HopTime } from './compare';
import { isoMicro, type Timeline } from './model';
import { readTime } from './causal';

export interface ReportStep {
  step: string;
  lane: string;
  label: string;
  source: string;
  precision: string;
  /** ms after the POST left the client (or after the first step when there was no POST). */
  offsetMs: number;
  /** ms after the step drawn before it. */
  sincePreviousMs: number;
  /** The interval the step can be in, as offsets: wider than a millisecond for second-precision readings. */
  loMs: number;
  hiMs: number;
  /** The reading as its source printed it, in its own clock (`clock`; the report's `clockFit` puts it on the client's). */
  read: string;
  /** A record stamped after the fact: the earliest the step can have been (an audit ResponseComplete: its request's arrival). */
  earliest?: string;
  /** A record stamped after the fact with no earliest moment (the scheduler's Scheduled event): `read` is only the latest. */
  latestOnly?: true;
  clock: string;
  container?: string;
  detail?: string;
  warning?: boolean;
  adjusted?: boolean;
}

export interface TimelineReport {
  pod: Timeline['pod'];
  steps: ReportStep[];
  hops: HopTime[];
  sli?: Timeline['sli'];
  stall?: Timeline['stall'];
  sources: Timeline['sources'];
  /** How the control plane's and the node's clocks were put on the client's (offsets in ms). */
  clockFit: Timeline['clock'];
}

const round = (ms: number): number => Math.round(ms * 1000) / 1000;

export function timelineReport(t: Timeline): TimelineReport {
  const origin = t.entries.find((e) => e.step === 'request-sent')?.at ?? t.start;
  let previous = origin;
  const steps = t.entries.map((e): ReportStep => {
    const s: ReportStep = {
      step: e.step, lane: e.lane, label: e.label, source: e.source, precision: e.precision,
      offsetMs: round(e.at - origin), sincePreviousMs: round(e.at - previous), loMs: round(e.lo - origin), hiMs: round(e.hi - origin), read: e.read, clock: e.clock,
      ...(e.earlierBy === undefined ? {} : Number.isFinite(e.earlierBy) ? { earliest: isoMicro(readTime(e.read)!.at - e.earlierBy) } : { latestOnly: true as const }),
      ...(e.container ? { container: e.container } : {}), ...(e.detail ? { detail: e.detail } : {}), ...(e.warning ? { warning: true } : {}), ...(e.adjusted ? { adjusted: true } : {}),
    };
    previous = e.at;
    return s;
  });
  return { pod: t.pod, steps, hops: hopTimes(t), ...(t.sli ? { sli: t.sli } : {}), ...(t.stall ? { stall: t.stall } : {}), sources: t.sources, clockFit: t.clock };
}

const PRECISION: Record<string, string> = { us: 'µs', ms: 'ms', s: 's' };

function ms(n: number): string {
  return n.toFixed(1).padStart(9);
}

export function renderTimelineText(r: TimelineReport): string {
  const lines: string[] = [];
  lines.push(t('kubectl run timeline: {0}/{1}{2} (ms after the POST; Δ after the step before)', r.pod.namespace, r.pod.name, r.pod.node ? t(' on {0}', r.pod.node) : ''));
  lines.push(`${'+ms'.padStart(9)} ${'Δms'.padStart(9)}  ${'lane'.padEnd(10)} ${'source'.padEnd(9)} ${'prec'.padEnd(4)} step`);
  for (const s of r.steps) {
    // A second-precision reading is an interval: say how wide, so nobody reads its point as exact.
    const interval = s.hiMs - s.loMs >= 2 ? ` [${s.loMs.toFixed(0)}…${s.hiMs.toFixed(0)}]` : '';
    const flags = `${s.warning ? t(' (warning)') : ''}${s.adjusted ? t(' (moved by causal order: the clocks disagree)') : ''}`;
    lines.push(`${ms(s.offsetMs)} ${ms(s.sincePreviousMs)}  ${s.lane.padEnd(10)} ${s.source.padEnd(9)} ${(PRECISION[s.precision] ?? s.precision).padEnd(4)} ${s.label}${s.container ? ` [${s.container}]` : ''}${interval}${flags}`);
  }
  lines.push('', t('hops:'));
  for (const h of r.hops) lines.push(`  ${h.hop.padEnd(24)} ${h.ms === undefined ? t('not seen') : `${h.ms.toFixed(1)} ms${h.coarse ? t(' (from second-precision readings)') : ''}`}`);
  if (r.sli) lines.push('', t('startup SLI (pulls excluded): {0} ms, pulls {1} ms, SLO {2} ms: {3}', r.sli.valueMs, r.sli.pullMs, r.sli.sloMs, r.sli.met ? t('met') : t('NOT met')));
  if (r.stall) lines.push('', t('stalled at {0}: {1}', r.stall.stage, r.stall.summary), ...r.stall.messages.map((m) => `  ${m}`));
  lines.push('', t('sources:'));
  // `read`/`missing` are the state's own names, in the column scripts read
  for (const s of r.sources) lines.push(`  ${s.state === 'read' ? 'read   ' : 'missing'}  ${s.source}: ${s.text}`);
  return lines.join('\n') + '\n';
}
