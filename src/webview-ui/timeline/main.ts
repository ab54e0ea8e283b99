/**
 * Browser side of the timeline webview: draws the SVG (the same renderer as the export) and a
 * table that screen readers and the keyboard can walk, in the same order; zoom re-draws the chart
 * wider (labels are placed again, so they never overlap at any zoom) and the chart pans by scroll or
 * drag; focusing a row or hovering a step highlights its pair; buttons ask the extension to export.
 */
import '@vscode-elements/elements/dist/vscode-button/index.js';
import '@vscode-elements/elements/dist/vscode-badge/index.js';
import type { Timeline } from '../../core/timeline/model.js';
import { formatWhen, timelineToSvg } from '../../core/timeline/svg.js';
import { formatDuration } from '../../core/timeline/layout.js';
import { hopTimes } from '../../core/timeline/compare.js';
import type { HostToWebview, TimelineStrings, WebviewToHost } from '../../webviews/protocol/timeline.js';
import type { BrowserCatalogue } from '../../core/timeline/browserMessages.js';
import { fill } from '../../webviews/protocol/fill.js';
import { useMessages } from '../../core/l10n/catalogue.js';

/** The words of the display language, from the timeline message (set before each render). */
let S: TimelineStrings;

declare function acquireVsCodeApi(): { postMessage(message: WebviewToHost): void };
const vscode = acquireVsCodeApi();
const $ = <T extends HTMLElement>(id: string): T => document.getElementById(id) as T;
let zoom = 1;
let shown: Timeline | undefined;
let second: Timeline | undefined;
const ZOOMS = [1, 1.5, 2, 3, 5, 8, 13, 20, 32];

function drawChart(): void {
  if (!shown) return;
  const chart = $('chart');
  // Keep the time under the middle of the view where it was.
  const middle = (chart.scrollLeft + chart.clientWidth / 2) / Math.max(1, chart.scrollWidth);
  const width = Math.max(640, document.body.clientWidth - 24) * zoom;
  // Two runs share one time scale, each from its own POST.
  const spanMs = second ? Math.max(shown.end - shown.start, second.end - second.start) : undefined;
  // The SVG comes from our own renderer, which escapes every pod-supplied string.
  chart.innerHTML = timelineToSvg(shown, { colors: 'theme', width, ...(spanMs ? { spanMs } : {}) });
  if (second) $('chart-b').innerHTML = timelineToSvg(second, { colors: 'theme', width, ...(spanMs ? { spanMs } : {}) });
  chart.scrollLeft = middle * chart.scrollWidth - chart.clientWidth / 2;
  $('zoom-level').textContent = `${Math.round(zoom * 100)} %`;
}

function setZoom(next: number): void {
  zoom = Math.min(ZOOMS.at(-1)!, Math.max(1, next));
  drawChart();
}

function renderComparison(msg: Extract<HostToWebview, { type: 'timeline' }>): void {
  $('compare').hidden = !msg.canCompare;
  const box = $('compare-box');
  second = msg.compare?.timeline;
  if (!msg.compare) {
    box.hidden = true;
    return;
  }
  box.hidden = false;
  const { comparison } = msg.compare;
  $('compare-why').replaceChildren(...comparison.explanation.map((t) => item(t, '')));
  const cell = (h: { ms?: number; coarse?: boolean }): string => (h.ms === undefined ? '—' : `${h.coarse ? '≈ ' : ''}${formatDuration(h.ms)}`);
  $('compare-hops').querySelector('tbody')!.replaceChildren(...comparison.hops.map((h) => {
    const tr = document.createElement('tr');
    for (const text of [h.hop, cell(h.a), cell(h.b), h.deltaMs === undefined ? '' : `${h.deltaMs >= 0 ? '+' : '−'}${formatDuration(Math.abs(h.deltaMs))}`]) {
      const td = document.createElement('td');
      td.textContent = text;
      tr.append(td);
    }
    return tr;
  }));
}

function render(timeline: Timeline, live: boolean, strings: TimelineStrings): void {
  S = strings;
  $('title').textContent = `kubectl run: ${timeline.pod.namespace}/${timeline.pod.name}${timeline.pod.node ? fill(S.onNode, timeline.pod.node) : ''}`;
  const sli = $('sli');
  if (timeline.sli) {
    sli.hidden = false;
    sli.textContent = fill(S.sli, (timeline.sli.valueMs / 1000).toFixed(2), timeline.sli.met ? S.met : S.missed, (timeline.sli.pullMs / 1000).toFixed(2));
  } else sli.hidden = true;
  $('stop').hidden = !live;

  const stall = $('stall');
  if (timeline.stall) {
    stall.hidden = false;
    stall.replaceChildren(heading(timeline.stall.summary), ...timeline.stall.messages.map((m) => paragraph(m)));
  } else stall.hidden = true;

  shown = timeline;
  drawChart();
  const clocks = [
    clockText(S.controlPlane, timeline.clock.cluster.offsetMs),
    clockText(timeline.pod.node ?? S.theNode, timeline.clock.node.offsetMs),
  ].filter(Boolean);
  const notes = timeline.sources.map((n) => item(`${n.state === 'read' ? '✓' : '✗'} ${n.source}: ${n.text}`, n.state === 'missing' ? 'missing' : ''));
  if (clocks.length) notes.push(item(fill(S.clocks, clocks.join('; ')), ''));
  $('sources').replaceChildren(...notes);
  $('sources-box').hidden = notes.length === 0;

  const rows = timeline.entries.map((e, i) => {
    const tr = document.createElement('tr');
    tr.tabIndex = 0;
    tr.dataset.i = String(i);
    // Which hop of the sequence and from which source, for the chart's pair and for tests reading the view.
    tr.dataset.step = e.step;
    tr.dataset.source = e.source;
    if (e.warning) tr.className = 'warn';
    const source = `${e.source}, ${e.precision === 'us' ? 'µs' : e.precision}${e.adjusted ? S.moved : ''}`;
    for (const [text, cls, title] of [[formatWhen(e, timeline.start), 't', fill(S.read, e.read)], [S.lanes[e.lane], '', ''], [e.label, '', ''], [source, 'src', ''], [e.detail ?? '', '', '']] as const) {
      const td = document.createElement('td');
      td.textContent = text;
      if (cls) td.className = cls;
      if (title) td.title = title;
      tr.append(td);
    }
    return tr;
  });
  document.querySelector('#steps tbody')!.replaceChildren(...rows);
  renderHops(timeline);
}

/** How long each hop of the seed's sequence took in this run (≈ when an end is a second-precision reading). */
function renderHops(timeline: Timeline): void {
  const hops = hopTimes(timeline);
  $('hops').hidden = !hops.some((h) => h.ms !== undefined);
  $('hops').querySelector('tbody')!.replaceChildren(...hops.map((h) => {
    const tr = document.createElement('tr');
    for (const [text, cls] of [[S.hops[h.id] ?? h.hop, ''], [h.ms === undefined ? S.notSeen : `${h.coarse ? '≈ ' : ''}${formatDuration(h.ms)}`, 't']] as const) {
      const td = document.createElement('td');
      td.textContent = text;
      if (cls) td.className = cls;
      tr.append(td);
    }
    return tr;
  }));
}

function clockText(whose: string, offsetMs: number): string {
  return Math.abs(offsetMs) < 0.5 ? '' : fill(offsetMs > 0 ? S.later : S.earlier, whose, formatDuration(Math.abs(offsetMs)));
}

function item(text: string, cls: string): HTMLElement {
  const li = document.createElement('li');
  li.textContent = text;
  if (cls) li.className = cls;
  return li;
}

/** A step's table row and its mark on the chart light up together. */
function highlight(i: string | undefined): void {
  for (const el of document.querySelectorAll('.tl-focus')) el.classList.remove('tl-focus');
  if (i === undefined) return;
  document.querySelector(`#chart [data-i="${CSS.escape(i)}"]`)?.classList.add('tl-focus');
  document.querySelector(`#steps tr[data-i="${CSS.escape(i)}"]`)?.classList.add('tl-focus');
}

function heading(text: string): HTMLElement {
  const h = document.createElement('h2');
  h.textContent = text;
  return h;
}

function paragraph(text: string): HTMLElement {
  const p = document.createElement('p');
  p.textContent = text;
  return p;
}

/** The catalogue the chart's words are drawn in (the core's renderer runs here, with a catalogue of its own). */
let spoken = '';

function speak(catalogue: BrowserCatalogue | undefined): void {
  const key = JSON.stringify(catalogue ?? null);
  if (key === spoken) return;
  spoken = key;
  useMessages(catalogue?.language ?? 'en', catalogue ? new Map(Object.entries(catalogue.messages)) : undefined);
}

window.addEventListener('message', (event: MessageEvent<HostToWebview>) => {
  const msg = event.data;
  if (msg.type === 'timeline') {
    speak(msg.catalogue);
    renderComparison(msg);
    render(msg.timeline, msg.live, msg.strings);
  }
  else if (msg.type === 'status') {
    const s = $('status');
    s.textContent = msg.text;
    s.className = msg.error ? 'error' : '';
  }
});

$('export-svg').addEventListener('click', () => vscode.postMessage({ type: 'export', format: 'svg' }));
$('export-json').addEventListener('click', () => vscode.postMessage({ type: 'export', format: 'json' }));
$('stop').addEventListener('click', () => vscode.postMessage({ type: 'stop' }));
$('compare').addEventListener('click', () => vscode.postMessage({ type: 'compare' }));
$('read-logs').addEventListener('click', () => vscode.postMessage({ type: 'readLogs' }));
$('zoom-in').addEventListener('click', () => setZoom(ZOOMS.find((z) => z > zoom) ?? zoom));
$('zoom-out').addEventListener('click', () => setZoom([...ZOOMS].reverse().find((z) => z < zoom) ?? 1));
$('zoom-fit').addEventListener('click', () => setZoom(1));

const chart = $('chart');
chart.addEventListener('wheel', (e) => {
  if (!e.ctrlKey) return;
  e.preventDefault();
  setZoom(e.deltaY < 0 ? (ZOOMS.find((z) => z > zoom) ?? zoom) : ([...ZOOMS].reverse().find((z) => z < zoom) ?? 1));
}, { passive: false });
chart.addEventListener('keydown', (e) => {
  if (e.key === '+' || e.key === '=') setZoom(ZOOMS.find((z) => z > zoom) ?? zoom);
  else if (e.key === '-') setZoom([...ZOOMS].reverse().find((z) => z < zoom) ?? 1);
  else if (e.key === '0') setZoom(1);
});
// Pan by dragging, as in a map.
let drag: { x: number; left: number } | undefined;
chart.addEventListener('pointerdown', (e) => { drag = { x: e.clientX, left: chart.scrollLeft }; chart.setPointerCapture(e.pointerId); });
chart.addEventListener('pointermove', (e) => { if (drag) chart.scrollLeft = drag.left - (e.clientX - drag.x); });
chart.addEventListener('pointerup', () => { drag = undefined; });
chart.addEventListener('pointerover', (e) => highlight((e.target as Element).closest('[data-i]')?.getAttribute('data-i') ?? undefined));
chart.addEventListener('click', (e) => {
  const i = (e.target as Element).closest('[data-i]')?.getAttribute('data-i');
  if (i) (document.querySelector(`#steps tr[data-i="${CSS.escape(i)}"]`) as HTMLElement | null)?.focus();
});
$('steps').addEventListener('focusin', (e) => highlight((e.target as HTMLElement).closest('tr')?.dataset.i));
window.addEventListener('resize', () => drawChart());
vscode.postMessage({ type: 'ready' });
