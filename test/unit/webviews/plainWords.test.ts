import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { Finding } from '../../../src/core/findings';
import { plainWords } from '../../../src/core/text/plainWords';
import { groupFindings } from '../../../src/webviews/diagnosticsModel';
import { parseWebviewMessage } from '../../../src/webviews/protocol/diagnostics';

test('Markdown code spans become plain quotes for text shown verbatim', () => {
  assert.equal(plainWords('The frontend runs in `mode tcp`, even when defaults say ``mode http``.'), "The frontend runs in 'mode tcp', even when defaults say 'mode http'.");
  assert.equal(plainWords('no code here'), 'no code here');
  assert.equal(plainWords('a lone ` backtick'), 'a lone ` backtick');
});

test('the Diagnostics webview gets plain words and the title of the fix its button applies', () => {
  const finding: Finding = {
    rule: 'haproxy/frontend-mode-tcp',
    severity: 'error',
    message: 'The API frontend says `mode http`.',
    why: 'The API speaks `mutual TLS` end to end.',
    range: { start: { line: 3, character: 4 }, end: { line: 3, character: 13 } },
    fixes: [{ title: 'Change to `mode tcp`', edits: [] }],
  };
  const [file] = groupFindings([{ uri: 'file:///w/haproxy.cfg', path: 'haproxy.cfg', findings: [finding] }], () => ({ title: 'Runs in `mode tcp`' }));
  const rule = file!.rules[0]!;
  assert.equal(rule.title, "Runs in 'mode tcp'");
  assert.equal(rule.why, "The API speaks 'mutual TLS' end to end.");
  assert.equal(rule.findings[0]!.message, "The API frontend says 'mode http'.");
  assert.equal(rule.findings[0]!.fixTitle, "Change to 'mode tcp'");
});

test('an applyFix message is validated before the host applies anything', () => {
  assert.deepEqual(parseWebviewMessage({ type: 'applyFix', uri: 'file:///w/haproxy.cfg', line: 3, character: 4, rule: 'haproxy/x' }), { type: 'applyFix', uri: 'file:///w/haproxy.cfg', line: 3, character: 4, rule: 'haproxy/x' });
  assert.equal(parseWebviewMessage({ type: 'applyFix', uri: 'file:///w/haproxy.cfg', line: -1, character: 4, rule: 'haproxy/x' }), undefined);
  assert.equal(parseWebviewMessage({ type: 'applyFix', uri: 'file:///w/haproxy.cfg', line: 1, character: 4 }), undefined);
});
