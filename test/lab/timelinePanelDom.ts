/**
 * The timeline panel as a user sees it, read from the webview's DOM: the steps table (each row's hop and source),
 * the chart's marks, the boxes of its texts and duration bars as the browser lays them out, texts that do not stand
 * out from the theme's background, the sources list, the hop table and the SLI badge.
 */
import type { FrameLocator } from 'playwright-core';

export interface Seen {
  rows: { step: string; source: string; time: string; label: string; sourceText: string }[];
  marks: { step: string; source: string; x: number; tip: string }[];
  /** Every text and duration bar of the chart, in the page's pixels. */
  boxes: { kind: 'text' | 'bar'; text: string; x: number; y: number; w: number; h: number }[];
  /** Chart texts whose colour does not stand out from the panel's background. */
  faint: string[];
  /** Chart texts that reach past the chart's edges (cut off). */
  clipped: string[];
  sources: string[];
  hops: [hop: string, took: string][];
  sli: string;
}

/** What the browser gives back; the arithmetic on it is done here, in Node. */
interface Raw {
  rows: Seen['rows'];
  marks: Seen['marks'];
  texts: { text: string; fill: string; x: number; y: number; w: number; h: number }[];
  bars: { text: string; x: number; y: number; w: number; h: number }[];
  background: string;
  edge: { left: number; right: number } | undefined;
  sources: string[];
  hops: [string, string][];
  sli: string;
}

const rgb = (c: string): number[] => (c.match(/[\d.]+/g) ?? ['0', '0', '0']).slice(0, 3).map(Number);

/** WCAG relative luminance of an rgb()/rgba() colour (its alpha ignored). */
function luminance(color: string): number {
  const [r, g, b] = rgb(color).map((v) => v / 255).map((v) => (v <= 0.03928 ? v / 12.92 : ((v + 0.055) / 1.055) ** 2.4));
  return 0.2126 * r! + 0.7152 * g! + 0.0722 * b!;
}

function contrast(a: string, b: string): number {
  const [x, y] = [luminance(a), luminance(b)];
  return (Math.max(x, y) + 0.05) / (Math.min(x, y) + 0.05);
}

/**
 * Everything the test checks, read from the webview's DOM in one go. The function runs in the browser: only
 * anonymous callbacks in it (a named local function gets the test runner's name helper, which the page lacks).
 */
export async function readPanel(frame: FrameLocator): Promise<Seen> {
  const raw = await frame.locator('body').evaluate((body): Raw => {
    const svg = body.querySelector('#chart svg');
    const edge = svg?.getBoundingClientRect();
    return {
      rows: [...body.querySelectorAll<HTMLTableRowElement>('#steps tbody tr')].map((tr) => ({
        step: tr.dataset.step ?? '', source: tr.dataset.source ?? '',
        time: tr.cells[0]?.textContent ?? '', label: tr.cells[2]?.textContent ?? '', sourceText: tr.cells[3]?.textContent ?? '',
      })),
      marks: [...body.querySelectorAll('#chart g.tl-step')].map((g) => {
        const r = g.querySelector(':scope > circle, :scope > rect[height="8"]')!.getBoundingClientRect();
        return { step: g.getAttribute('data-step') ?? '', source: g.getAttribute('data-source') ?? '', x: r.x + r.width / 2, tip: g.querySelector('title')?.textContent ?? '' };
      }),
      texts: [...body.querySelectorAll('#chart svg > text, #chart svg g > text')].map((t) => {
        const r = t.getBoundingClientRect();
        return { text: t.textContent ?? '', fill: getComputedStyle(t).fill, x: r.x, y: r.y, w: r.width, h: r.height };
      }),
      bars: [...body.querySelectorAll('#chart g.tl-span > rect')].map((b) => {
        const r = b.getBoundingClientRect();
        return { text: b.parentElement?.querySelector('title')?.textContent ?? '', x: r.x, y: r.y, w: r.width, h: r.height };
      }),
      background: getComputedStyle(body).backgroundColor,
      edge: edge ? { left: edge.left, right: edge.right } : undefined,
      sources: [...body.querySelectorAll('#sources li')].map((li) => li.textContent ?? ''),
      hops: [...body.querySelectorAll('#hops tbody tr')].map((tr) => [tr.children[0]?.textContent ?? '', tr.children[1]?.textContent ?? ''] as [string, string]),
      sli: body.querySelector('#sli')?.textContent ?? '',
    };
  });
  const { edge } = raw;
  return {
    rows: raw.rows, marks: raw.marks, sources: raw.sources, hops: raw.hops, sli: raw.sli,
    boxes: [...raw.texts.map((t) => ({ kind: 'text' as const, text: t.text, x: t.x, y: t.y, w: t.w, h: t.h })), ...raw.bars.map((b) => ({ kind: 'bar' as const, ...b }))],
    faint: raw.texts.filter((t) => contrast(t.fill, raw.background) < 3).map((t) => `${t.text} (${t.fill} on ${raw.background})`),
    clipped: edge ? raw.texts.filter((t) => t.x < edge.left - 0.5 || t.x + t.w > edge.right + 0.5).map((t) => t.text) : [],
  };
}

/** Pairs of chart texts or bars whose boxes cover each other. */
export function overlaps(seen: Seen): string[] {
  const out: string[] = [];
  const b = seen.boxes.filter((x) => x.w > 0 && x.h > 0);
  // Half a pixel of tolerance: boxes that only touch do not cover each other.
  const hit = (p: Seen['boxes'][number], q: Seen['boxes'][number]) => p.x + 0.5 < q.x + q.w && q.x + 0.5 < p.x + p.w && p.y + 0.5 < q.y + q.h && q.y + 0.5 < p.y + p.h;
  for (let i = 0; i < b.length; i++) for (let j = i + 1; j < b.length; j++) if (hit(b[i]!, b[j]!)) out.push(`${b[i]!.kind} "${b[i]!.text}" × ${b[j]!.kind} "${b[j]!.text}"`);
  return out;
}

