/**
 * The editor layers' English that bypasses the catalogue (editorStrings.ts) never grows: at most the baseline of
 * editorStringsBaseline.ts, which goes down as texts are converted. And the scan itself is checked on a sample, so
 * that a scan that stopped seeing messages cannot pass by finding none.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { ROOT } from '../haproxy/helpers';
import { join } from 'node:path';
import { EDITOR_LAYERS, readsAsWords, uncatalogued, uncataloguedIn } from './editorStrings';
import { sourceFiles } from './catalogueKeys';
import { UNCATALOGUED_BASELINE } from './editorStringsBaseline';

test('the scan counts messages, buttons and tooltips, and not catalogue calls, log lines, identifiers or comparisons', () => {
  const sample = `
import * as vscode from 'vscode';
import { t } from '../core/l10n';
import { log } from './log';
export async function f(state: string, host: string) {
  if (state === 'Not Ready at all') return;
  log.warn(\`the host \${host} did not answer\`);
  const picked = await vscode.window.showWarningMessage(\`Remove \${host} from the cluster?\`, { modal: true }, 'Remove');
  item.tooltip = 'Click to select another context.';
  item.text = \`$(plug) \${vscode.l10n.t('Kubeadm: no cluster')}\`;
  void vscode.window.showInformationMessage(t('{0} removed.', host));
  void vscode.commands.executeCommand('workbench.trust.manage');
  const key = { 'Some Key': 1 }['Some Key'];
  switch (state) { case 'Ready now': return 'Retry'; }
  const cmd = sh\`kubectl drain \${host} --ignore-daemonsets\`;
  await import('./other module.js');
}`;
  assert.deepEqual(
    uncataloguedIn('sample.ts', sample).map((u) => u.text),
    ['Remove ${…} from the cluster?', 'Remove', 'Click to select another context.', 'Retry'],
  );
  for (const words of ['Retry', 'Open Settings', 'checking the hosts', '**Cannot connect**']) assert.ok(readsAsWords(words), words);
  for (const id of ['kubeadm.inventory', 'utf8', 'statusBarItem.errorBackground', '$(sync~spin)', '{0}', 'YAML', 'inventory.yaml']) assert.ok(!readsAsWords(id), id);
});

test(`the editor layers' English outside the catalogue does not grow (baseline ${UNCATALOGUED_BASELINE})`, (t) => {
  const found = uncatalogued(ROOT);
  const perFile = new Map<string, number>();
  for (const u of found) perFile.set(u.at.replace(/:\d+$/, ''), (perFile.get(u.at.replace(/:\d+$/, '')) ?? 0) + 1);
  t.diagnostic(`${found.length} texts bypass the catalogue in ${perFile.size} files (baseline ${UNCATALOGUED_BASELINE})`);
  // The scan reads the editor layers (the sample above proves it finds a message where there is one): the count can
  // go down to none without the check going blind.
  const scanned = EDITOR_LAYERS.flatMap((d) => sourceFiles(join(ROOT, d))).length;
  assert.ok(scanned > 50, `the scan reads the editor layers' files (${scanned})`);
  const worst = [...perFile].sort((a, b) => b[1] - a[1]).slice(0, 10).map(([f, n]) => `${f}: ${n}`);
  assert.ok(
    found.length <= UNCATALOGUED_BASELINE,
    `${found.length} English texts bypass the catalogue, the baseline allows ${UNCATALOGUED_BASELINE}: pass new messages through vscode.l10n.t with a Russian entry in l10n/bundle.l10n.ru.json. Most in:\n  ${worst.join('\n  ')}`,
  );
  if (found.length < UNCATALOGUED_BASELINE) t.diagnostic(`lower UNCATALOGUED_BASELINE in test/unit/l10n/editorStringsBaseline.ts to ${found.length}`);
});
