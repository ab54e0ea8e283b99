/**
 * Readable output in real VS Code: a broken inventory.yaml keeps its last valid hosts (stale) under a row that jumps
 * to the first error; the bring-up plan webview (phases → hosts → steps, its script runs under the CSP, Copy copies a
 * command with its secrets ***); haproxy.cfg and keepalived.conf open in their own languages and still get
 * diagnostics; the hover says the why once; the Diagnostics webview's fix button applies the fix.
 */
import * as assert from 'node:assert/strict';
import * as vscode from 'vscode';
import { api, inventoryUri, waitFor, workspaceFolder } from './helpers';

type Node = unknown;
type Provider = vscode.TreeDataProvider<Node>;

async function items(p: Provider, parent?: Node): Promise<{ node: Node; item: vscode.TreeItem; label: string }[]> {
  const out = [];
  for (const node of (await p.getChildren(parent as never)) ?? []) {
    const item = await p.getTreeItem(node as never);
    out.push({ node, item, label: typeof item.label === 'string' ? item.label : (item.label?.label ?? '') });
  }
  return out;
}

function code(d: vscode.Diagnostic): string {
  return typeof d.code === 'object' ? String(d.code.value) : String(d.code);
}

suite('readable output', function () {
  this.timeout(60_000);

  test('a missing [ in inventory.yaml: the six hosts stay, marked stale, under a row that opens the first error', async () => {
    const a = await api();
    const provider = a.views.inventory as unknown as Provider;
    const doc = await vscode.workspace.openTextDocument(inventoryUri());
    await vscode.window.showTextDocument(doc);
    // The six hosts of the text on disk, not a model of an earlier edit: the suite before this one edits the file and
    // reverts it, and a model re-parsed after the revert may still be on its way (the break below would then leave
    // the model of that edit as the last valid one).
    await waitFor('the valid inventory with its six hosts', async () => {
      const groups = (await items(provider)).filter((r) => ['Load balancers', 'Control plane', 'Workers'].includes(r.label));
      const hosts = (await Promise.all(groups.map((g) => items(provider, g.node)))).flat();
      return groups.length === 3 && hosts.length === 6 && hosts.every((h) => !String(h.item.description).startsWith('stale')) ? true : undefined;
    });
    const line = [...Array(doc.lineCount).keys()].find((i) => doc.lineAt(i).text.includes('name: labs-k8s-w01'))!;
    const col = doc.lineAt(line).text.indexOf('[worker]');
    const edit = new vscode.WorkspaceEdit();
    edit.delete(doc.uri, new vscode.Range(line, col, line, col + 1));
    assert.ok(await vscode.workspace.applyEdit(edit));
    try {
      const roots = await waitFor('the problem row', async () => {
        const r = await items(provider);
        return r[0]?.label.startsWith('inventory.yaml has') ? r : undefined;
      }, 10_000);
      console.log(`      ${roots.map((r) => `${r.label}${r.item.description ? ` (${String(r.item.description)})` : ''}`).join(' | ')}`);
      assert.deepEqual(roots.slice(1).map((r) => r.label), ['Load balancers', 'Control plane', 'Workers']);
      const hosts = (await Promise.all(roots.slice(1).map((g) => items(provider, g.node)))).flat();
      assert.equal(hosts.length, 6);
      for (const h of hosts) assert.match(String(h.item.description), /^stale · /, h.label);
      assert.ok(hosts.every((h) => h.item.contextValue?.startsWith('stale-host-')), 'no host actions on stale rows');
      const problem = roots[0]!.item;
      assert.equal(problem.command?.command, 'vscode.open');
      const [uri, options] = problem.command!.arguments as [vscode.Uri, { selection: vscode.Range }];
      assert.equal(uri.toString(), doc.uri.toString());
      const firstError = vscode.languages.getDiagnostics(doc.uri).filter((d) => d.severity === vscode.DiagnosticSeverity.Error).sort((x, y) => x.range.start.line - y.range.start.line)[0]!;
      assert.equal(options.selection.start.line, firstError.range.start.line);
      assert.match(String(problem.description), new RegExp(`first at line ${firstError.range.start.line + 1}`));
    } finally {
      await vscode.commands.executeCommand('workbench.action.files.revert');
    }
    await waitFor('the valid tree again', async () => ((await items(provider))[0]?.label === 'Load balancers' ? true : undefined), 10_000);
  });

  test('Show Bring-up Plan… opens the plan webview: phases → hosts → steps, and Copy copies a command with secrets ***', async () => {
    const a = await api();
    const w = vscode.window as unknown as Record<string, unknown>;
    const saved = w.showQuickPick;
    w.showQuickPick = async (list: vscode.QuickPickItem[] | Thenable<vscode.QuickPickItem[]>) => (await list).filter((i) => i.picked);
    try {
      await vscode.commands.executeCommand('kubeadm.showBringUpPlan');
    } finally {
      w.showQuickPick = saved;
    }
    const panel = await waitFor('the plan panel', () => a.planPanel());
    await waitFor('the webview script to run (CSP allowed it)', () => panel.isReady || undefined, 20_000);
    const view = panel.planView;
    assert.ok(view.phases.length >= 6 && view.stepCount > 20, `${view.phases.length} phases, ${view.stepCount} steps`);
    // The control-plane joins (after their credentials, a phase of their own).
    const step = view.phases.filter((p) => p.phase === 'join-control-plane').flatMap((p) => p.hosts.flatMap((h) => h.steps)).find((s) => s.run?.includes('kubeadm join'))!;
    const copied = await panel.copy(step.id, 'run');
    assert.equal(copied, step.run);
    assert.match(copied!, /\*\*\*/);
    console.log(`      ${view.phases.length} phases, ${view.stepCount} steps; copied ${copied!.length} characters of "${step.title}"`);
    panel.dispose();
  });

  test('haproxy.cfg and keepalived.conf open as HAProxy and Keepalived and still get diagnostics', async () => {
    const a = await api();
    const haproxy = await vscode.workspace.openTextDocument(vscode.Uri.joinPath(workspaceFolder().uri, 'haproxy.cfg'));
    const keepalived = await vscode.workspace.openTextDocument(vscode.Uri.joinPath(workspaceFolder().uri, 'keepalived.conf'));
    assert.equal(haproxy.languageId, 'haproxy');
    assert.equal(keepalived.languageId, 'keepalived');
    const untitled = await vscode.workspace.openTextDocument({ language: 'haproxy', content: 'frontend api\n    bind 10.0.0.1:6443\n    mode tcp\n    default_backend nodes\nbackend nodes\n    mode tcp\n    server a 10.0.0.2:6443 che1k\n' });
    await vscode.window.showTextDocument(untitled);
    const diags = await waitFor('diagnostics on an untitled HAProxy document', () => {
      const d = vscode.languages.getDiagnostics(untitled.uri);
      return d.length ? d : undefined;
    }, 15_000);
    assert.ok(a.configDiagnostics.kindOf(untitled.uri) === 'haproxy');
    const onServer = diags.filter((d) => d.range.start.line === 6).map(code);
    // (Its servers are also compared with the workspace's inventory, which names other nodes.)
    assert.ok(onServer.includes('haproxy/server-keyword') && !onServer.includes('haproxy/server-check'), `one typo, one finding: ${onServer.join(', ')}`);
    await vscode.commands.executeCommand('workbench.action.revertAndCloseActiveEditor');
  });

  test('the hover over a flagged range says the why once (the diagnostic already carries it)', async () => {
    const a = await api();
    const doc = await vscode.workspace.openTextDocument(vscode.Uri.joinPath(workspaceFolder().uri, 'haproxy.cfg'));
    await vscode.window.showTextDocument(doc);
    const line = [...Array(doc.lineCount).keys()].find((i) => /^\s+server labs-k8s-m01/.test(doc.lineAt(i).text))!;
    const col = doc.lineAt(line).text.indexOf('check');
    const edit = new vscode.WorkspaceEdit();
    edit.replace(doc.uri, new vscode.Range(line, col, line, col + 5), 'che1k');
    assert.ok(await vscode.workspace.applyEdit(edit));
    try {
      const diag = await waitFor('the typo finding', () => vscode.languages.getDiagnostics(doc.uri).find((d) => code(d) === 'haproxy/server-keyword'), 10_000);
      await waitFor('the lint of this version', () => a.configDiagnostics.currentFindings(doc) !== undefined || undefined, 10_000);
      const why = diag.message.split('\n')[1];
      assert.ok(why, 'the diagnostic carries the why');
      const hovers = await vscode.commands.executeCommand<vscode.Hover[]>('vscode.executeHoverProvider', doc.uri, new vscode.Position(line, col + 2));
      const ours = hovers.flatMap((h) => h.contents.map((c) => (typeof c === 'string' ? c : c.value))).join('\n');
      assert.match(ours, /haproxy\/server-keyword/);
      // Markdown escapes punctuation (appendText) and keeps code spans: compare the plain text before any quote.
      const plainHover = ours.replace(/&nbsp;/g, ' ').replace(/\\(.)/g, '$1');
      const probe = why.split(/['`]/)[0]!.slice(0, 30);
      assert.ok(probe.length >= 10, probe);
      assert.ok(!plainHover.includes(probe), `the hover repeats the why: ${ours}`);
      assert.ok(!diag.message.includes('`'), 'the Problems panel shows no Markdown backticks');

      // The Diagnostics webview's button applies the same fix (its message, as the button posts it; the button itself,
      // hovered and clicked in the panel, is tier 3's: test/ui/actions.ui.test.ts).
      await vscode.commands.executeCommand('kubeadm.showConfigDiagnostics');
      const panel = await waitFor('the diagnostics panel', () => a.diagnosticsPanel());
      const applied = await panel.applyFix({ type: 'applyFix', uri: doc.uri.toString(), line: diag.range.start.line, character: diag.range.start.character, rule: 'haproxy/server-keyword' });
      assert.equal(applied, true);
      assert.match(doc.lineAt(line).text, / check /);
      await waitFor('the finding to clear', () => (vscode.languages.getDiagnostics(doc.uri).some((d) => code(d) === 'haproxy/server-keyword') ? undefined : true), 10_000);
      panel.dispose();
    } finally {
      if (doc.isDirty) {
        await vscode.window.showTextDocument(doc);
        await vscode.commands.executeCommand('workbench.action.files.revert');
      }
    }
  });
});
