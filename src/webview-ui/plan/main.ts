/**
 * Browser side of the bring-up plan webview: phases → hosts → steps as nested <details> (keyboard and screen
 * readers fold them natively), each command in a wrapping block with a Copy button that asks the extension to copy
 * it (the webview has no clipboard of its own under the CSP). Everything is set as text, never as HTML.
 */
import '@vscode-elements/elements/dist/vscode-button/index.js';
import type { PlanView, PlanViewPhase, PlanViewStep } from '../../core/plan/view.js';
import type { CopyField, HostToWebview, PlanStrings, WebviewToHost } from '../../webviews/protocol/plan.js';
import { counted, fill } from '../../webviews/protocol/fill.js';

declare function acquireVsCodeApi(): { postMessage(message: WebviewToHost): void };
const vscode = acquireVsCodeApi();
const $ = (id: string): HTMLElement => document.getElementById(id)!;

function el<K extends keyof HTMLElementTagNameMap>(tag: K, attrs: Record<string, string> = {}, ...children: (Node | string)[]): HTMLElementTagNameMap[K] {
  const e = document.createElement(tag);
  for (const [k, v] of Object.entries(attrs)) e.setAttribute(k, v);
  e.append(...children);
  return e;
}

/** The words of the display language, from the plan message (set before the first render). */
let S: PlanStrings;

function command(step: PlanViewStep, field: CopyField, text: string): HTMLElement {
  const copy = el('vscode-button' as keyof HTMLElementTagNameMap, { secondary: '', 'aria-label': fill(S.copyAria, S.labels[field], step.title), title: S.copyTitle }, S.copy) as HTMLElement;
  copy.addEventListener('click', () => vscode.postMessage({ type: 'copy', stepId: step.id, field }));
  return el('div', { class: 'cmd' }, el('span', { class: 'label' }, S.labels[field]), el('pre', { class: `cmd-${field}` }, text), copy);
}

function stepItem(step: PlanViewStep): HTMLElement {
  const summary = el('summary', {}, step.title, step.about ? el('span', { class: 'muted' }, fill(S.about, step.about)) : '');
  const body: (Node | string)[] = [];
  if (step.why) body.push(el('p', { class: 'why muted' }, step.why));
  if (step.skipIf) body.push(command(step, 'skipIf', step.skipIf));
  if (step.skipIfDoneEarlier) body.push(el('p', { class: 'muted' }, S.skippedEarlier));
  if (step.files.length) {
    body.push(
      el('ul', { class: 'files' }, ...step.files.map((f) => el('li', {}, S.write, el('code', {}, f.path), fill(S.mode, f.mode, f.secret ? S.secret : f.lines !== undefined ? `, ${counted(f.lines, S.lines)}` : '')))),
    );
  }
  if (step.run) body.push(command(step, 'run', step.run));
  if (step.action) body.push(el('p', {}, fill(S.inEditor, step.action)));
  if (step.verify) body.push(command(step, 'verify', step.verify));
  return el('details', { class: 'step', 'data-step': step.id }, summary, ...body);
}

function phaseItem(p: PlanViewPhase): HTMLElement {
  const how = p.order === 'parallel' ? S.parallel : S.inOrder;
  const summary = el('summary', {}, p.title, el('span', { class: 'muted' }, ` · ${counted(p.stepCount, S.steps)}, ${how}${p.alongsidePrevious ? S.besidePrevious : ''}${p.overlaps.length ? fill(S.beside, p.overlaps.join(', ')) : ''}`));
  const warnings = p.warnings.map((w) => el('p', { class: 'warning', role: 'note' }, w));
  const hosts = p.hosts.map((h) => el('details', { class: 'host', open: '' }, el('summary', {}, h.host, el('span', { class: 'muted' }, ` · ${counted(h.steps.length, S.steps)}`)), ...h.steps.map(stepItem)));
  return el('details', { class: 'phase', open: '', 'data-phase': p.phase }, summary, ...warnings, ...hosts);
}

function render(title: string, view: PlanView, strings: PlanStrings): void {
  S = strings;
  $('title').textContent = title;
  $('summary').textContent = fill(S.summary, counted(view.phases.length, S.phases), counted(view.stepCount, S.steps), counted(view.hosts.length, S.hosts));
  $('plan').replaceChildren(...view.phases.map(phaseItem));
}

function setOpen(open: boolean): void {
  for (const d of document.querySelectorAll('details')) (d as HTMLDetailsElement).open = open;
}

window.addEventListener('message', (event: MessageEvent<HostToWebview>) => {
  const m = event.data;
  if (m?.type === 'plan') render(m.title, m.view, m.strings);
  else if (m?.type === 'status') $('status').textContent = m.text;
});
$('expand').addEventListener('click', () => setOpen(true));
$('collapse').addEventListener('click', () => setOpen(false));
vscode.postMessage({ type: 'ready' });
