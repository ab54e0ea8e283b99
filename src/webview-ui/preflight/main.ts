/**
 * Browser side of the preflight webview: one row per host with a cell per check (its state as a word and a colour),
 * then each failing or warning check's cause and fix with a Copy button for the fix's command and a way to the host's
 * line in inventory.yaml, the unknown host keys with their fingerprints and how to read them on the host, and the
 * cluster's checks. "Run Again" asks the extension to run the checks again. Everything is set as text, never as HTML.
 */
import '@vscode-elements/elements/dist/vscode-button/index.js';
import { CLUSTER_CHECKS, HOST_CHECKS, hostState, type CheckResult, type HostPreflight, type PreflightReport } from '../../core/preflight/model.js';
import type { HostToWebview, PreflightStrings, WebviewToHost } from '../../webviews/protocol/preflight.js';
import { fill } from '../../webviews/protocol/fill.js';

/** The words of the display language, from the report message (set before the first render). */
let S: PreflightStrings;

declare function acquireVsCodeApi(): { postMessage(message: WebviewToHost): void };
const vscode = acquireVsCodeApi();
const $ = (id: string): HTMLElement => document.getElementById(id)!;

function el<K extends keyof HTMLElementTagNameMap>(tag: K, attrs: Record<string, string> = {}, ...children: (Node | string)[]): HTMLElementTagNameMap[K] {
  const e = document.createElement(tag);
  for (const [k, v] of Object.entries(attrs)) e.setAttribute(k, v);
  e.append(...children);
  return e;
}

function button(label: string, aria: string, onClick: () => void, secondary = true): HTMLElement {
  const b = el('vscode-button' as keyof HTMLElementTagNameMap, { ...(secondary ? { secondary: '' } : {}), 'aria-label': aria }, label) as HTMLElement;
  b.addEventListener('click', onClick);
  return b;
}


function cell(c: CheckResult | undefined): HTMLElement {
  const state = c?.state ?? 'skipped';
  return el('td', { class: `state ${state}`, title: c ? `${c.detail}${c.cause ? `\n${c.cause}` : ''}` : '' }, S.states[state]);
}

function hostRow(h: HostPreflight): HTMLElement {
  const state = hostState(h);
  const name = el('a', { href: '#', title: fill(S.openLine, h.host) }, h.host);
  name.addEventListener('click', (e) => {
    e.preventDefault();
    vscode.postMessage({ type: 'reveal', host: h.host });
  });
  return el(
    'tr',
    { class: `host-${state}`, 'data-host': h.host, 'data-state': state },
    el('td', { class: 'host' }, name),
    el('td', { class: 'muted' }, `${h.target}${h.via.length ? fill(S.via, h.via.join(' → ')) : ''}`),
    ...HOST_CHECKS.map((id) => cell(h.checks.find((c) => c.id === id))),
    el('td', { class: 'muted' }, fill(S.ms, h.ms)),
  );
}

function causeBlock(who: string, c: CheckResult, host?: string): HTMLElement {
  const block = el('div', { class: `cause ${c.state}`, 'data-host': host ?? 'cluster', 'data-check': c.id, 'data-kind': c.kind ?? '' },
    el('div', { class: 'what' }, fill(S.causeTitle, who, S.checks[c.id], c.state === 'fail' ? S.failed : S.warning)),
    el('div', {}, c.cause ?? c.detail),
  );
  if (c.fix) block.append(el('div', {}, el('strong', {}, S.fix), c.fix));
  const row = el('div', { class: 'row' });
  if (c.command) {
    const command = c.command;
    row.append(el('pre', { class: 'command' }, command), button(S.copy, fill(S.copyFix, who), () => vscode.postMessage({ type: 'copy', command })));
  }
  if (host) row.append(button(S.openInInventory, fill(S.openLine, host), () => vscode.postMessage({ type: 'reveal', host })));
  else if (c.id === 'kubeconfig') row.append(button(S.openSettings, S.openKubeconfigSetting, () => vscode.postMessage({ type: 'settings' })));
  if (row.childNodes.length) block.append(row);
  return block;
}

function render(report: PreflightReport, summary: string, refused: string | undefined, running: boolean, strings: PreflightStrings): void {
  S = strings;
  document.body.classList.toggle('running', running);
  $('title').textContent = report.standalone ? fill(S.standaloneTitle, report.cluster) : fill(S.title, report.operation, report.cluster);
  $('summary').textContent = report.hosts.length === 1 ? fill(S.checkedOne, (report.ms / 1000).toFixed(1), running ? S.runningAgain : '') : fill(S.checkedMany, report.hosts.length, (report.ms / 1000).toFixed(1), running ? S.runningAgain : '');
  const parts: Node[] = [];
  parts.push(el('p', { class: refused ? 'refused' : 'muted', id: 'verdict' }, `${refused ? fill(S.didNotStart, refused) : ''}${summary}.`));
  const head = el('tr', {}, el('th', {}, S.host), el('th', {}, S.connectsTo), ...HOST_CHECKS.map((id) => el('th', {}, S.checks[id])), el('th', {}, S.took));
  parts.push(el('table', { id: 'hosts' }, el('thead', {}, head), el('tbody', {}, ...report.hosts.map(hostRow))));
  const causes = report.hosts.flatMap((h) => h.checks.filter((c) => c.state === 'fail' || c.state === 'warn').map((c) => causeBlock(h.host, c, h.host)));
  const cluster = report.clusterChecks.filter((c) => CLUSTER_CHECKS.includes(c.id));
  if (causes.length) parts.push(el('h2', {}, S.causes), ...causes);
  const keys = report.hosts.flatMap((h) => (h.unknownKey ? [h.unknownKey] : []));
  if (keys.length) {
    parts.push(el('h2', {}, S.unknownKeys), el('p', { class: 'muted' }, S.compareKeys));
    parts.push(el('table', { id: 'keys' },
      el('thead', {}, el('tr', {}, el('th', {}, S.host), el('th', {}, S.address), el('th', {}, S.type), el('th', {}, S.fingerprint), el('th', {}, S.readOnHost))),
      el('tbody', {}, ...keys.map((k) => el('tr', { 'data-host': k.host }, el('td', {}, k.alias === k.host ? k.host : fill(S.jumpHost, k.host, k.alias)), el('td', {}, k.address), el('td', {}, k.keyType), el('td', {}, el('code', {}, k.fingerprint)), el('td', {}, el('code', {}, k.check))))),
    ));
  }
  if (cluster.length) {
    parts.push(el('h2', {}, S.cluster));
    parts.push(el('table', { id: 'cluster' }, el('tbody', {}, ...cluster.map((c) => el('tr', { 'data-check': c.id }, el('td', {}, S.checks[c.id]), cell(c), el('td', { class: 'muted' }, c.detail))))));
    parts.push(...cluster.filter((c) => c.state === 'fail' || c.state === 'warn').map((c) => causeBlock(S.clusterWho, c)));
  }
  $('report').replaceChildren(...parts);
}

window.addEventListener('message', (event: MessageEvent<HostToWebview>) => {
  const m = event.data;
  if (m?.type === 'report') render(m.report, m.summary, m.refused, m.running, m.strings);
  else if (m?.type === 'status') $('status').textContent = m.text;
});
$('rerun').addEventListener('click', () => vscode.postMessage({ type: 'rerun' }));
vscode.postMessage({ type: 'ready' });
