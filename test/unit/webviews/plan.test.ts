import { test } from 'node:test';
import assert from 'node:assert/strict';
import { planHtml } from '../../../src/webviews/planHtml';
import { parseWebviewMessage } from '../../../src/webviews/protocol/plan';

test('the plan webview shell: CSP default-src none, script only by nonce, the title escaped', () => {
  const html = planHtml({ cspSource: 'vscode-resource:', scriptUri: 'vscode-resource:/dist/webviews/plan.js', nonce: 'N0nce', title: 'Bring-up plan: <x>' });
  assert.match(html, /default-src 'none'; script-src 'nonce-N0nce'/);
  assert.match(html, /<script type="module" nonce="N0nce" src="vscode-resource:\/dist\/webviews\/plan\.js">/);
  assert.ok(!html.includes('<x>'));
  assert.match(html, /white-space: pre-wrap/);
});

test('plan webview messages are validated: only copy of a known field of a step id', () => {
  assert.deepEqual(parseWebviewMessage({ type: 'copy', stepId: 'init/m01/init', field: 'run' }), { type: 'copy', stepId: 'init/m01/init', field: 'run' });
  assert.equal(parseWebviewMessage({ type: 'copy', stepId: 'init/m01/init', field: 'files' }), undefined);
  assert.equal(parseWebviewMessage({ type: 'copy', stepId: 7, field: 'run' }), undefined);
  assert.equal(parseWebviewMessage({ type: 'run', stepId: 'x' }), undefined);
});
