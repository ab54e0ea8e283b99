/**
 * Browser side of the timeline webview: draws the SVG (the same renderer as the export) and a
 * table that screen readers and the keyboard can walk; buttons ask the extension to export.
 */
import '@vscode-elements/elements/dist/vscode-button/index.js';
import '@vscode-elements/elements/dist/vscode-badge/index.js';
import { LANE_TITLES, type Timeline } from '../../core/timeline/model.js';
import { formatOffset, timelineToSvg } from '../../core/timeline/svg.js';
import type { HostToWebview, WebviewToHost } from '../../webviews/protocol/timeline.js';

declare function acquireVsCodeApi(): { postMessage(message: WebviewToHost): void };
const vscode = acquireVsCodeApi();
const $ = <T extends HTMLElement>(id: string): T => document.getElementById(id) as T;

function render(timeline: Timeline, live: boolean): void {
  $('title').textContent = `kubectl run: ${timeline.pod.namespace}/${timeline.pod.name}${timeline.pod.node ? ` on ${timeline.pod.node}` : ''}`;
  const sli = $('sli');
  if (timeline.sli) {
    sli.hidden = false;
    sli.textContent = `startup ${(timeline.sli.valueMs / 1000).toFixed(2)} s · SLO 5 s ${timeline.sli.met ? 'met' : 'missed'} · pulls ${(timeline.sli.pullMs / 1000).toFixed(2)} s excluded`;
  } else sli.hidden = true;
  $('stop').hidden = !live;

  const stall = $('stall');
  if (timeline.stall) {
    stall.hidden = false;
    stall.replaceChildren(heading(timeline.stall.summary), ...timeline.stall.messages.map((m) => paragraph(m)));
  } else stall.hidden = true;

  // The SVG comes from our own renderer, which escapes every pod-supplied string.
  $('chart').innerHTML = timelineToSvg(timeline, { colors: 'theme', width: Math.max(640, document.body.clientWidth - 24) });

  const rows = timeline.entries.map((e) => {
    const tr = document.createElement('tr');
    tr.tabIndex = 0;
    if (e.warning) tr.className = 'warn';
    for (const [text, cls] of [[formatOffset(e.at - timeline.start), 't'], [LANE_TITLES[e.lane], ''], [e.label, ''], [`${e.source} (${e.precision})`, ''], [e.detail ?? '', '']] as const) {
      const td = document.createElement('td');
      td.textContent = text;
      if (cls) td.className = cls;
      tr.append(td);
    }
    return tr;
  });
  document.querySelector('#steps tbody')!.replaceChildren(...rows);
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

window.addEventListener('message', (event: MessageEvent<HostToWebview>) => {
  const msg = event.data;
  if (msg.type === 'timeline') render(msg.timeline, msg.live);
  else if (msg.type === 'status') {
    const s = $('status');
    s.textContent = msg.text;
    s.className = msg.error ? 'error' : '';
  }
});

$('export-svg').addEventListener('click', () => vscode.postMessage({ type: 'export', format: 'svg' }));
$('export-json').addEventListener('click', () => vscode.postMessage({ type: 'export', format: 'json' }));
$('stop').addEventListener('click', () => vscode.postMessage({ type: 'stop' }));
vscode.postMessage({ type: 'ready' });
