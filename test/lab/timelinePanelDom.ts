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

/** Everything the test checks, read from the webview's DOM in one go. */
export function readPanel(frame: FrameLocator): Promise<Seen> {
  return frame.locator('body').evaluate((body): Seen => {
    const rgb = (c: string): number[] => (c.match(/[\d.]+/g) ?? ['0', '0', '0']).slice(0, 3).map(Number);
    const lum = (c: number[]): number => {
      const [r, g, b] = c.map((v) => v / 255).map((v) => (v <= 0.03928 ? v / 12.92 : ((v + 0.055) / 1.055) ** 2.4));
      return 0.2126 * r! + 0.7152 * g! + 0.0722 * b!;
    };
    const bg = lum(rgb(getComputedStyle(body).backgroundColor));
    const contrast = (fill: string): number => {
      const l = lum(rgb(fill));
      return (Math.max(l, bg) + 0.05) / (Math.min(l, bg) + 0.05);
    };
    const box = (el: Element) => el.getBoundingClientRect();
    const rows = [...body.querySelectorAll<HTMLTableRowElement>('#steps tbody tr')].map((tr) => ({
      step: tr.dataset.step ?? '', source: tr.dataset.source ?? '',
      time: tr.cells[0]?.textContent ?? '', label: tr.cells[2]?.textContent ?? '', sourceText: tr.cells[3]?.textContent ?? '',
    }));
    const marks = [...body.querySelectorAll('#chart g.tl-step')].map((g) => {
      const m = g.querySelector(':scope > circle, :scope > rect[height="8"]')!;
      const r = box(m);
      return { step: g.getAttribute('data-step') ?? '', source: g.getAttribute('data-source') ?? '', x: r.x + r.width / 2, tip: g.querySelector('title')?.textContent ?? '' };
    });
    const texts = [...body.querySelectorAll('#chart svg > text, #chart svg g > text')];
    const boxes = [
      ...texts.map((t) => ({ kind: 'text' as const, text: t.textContent ?? '', r: box(t) })),
      ...[...body.querySelectorAll('#chart g.tl-span > rect')].map((b) => ({ kind: 'bar' as const, text: b.parentElement?.querySelector('title')?.textContent ?? '', r: box(b) })),
    ].map((b) => ({ kind: b.kind, text: b.text, x: b.r.x, y: b.r.y, w: b.r.width, h: b.r.height }));
    const faint = texts.filter((t) => contrast(getComputedStyle(t).fill) < 3).map((t) => `${t.textContent} (${getComputedStyle(t).fill})`);
    const svg = body.querySelector('#chart svg');
    const edge = svg ? box(svg) : undefined;
    const clipped = edge ? texts.filter((t) => box(t).left < edge.left - 0.5 || box(t).right > edge.right + 0.5).map((t) => t.textContent ?? '') : [];
    return {
      rows, marks, boxes, faint, clipped,
      sources: [...body.querySelectorAll('#sources li')].map((li) => li.textContent ?? ''),
      hops: [...body.querySelectorAll('#hops tbody tr')].map((tr) => [tr.children[0]?.textContent ?? '', tr.children[1]?.textContent ?? ''] as [string, string]),
      sli: body.querySelector('#sli')?.textContent ?? '',
    };
  });
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

