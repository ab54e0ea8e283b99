import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { Finding } from '../../../src/core/findings';
import { diagnosticsHtml, makeNonce } from '../../../src/webviews/diagnosticsHtml';
import { groupFindings } from '../../../src/webviews/diagnosticsModel';
import { parseWebviewMessage } from '../../../src/webviews/protocol/diagnostics';

const f = (rule: string, line: number, severity: Finding['severity'] = 'error', extra: Partial<Finding> = {}): Finding => ({
  rule,
  severity,
  message: `${rule} at ${line}`,
  range: { start: { line, character: 2 }, end: { line, character: 5 } },
  ...extra,
});

test('findings are grouped by file and rule, worst rules first, lines in order, with the why', () => {
  const groups = groupFindings(
    [
      { uri: 'file:///w/z.cfg', path: 'z.cfg', findings: [f('haproxy/balance', 9, 'warning'), f('haproxy/syntax', 4), f('haproxy/balance', 2, 'error', { fixes: [{ title: 't', edits: [] }] })] },
      { uri: 'file:///w/a.yaml', path: 'a.yaml', findings: [f('kubeadm/x', 1, 'info', { why: 'own why', docs: 'https://d' })] },
      { uri: 'file:///w/empty.conf', path: 'empty.conf', findings: [] },
    ],
    (rule) => (rule === 'haproxy/balance' ? { title: 'balance is valid', why: 'registry why' } : undefined),
  );
  assert.deepEqual(groups.map((g) => g.path), ['a.yaml', 'z.cfg']);
  const z = groups[1]!;
  assert.deepEqual(z.counts, { error: 2, warning: 1, info: 0 });
  assert.deepEqual(z.rules.map((r) => [r.rule, r.severity, r.findings.map((x) => x.line)]), [
    ['haproxy/balance', 'error', [2, 9]],
    ['haproxy/syntax', 'error', [4]],
  ]);
  assert.equal(z.rules[0]!.why, 'registry why');
  assert.equal(z.rules[0]!.title, 'balance is valid');
  assert.equal(z.rules[0]!.findings[0]!.fixable, true);
  assert.deepEqual(groups[0]!.rules[0]!.why, 'own why');
  assert.deepEqual(groups[0]!.rules[0]!.docs, 'https://d');
});

test('webview messages are validated before the host acts on them', () => {
  assert.deepEqual(parseWebviewMessage({ type: 'ready' }), { type: 'ready' });
  assert.deepEqual(parseWebviewMessage({ type: 'setScope', scope: 'workspace' }), { type: 'setScope', scope: 'workspace' });
  assert.equal(parseWebviewMessage({ type: 'setScope', scope: 'all' }), undefined);
  assert.deepEqual(parseWebviewMessage({ type: 'reveal', uri: 'file:///a', line: 1, character: 0, endLine: 1, endCharacter: 3, extra: 1 }), { type: 'reveal', uri: 'file:///a', line: 1, character: 0, endLine: 1, endCharacter: 3 });
  assert.equal(parseWebviewMessage({ type: 'reveal', uri: 'file:///a', line: -1, character: 0, endLine: 1, endCharacter: 3 }), undefined);
  assert.equal(parseWebviewMessage({ type: 'openDocs', url: 'javascript:alert(1)' }), undefined);
  assert.equal(parseWebviewMessage({ type: 'openDocs', url: 'command:workbench.action.quit' }), undefined);
  assert.equal(parseWebviewMessage('ready'), undefined);
  assert.equal(parseWebviewMessage({ type: 'eval' }), undefined);
});

test('the webview shell: CSP default-src none, script only by nonce from the given URI, styles by nonce', () => {
  const nonce = makeNonce();
  assert.match(nonce, /^[A-Za-z0-9]{16,}$/);
  assert.notEqual(nonce, makeNonce());
  const html = diagnosticsHtml({ cspSource: 'https://x.vscode-cdn.net', scriptUri: 'https://x.vscode-cdn.net/ext/dist/webviews/diagnostics.js', nonce });
  const csp = /http-equiv="Content-Security-Policy" content="([^"]+)"/.exec(html)?.[1] ?? '';
  assert.match(csp, /^default-src 'none';/);
  assert.match(csp, new RegExp(`script-src 'nonce-${nonce}'(;|$)`));
  assert.doesNotMatch(csp, /unsafe-inline|unsafe-eval/);
  const scripts = [...html.matchAll(/<script([^>]*)>/g)].map((m) => m[1]!);
  assert.equal(scripts.length, 1);
  assert.match(scripts[0]!, new RegExp(`nonce="${nonce}"`));
  assert.match(scripts[0]!, /src="https:\/\/x\.vscode-cdn\.net\/ext\/dist\/webviews\/diagnostics\.js"/);
  for (const m of html.matchAll(/<style([^>]*)>/g)) assert.match(m[1]!, new RegExp(`nonce="${nonce}"`));
  assert.match(html, /var\(--vscode-foreground\)/);
  assert.match(html, /<vscode-tree [^>]*aria-label=/);
  assert.match(html, /role="status"/);
});
