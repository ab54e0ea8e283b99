/**
 * Draws a timeline as SVG: one row per lane, time left to right relative to the first entry.
 * The same markup is shown in the webview (colours from the editor theme through CSS classes)
 * and exported to a file (fixed colours inlined), so what a user saves is what they saw.
 */
import { LANES, LANE_TITLES, type Timeline } from './model';

export interface SvgOptions {
  /** 'theme' uses CSS classes styled by the webview; 'export' inlines neutral colours. */
  colors: 'theme' | 'export';
  width?: number;
}

const ROW = 56;
const LEFT = 150;
const TOP = 40;
const RIGHT = 40;

export function escapeXml(text: string): string {
  return text.replace(/[<>&'"]/g, (c) => ({ '<': '&lt;', '>': '&gt;', '&': '&amp;', "'": '&apos;', '"': '&quot;' })[c]!);
}

export function formatOffset(ms: number): string {
  return ms < 1000 ? `+${Math.round(ms)} ms` : `+${(ms / 1000).toFixed(ms < 10_000 ? 2 : 1)} s`;
}

export function timelineToSvg(timeline: Timeline, options: SvgOptions): string {
  const width = options.width ?? 960;
  const height = TOP + LANES.length * ROW + 40;
  const span = Math.max(1, timeline.end - timeline.start);
  const x = (at: number): number => LEFT + ((at - timeline.start) / span) * (width - LEFT - RIGHT);
  const exportColors = options.colors === 'export';
  const fill = (cls: string, color: string): string => (exportColors ? `fill="${color}"` : `class="${cls}"`);
  const stroke = (cls: string, color: string): string => (exportColors ? `stroke="${color}"` : `class="${cls}"`);

  const title = `kubectl run timeline of ${timeline.pod.namespace}/${timeline.pod.name}`;
  const out: string[] = [
    `<svg xmlns="http://www.w3.org/2000/svg" width="${width}" height="${height}" viewBox="0 0 ${width} ${height}" role="img" aria-labelledby="tl-title tl-desc" font-family="sans-serif" font-size="12">`,
    `<title id="tl-title">${escapeXml(title)}</title>`,
    `<desc id="tl-desc">${escapeXml(timeline.entries.map((e) => `${LANE_TITLES[e.lane]}: ${e.label} at ${formatOffset(e.at - timeline.start)}`).join('; '))}</desc>`,
  ];
  if (exportColors) out.push(`<rect width="100%" height="100%" fill="#ffffff"/>`);
  out.push(`<text x="8" y="20" font-weight="bold" ${fill('tl-text', '#1f1f1f')}>${escapeXml(title)}${timeline.sli ? escapeXml(` — startup SLI ${(timeline.sli.valueMs / 1000).toFixed(2)} s (SLO 5 s: ${timeline.sli.met ? 'met' : 'missed'})`) : ''}</text>`);

  LANES.forEach((lane, i) => {
    const y = TOP + i * ROW + ROW / 2;
    out.push(`<text x="8" y="${y + 4}" ${fill('tl-lane', '#444444')}>${escapeXml(LANE_TITLES[lane])}</text>`);
    out.push(`<line x1="${LEFT}" y1="${y}" x2="${width - RIGHT}" y2="${y}" stroke-dasharray="2 4" ${stroke('tl-axis', '#bbbbbb')}/>`);
  });

  // Labels alternate above and below the lane so neighbours at the same second stay readable.
  const perLane = new Map<string, number>();
  for (const e of timeline.entries) {
    const i = LANES.indexOf(e.lane);
    const n = perLane.get(e.lane) ?? 0;
    perLane.set(e.lane, n + 1);
    const cx = x(e.at);
    const cy = TOP + i * ROW + ROW / 2;
    const ly = n % 2 === 0 ? cy - 9 : cy + 18;
    const color = e.warning ? ['tl-warn', '#c72e0f'] : e.precision === 's' ? ['tl-coarse', '#8a6d00'] : ['tl-mark', '#0a6ebd'];
    const label = `${e.label} ${formatOffset(e.at - timeline.start)}`;
    out.push(
      `<g><title>${escapeXml(`${e.label} — ${new Date(e.at).toISOString()} (${e.source}, ${e.precision} precision)${e.detail ? `\n${e.detail}` : ''}`)}</title>`,
      e.precision === 's'
        ? `<rect x="${cx - 4}" y="${cy - 4}" width="8" height="8" ${fill(color[0]!, color[1]!)}/>`
        : `<circle cx="${cx}" cy="${cy}" r="5" ${fill(color[0]!, color[1]!)}/>`,
      `<text x="${Math.min(cx + 6, width - RIGHT - 4)}" y="${ly}" text-anchor="${cx > width - 220 ? 'end' : 'start'}" ${fill('tl-text', '#1f1f1f')}>${escapeXml(label)}</text></g>`,
    );
  }
  const axisY = TOP + LANES.length * ROW + 16;
  out.push(`<text x="${LEFT}" y="${axisY}" ${fill('tl-lane', '#444444')}>0</text>`);
  out.push(`<text x="${width - RIGHT}" y="${axisY}" text-anchor="end" ${fill('tl-lane', '#444444')}>${escapeXml(formatOffset(span))}</text>`);
  out.push(`<text x="${LEFT + 40}" y="${axisY}" ${fill('tl-lane', '#444444')}>● watch/event time (ms or µs)   ■ second precision</text>`);
  out.push('</svg>');
  return out.join('\n');
}
