/**
 * Browser side of the Diagnostics webview (bundled to dist/webviews/diagnostics.js): renders the
 * findings the extension sends as a tree — file → rule (with its why) → finding — and asks the
 * extension to open a finding's line on Enter or click. Keyboard: Tab reaches the scope switch, the
 * button and the tree; arrows move in the tree (vscode-tree), Enter jumps.
 */
import '@vscode-elements/elements/dist/vscode-badge/index.js';
import '@vscode-elements/elements/dist/vscode-button/index.js';
import '@vscode-elements/elements/dist/vscode-radio/index.js';
import '@vscode-elements/elements/dist/vscode-radio-group/index.js';
import '@vscode-elements/elements/dist/vscode-tree/index.js';
import '@vscode-elements/elements/dist/vscode-tree-item/index.js';
import type { DiagnosticsStrings, FileGroup, FindingRow, HostToWebview, RuleGroup, Scope, SeverityName, WebviewToHost } from '../../webviews/protocol/diagnostics.js';
import { counted, fill } from '../../webviews/protocol/fill.js';

/** The words of the display language, from the update message (set before each render). */
let S: DiagnosticsStrings;

interface VsCodeApi {
  postMessage(message: WebviewToHost): void;
  getState(): { scope?: Scope } | undefined;
  setState(state: { scope?: Scope }): void;
}
declare function acquireVsCodeApi(): VsCodeApi;

const vscode = acquireVsCodeApi();
const tree = document.getElementById('tree') as HTMLElement;
const summary = document.getElementById('summary') as HTMLElement;
const empty = document.getElementById('empty') as HTMLElement;
const scopeGroup = document.getElementById('scope') as HTMLElement;
const refresh = document.getElementById('refresh') as HTMLElement;

/** Where each leaf jumps to. */
const targets = new WeakMap<Element, WebviewToHost>();
let scope: Scope = vscode.getState()?.scope ?? 'file';

function post(message: WebviewToHost): void {
  vscode.postMessage(message);
}

function countText(counts: Record<SeverityName, number>): string {
  const parts = [counts.error && counted(counts.error, S.errors), counts.warning && counted(counts.warning, S.warnings), counts.info && fill(S.info, counts.info)].filter(Boolean);
  return parts.join(', ') || S.noFindings;
}

/** "3 errors in 2 files of the workspace", "No findings in the workspace's config files" — never "(0 files)", which reads as a scan of nothing. */
function summaryText(msg: HostToWebview, total: Record<SeverityName, number>): string {
  if (msg.scope === 'workspace') {
    if (!msg.files.length) return msg.busy ? S.checkingWorkspace : S.noWorkspaceFindings;
    return fill(S.inWorkspace, countText(total), counted(msg.files.length, S.files));
  }
  if (!msg.activeFile) return S.noFileOpen;
  return msg.files.length ? fill(S.inFile, countText(total), msg.activeFile) : fill(S.noFindingsIn, msg.activeFile);
}

function el<K extends keyof HTMLElementTagNameMap>(tag: K, attrs: Record<string, string> = {}, ...children: (Node | string)[]): HTMLElementTagNameMap[K] {
  const e = document.createElement(tag);
  for (const [k, v] of Object.entries(attrs)) e.setAttribute(k, v);
  for (const c of children) e.append(c);
  return e;
}

function treeItem(attrs: Record<string, string>, ...children: (Node | string)[]): HTMLElement {
  return el('vscode-tree-item' as keyof HTMLElementTagNameMap, attrs, ...children) as HTMLElement;
}

function findingItem(file: FileGroup, rule: string, f: FindingRow): HTMLElement {
  const where = fill(S.where, f.line + 1, f.character + 1);
  const label = fill(S.findingLabel, S.severities[f.severity], where, f.message, f.fixable ? fill(S.quickFixNote, f.fixTitle ?? S.available) : '');
  // One slotted span: the tree item lays its label out as a flex row that would squeeze a second span to nothing.
  const item = treeItem(
    { 'aria-label': label, title: `${f.message}\n${file.path}:${f.line + 1}:${f.character + 1}` },
    el(
      'span',
      { class: 'finding', 'aria-hidden': 'true' },
      el('span', { class: 'loc' }, `${f.line + 1}:${f.character + 1}`),
      ' ',
      el('span', { class: `sev-${f.severity}` }, S.severities[f.severity]),
      ` ${f.message}`,
    ),
  );
  if (f.fixable) {
    // A real button: it applies the fix (the same edit as the editor's quick fix), it does not just say one exists.
    const title = f.fixTitle ?? S.applyFix;
    const button = el('vscode-button' as keyof HTMLElementTagNameMap, { slot: 'actions', secondary: '', class: 'fix', 'aria-label': fill(S.quickFixAria, title, f.line + 1), title: fill(S.quickFix, title) }, title);
    const apply = (event: Event): void => {
      event.stopPropagation();
      post({ type: 'applyFix', uri: file.uri, line: f.line, character: f.character, rule });
    };
    button.addEventListener('click', apply);
    button.addEventListener('keydown', (event) => (event as KeyboardEvent).key === 'Enter' && apply(event));
    item.append(button);
  }
  targets.set(item, { type: 'reveal', uri: file.uri, line: f.line, character: f.character, endLine: f.endLine, endCharacter: f.endCharacter });
  return item;
}

function ruleItem(file: FileGroup, rule: RuleGroup): HTMLElement {
  const label = fill(S.ruleLabel, rule.rule, counted(rule.findings.length, S.findings), rule.why ? fill(S.whyNote, rule.why) : '');
  const item = treeItem(
    { branch: '', open: '', slot: 'children', 'aria-label': label, title: rule.title ?? rule.rule },
    el('span', { class: `sev-${rule.severity}` }, rule.rule),
    el('vscode-badge' as keyof HTMLElementTagNameMap, { slot: 'decoration', variant: 'counter', 'aria-hidden': 'true' }, String(rule.findings.length)),
  );
  if (rule.why) {
    const why = treeItem({ slot: 'children', 'aria-label': fill(S.why, rule.why), class: 'why-item' }, el('span', { class: 'why' }, fill(S.why, rule.why)));
    if (rule.docs) targets.set(why, { type: 'openDocs', url: rule.docs });
    if (rule.docs) why.append(el('span', { slot: 'description', class: 'loc' }, S.openDocs));
    item.append(why);
  }
  for (const f of rule.findings) {
    const child = findingItem(file, rule.rule, f);
    child.setAttribute('slot', 'children');
    item.append(child);
  }
  return item;
}

function fileItem(file: FileGroup): HTMLElement {
  const item = treeItem(
    { branch: '', open: '', 'aria-label': `${file.path}: ${countText(file.counts)}`, title: file.path },
    file.path,
    el('span', { slot: 'description', class: 'loc', 'aria-hidden': 'true' }, countText(file.counts)),
  );
  for (const rule of file.rules) item.append(ruleItem(file, rule));
  return item;
}

function render(msg: HostToWebview): void {
  S = msg.strings;
  scope = msg.scope;
  vscode.setState({ scope });
  for (const radio of scopeGroup.querySelectorAll('vscode-radio')) radio.checked = radio.value === scope;
  tree.replaceChildren(...msg.files.map(fileItem));
  const total = { error: 0, warning: 0, info: 0 };
  for (const f of msg.files) for (const k of ['error', 'warning', 'info'] as const) total[k] += f.counts[k];
  summary.textContent = `${msg.busy ? S.lintingPrefix : ''}${summaryText(msg, total)}`;
  empty.hidden = msg.files.length > 0;
  empty.textContent = msg.busy
    ? S.linting
    : msg.scope === 'file' && !msg.activeFile
      ? S.openAFile
      : S.noFindingsAtAll;
}

window.addEventListener('message', (event: MessageEvent<HostToWebview>) => {
  if (event.data?.type === 'update') render(event.data);
});

tree.addEventListener('vsc-tree-select', (event) => {
  // The detail is the selected items (an array in @vscode-elements 2.x; older releases wrapped it in selectedItems).
  const detail = (event as CustomEvent<Element[] | { selectedItems?: Element[] }>).detail;
  const selected = (Array.isArray(detail) ? detail : (detail?.selectedItems ?? []))[0];
  const target = selected && targets.get(selected);
  if (target) post(target);
});

scopeGroup.addEventListener('change', (event) => {
  const value = (event.target as { value?: string }).value;
  if ((value === 'file' || value === 'workspace') && value !== scope) {
    scope = value;
    vscode.setState({ scope });
    post({ type: 'setScope', scope });
  }
});

refresh.addEventListener('click', () => post({ type: 'refresh' }));

post({ type: 'ready' });
if (scope !== 'file') post({ type: 'setScope', scope });
