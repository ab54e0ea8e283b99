/**
 * Draws a timeline as SVG from its layout (layout.ts): one band per component, time left to right
 * from the first step, durations as bars, second-precision readings as the interval they can be in,
 * labels in rows that never overlap. The same markup is shown in the webview (colours from the
 * editor theme through CSS classes) and exported to a file (fixed colours inlined), so what a user
 * saves is what they saw.
 */
import { t } from '../l10n';
import { laneTitle, type Timeline } from './model';
import { formatDuration, formatOffset, formatWhen, LABEL_FONT_PX, layoutTimeline } from './layout';

export { formatOffset, formatWhen } from './layout';

export interface SvgOptions {
  /** 'theme' uses CSS classes styled by the webview; 'export' inlines neutral colours. */
  colors: 'theme' | 'export';
  width?: number;
  /** The time the chart's width stands for (to draw two runs on one scale); default the timeline's own. */
  spanMs?: number;
}

export function escapeXml(text: string): string {
  return text.replace(/[<>&'"]/g, (c) => ({ '<': '&lt;', '>': '&gt;', '&': '&amp;', "'": '&apos;', '"': '&quot;' })[c]!);
}

const n = (v: number): string => (Math.round(v * 10) / 10).toString();

export function timelineToSvg(timeline: Timeline, options: SvgOptions): string {
  const layout = layoutTimeline(timeline, { width: options.width ?? 960, ...(options.spanMs ? { spanMs: options.spanMs } : {}) });
  const { width, height } = layout;
  const exportColors = options.colors === 'export';
  const fill = (cls: string, color: string): string => (exportColors ? `fill="${color}"` : `class="${cls}"`);
  const stroke = (cls: string, color: string): string => (exportColors ? `stroke="${color}"` : `class="${cls}"`);

  const title = t('kubectl run timeline of {0}/{1}', timeline.pod.namespace, timeline.pod.name);
  const out: string[] = [
    `<svg xmlns="http://www.w3.org/2000/svg" width="${n(width)}" height="${n(height)}" viewBox="0 0 ${n(width)} ${n(height)}" role="img" aria-labelledby="tl-title tl-desc" font-family="sans-serif" font-size="12">`,
    `<title id="tl-title">${escapeXml(title)}</title>`,
    `<desc id="tl-desc">${escapeXml(timeline.entries.map((e) => t('{0}: {1} at {2} ({3}, {4})', laneTitle(e.lane), e.label, formatWhen(e, timeline.start), e.source, e.precision)).join('; '))}</desc>`,
  ];
  if (exportColors) out.push(`<rect width="100%" height="100%" fill="#ffffff"/>`);
  out.push(`<text x="8" y="18" font-weight="bold" ${fill('tl-text', '#1f1f1f')}>${escapeXml(title)}${timeline.sli ? escapeXml(t(' — startup SLI {0} s (SLO 5 s: {1})', (timeline.sli.valueMs / 1000).toFixed(2), timeline.sli.met ? t('met') : t('missed'))) : ''}</text>`);

  const bottom = layout.lanes.at(-1)!.top + layout.lanes.at(-1)!.height;
  for (const tick of layout.ticks) {
    out.push(`<line x1="${n(tick.x)}" y1="${layout.top}" x2="${n(tick.x)}" y2="${n(bottom)}" ${stroke('tl-grid', '#eeeeee')}/>`);
    out.push(`<text x="${n(tick.x)}" y="${n(bottom + 14)}" text-anchor="middle" font-size="${LABEL_FONT_PX}" ${fill('tl-lane', '#444444')}>${escapeXml(tick.text)}</text>`);
  }
  layout.lanes.forEach((band, i) => {
    if (i % 2 === 1) out.push(`<rect x="0" y="${n(band.top)}" width="${n(width)}" height="${n(band.height)}" ${fill('tl-band', '#f6f6f6')} opacity="0.5"/>`);
    out.push(`<text x="8" y="${n(band.axisY + 4)}" ${fill('tl-lane', '#444444')}>${escapeXml(laneTitle(band.lane))}</text>`);
    out.push(`<line x1="${layout.left}" y1="${n(band.axisY)}" x2="${n(width - layout.right)}" y2="${n(band.axisY)}" stroke-dasharray="2 4" ${stroke('tl-axis', '#bbbbbb')}/>`);
  });

  const label = (text: string, box: { x: number; y: number; height: number }, cls = 'tl-text'): string =>
    `<text x="${n(box.x)}" y="${n(box.y + box.height - 3)}" font-size="${LABEL_FONT_PX}" ${exportColors ? 'class="tl-label" fill="#1f1f1f"' : `class="tl-label ${cls}"`}>${escapeXml(text)}</text>`;
  const leader = (ax: number, ay: number, box: { x: number; y: number; height: number }): string =>
    `<polyline points="${n(ax)},${n(ay + 4)} ${n(ax)},${n(box.y + box.height / 2)} ${n(box.x - 1)},${n(box.y + box.height / 2)}" fill="none" ${stroke('tl-leader', '#cccccc')}/>`;

  for (const s of layout.spans) {
    out.push(
      `<g class="tl-span"><title>${escapeXml(t('{0}: {1} ({2} to {3})', s.name, formatDuration(s.to - s.from), formatOffset(s.from - timeline.start), formatOffset(s.to - timeline.start)))}</title>`,
      `<rect x="${n(s.x0)}" y="${n(s.y - 7)}" width="${n(s.x1 - s.x0)}" height="14" rx="2" ${fill('tl-spanbar', '#9ecbf0')} opacity="0.55"/>`,
      leader(s.label.anchorX, s.label.anchorY + 3, s.label.box),
      label(s.label.text, s.label.box, 'tl-spantext'),
      '</g>',
    );
  }
  for (const m of layout.marks) {
    const e = timeline.entries[m.index]!;
    const color = e.warning ? ['tl-warn', '#c72e0f'] : e.precision === 's' ? ['tl-coarse', '#8a6d00'] : ['tl-mark', '#0a6ebd'];
    // the source and precision are the ids the steps table shows too (audit, µs…)
    const tip = `${t('{0}: {1} — {2}; read {3} ({4}, {5} precision){6}', laneTitle(e.lane), e.label, formatWhen(e, timeline.start), e.read, e.source, e.precision, e.adjusted ? t('; moved to keep the causal order: the clocks disagree') : '')}${e.detail ? `\n${e.detail}` : ''}`;
    out.push(`<g class="tl-step" data-i="${m.index}" data-step="${escapeXml(e.step)}" data-source="${escapeXml(e.source)}"><title>${escapeXml(tip)}</title>`);
    if (m.x1 - m.x0 >= 2) out.push(`<rect x="${n(m.x0)}" y="${n(m.cy - 3)}" width="${n(m.x1 - m.x0)}" height="6" ${fill(color[0]!, color[1]!)} opacity="0.3"/>`);
    out.push(
      e.precision === 's'
        ? `<rect x="${n(m.cx - 4)}" y="${n(m.cy - 4)}" width="8" height="8" ${fill(color[0]!, color[1]!)}/>`
        : `<circle cx="${n(m.cx)}" cy="${n(m.cy)}" r="4.5" ${fill(color[0]!, color[1]!)}/>`,
      leader(m.label.anchorX, m.label.anchorY, m.label.box),
      label(m.label.text, m.label.box),
      '</g>',
    );
  }
  out.push(`<text x="${layout.left}" y="${n(bottom + 28)}" font-size="${LABEL_FONT_PX}" ${fill('tl-lane', '#444444')}>${escapeXml(t('● ms/µs reading   ■ second precision, bar: the interval it can be in   ▬ duration'))}</text>`);
  out.push('</svg>');
  return out.join('\n');
}
