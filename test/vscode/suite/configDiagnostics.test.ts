/**
 * Config intelligence in the real extension host: diagnostics on haproxy.cfg as you type, the quick fix,
 * hovers, the Diagnostics webview, and a responsive host while a huge file is linted.
 */
import * as assert from 'node:assert/strict';
import { mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { dirname } from 'node:path';
import * as vscode from 'vscode';
import { linterFor } from '../../../src/core/lint/registry';
import { api, sleep, waitFor, workspaceFolder } from './helpers';

const RULE = 'haproxy/frontend-mode-tcp';

function code(d: vscode.Diagnostic): string | undefined {
  return typeof d.code === 'object' ? String(d.code.value) : d.code === undefined ? undefined : String(d.code);
}

function haproxyUri(): vscode.Uri {
  return vscode.Uri.joinPath(workspaceFolder().uri, 'haproxy.cfg');
}

/** The line of `mode tcp` inside `frontend kubernetes-api`. */
function frontendModeLine(doc: vscode.TextDocument): number {
  const frontend = [...Array(doc.lineCount).keys()].find((i) => /^frontend\s+kubernetes-api/.test(doc.lineAt(i).text));
  assert.ok(frontend !== undefined, 'frontend kubernetes-api not found');
  const mode = [...Array(doc.lineCount).keys()].find((i) => i > frontend && /^\s+mode\s+/.test(doc.lineAt(i).text));
  assert.ok(mode !== undefined, 'mode line of the frontend not found');
  return mode;
}

suite('config diagnostics in the extension host', () => {
  suiteSetup(() => {
    // Part of every build: a missing linter fails the suite instead of showing as skipped tests.
    assert.ok(linterFor('haproxy'), 'the HAProxy linter is not registered');
  });

  teardown(async () => {
    // Leave haproxy.cfg as the example has it for the other suites (the web build may have auto-saved the edit).
    const doc = await vscode.workspace.openTextDocument(haproxyUri());
    const line = frontendModeLine(doc);
    const text = doc.lineAt(line).text;
    if (!/mode tcp/.test(text)) {
      const edit = new vscode.WorkspaceEdit();
      edit.replace(doc.uri, doc.lineAt(line).range, text.replace(/mode\s+\S+/, 'mode tcp'));
      await vscode.workspace.applyEdit(edit);
    }
    if (doc.isDirty) await doc.save();
  });

  test('the example haproxy.cfg has no errors', async () => {
    const a = await api();
    const doc = await vscode.workspace.openTextDocument(haproxyUri());
    await vscode.window.showTextDocument(doc);
    await waitFor('haproxy.cfg to be linted', () => a.configDiagnostics.currentFindings(doc) !== undefined || undefined, 15_000);
    const errors = vscode.languages.getDiagnostics(doc.uri).filter((d) => d.severity === vscode.DiagnosticSeverity.Error);
    assert.deepEqual(errors.map((d) => `${d.range.start.line + 1}: ${d.message}`), []);
  });

  test('breaking `mode tcp` gives a diagnostic on that line; the quick fix clears it', async () => {
    const a = await api();
    const doc = await vscode.workspace.openTextDocument(haproxyUri());
    await vscode.window.showTextDocument(doc);
    const line = frontendModeLine(doc);
    const col = doc.lineAt(line).text.indexOf('tcp');
    const edit = new vscode.WorkspaceEdit();
    edit.replace(doc.uri, new vscode.Range(line, col, line, col + 3), 'http');
    const t0 = Date.now();
    assert.ok(await vscode.workspace.applyEdit(edit));

    const diag = await waitFor('the frontend-mode-tcp diagnostic', () => vscode.languages.getDiagnostics(doc.uri).find((d) => code(d) === RULE), 5_000);
    console.log(`    diagnostic after ${Date.now() - t0} ms at ${diag.range.start.line + 1}:${diag.range.start.character + 1}: ${diag.message.split('\n')[0]}`);
    assert.equal(diag.range.start.line, line, 'on the line of the broken mode');
    assert.equal(diag.severity, vscode.DiagnosticSeverity.Error);
    assert.ok(typeof diag.code === 'object' && diag.code.target.toString().startsWith('https://'), 'the code links to the docs');
    assert.ok(diag.message.includes('\n'), 'the message carries the why on its second line');

    // Hover over the flagged range: rule id and why.
    const hovers = await vscode.commands.executeCommand<vscode.Hover[]>('vscode.executeHoverProvider', doc.uri, new vscode.Position(line, col + 1));
    const hoverText = hovers.flatMap((h) => h.contents.map((c) => (typeof c === 'string' ? c : c.value))).join('\n');
    assert.ok(hoverText.includes(RULE), hoverText);

    await waitFor('the lint of the current version', () => a.configDiagnostics.currentFindings(doc) !== undefined || undefined, 5_000);
    const actions = await vscode.commands.executeCommand<vscode.CodeAction[]>('vscode.executeCodeActionProvider', doc.uri, diag.range, vscode.CodeActionKind.QuickFix.value);
    const fix = actions.find((x) => x.diagnostics?.some((d) => code(d) === RULE)) ?? actions.find((x) => /tcp/.test(x.title));
    assert.ok(fix?.edit, `a quick fix for ${RULE}; got: ${actions.map((x) => x.title).join(', ')}`);
    assert.ok(await vscode.workspace.applyEdit(fix.edit));
    await waitFor('the diagnostic to clear', () => (vscode.languages.getDiagnostics(doc.uri).some((d) => code(d) === RULE) ? undefined : true), 5_000);
    assert.match(doc.lineAt(line).text, /mode\s+tcp/);
  });

  test('hovering a keyword explains the rule about it', async () => {
    await api();
    const doc = await vscode.workspace.openTextDocument(haproxyUri());
    await vscode.window.showTextDocument(doc);
    const line = [...Array(doc.lineCount).keys()].find((i) => /^\s+balance\s/.test(doc.lineAt(i).text));
    assert.ok(line !== undefined);
    const col = doc.lineAt(line).text.indexOf('balance');
    const hovers = await vscode.commands.executeCommand<vscode.Hover[]>('vscode.executeHoverProvider', doc.uri, new vscode.Position(line, col + 2));
    const text = hovers.flatMap((h) => h.contents.map((c) => (typeof c === 'string' ? c : c.value))).join('\n');
    assert.match(text, /haproxy\/balance/);
  });

  test('Show Config Diagnostics opens the webview, its script runs and it lists the findings', async () => {
    const a = await api();
    const doc = await vscode.workspace.openTextDocument(haproxyUri());
    await vscode.window.showTextDocument(doc);
    // Break it again so the panel has something to show.
    const line = frontendModeLine(doc);
    const col = doc.lineAt(line).text.indexOf('tcp');
    const edit = new vscode.WorkspaceEdit();
    edit.replace(doc.uri, new vscode.Range(line, col, line, col + 3), 'http');
    assert.ok(await vscode.workspace.applyEdit(edit));
    await waitFor('the diagnostic', () => vscode.languages.getDiagnostics(doc.uri).find((d) => code(d) === RULE), 5_000);

    await vscode.commands.executeCommand('kubeadm.showConfigDiagnostics');
    const tab = await waitFor('a Config Diagnostics tab', () =>
      vscode.window.tabGroups.all.flatMap((g) => g.tabs).find((t) => t.input instanceof vscode.TabInputWebview && t.input.viewType.includes('kubeadm.diagnostics')),
    );
    assert.equal(tab.label, 'Config Diagnostics');
    const panel = await waitFor('the webview script to start (CSP and bundle load)', async () => {
      const p = await a.diagnosticsPanel();
      return p?.isReady ? p : undefined;
    }, 15_000);
    const update = await waitFor('the panel to list the haproxy.cfg finding', async () => {
      const u = await panel.update();
      return u.files.some((f) => f.rules.some((r) => r.rule === RULE && r.why && r.findings.some((x) => x.line === line))) ? u : undefined;
    }, 10_000);
    assert.equal(update.scope, 'file');

    panel.setScope('workspace');
    const ws = await waitFor('the workspace scope', async () => {
      const u = await panel.update();
      return u.scope === 'workspace' && !u.busy ? u : undefined;
    }, 15_000);
    assert.ok(ws.files.some((f) => f.path.endsWith('haproxy.cfg')), JSON.stringify(ws.files.map((f) => f.path)));
    panel.dispose();
  });

  test('editing haproxy.cfg into nonsense gives clear diagnostics, and undoing it clears them', async () => {
    const a = await api();
    const doc = await vscode.workspace.openTextDocument(haproxyUri());
    await vscode.window.showTextDocument(doc);
    const original = doc.getText();
    const edit = new vscode.WorkspaceEdit();
    edit.insert(doc.uri, new vscode.Position(doc.lineCount, 0), '\nfrontend\n\tbind "unterminated\r\n\u0001\u0002 garbage {{{ \uFFFD\n'.repeat(50));
    assert.ok(await vscode.workspace.applyEdit(edit));
    const diags = await waitFor('diagnostics for the nonsense', () => {
      const d = vscode.languages.getDiagnostics(doc.uri).filter((x) => x.severity === vscode.DiagnosticSeverity.Error);
      return d.length && a.configDiagnostics.currentFindings(doc) ? d : undefined;
    }, 10_000);
    console.log(`    ${diags.length} errors, e.g. ${diags[0]!.range.start.line + 1}: ${diags[0]!.message.split('\n')[0]}`);
    assert.ok(diags.every((d) => !/lint failed/.test(d.message)), 'no internal error');
    const undo = new vscode.WorkspaceEdit();
    undo.replace(doc.uri, new vscode.Range(0, 0, doc.lineCount, 0), original);
    assert.ok(await vscode.workspace.applyEdit(undo));
    await waitFor('the errors to clear', () => (vscode.languages.getDiagnostics(doc.uri).some((d) => d.severity === vscode.DiagnosticSeverity.Error) ? undefined : true), 10_000);
  });

  test('a 5 MB haproxy.cfg is linted off the extension-host thread and stopped at the time limit; the host stays responsive', async () => {
    const a = await api();
    const settings = vscode.workspace.getConfiguration('kubeadmWorkbench');
    await settings.update('lint.timeoutMs', 50, vscode.ConfigurationTarget.Workspace);
    const uri = vscode.Uri.joinPath(workspaceFolder().uri, 'big', 'haproxy.cfg');
    const server = (i: number) => `    server n${i} 10.${(i >> 16) & 255}.${(i >> 8) & 255}.${i & 255}:6443 check fall 3 rise 2\n`;
    let text = 'defaults\n    mode tcp\n    timeout connect 5s\n    timeout client 1h\n    timeout server 1h\nbackend many\n';
    for (let i = 0; text.length < 5 * 1024 * 1024; i++) text += server(i);
    await vscode.workspace.fs.writeFile(uri, new TextEncoder().encode(text));
    try {
      const doc = await vscode.workspace.openTextDocument(uri);
      await vscode.window.showTextDocument(doc, { preview: true });
      // Measure how late a 10 ms timer fires while the file is being linted.
      let worst = 0;
      let last = Date.now();
      const timer = setInterval(() => {
        const now = Date.now();
        worst = Math.max(worst, now - last - 10);
        last = now;
      }, 10);
      try {
        await waitFor('the big file to be linted or stopped', () => a.configDiagnostics.currentFindings(doc) !== undefined || undefined, 30_000);
      } finally {
        clearInterval(timer);
      }
      const findings = a.configDiagnostics.currentFindings(doc) ?? [];
      console.log(`    5 MB haproxy.cfg: ${findings.map((f) => f.message).join('; ')}; worst timer delay ${worst} ms`);
      const stopped = vscode.languages.getDiagnostics(uri).find((d) => code(d) === 'lint/timeout');
      assert.ok(stopped, 'a "lint stopped" diagnostic');
      assert.equal(stopped.range.start.line, 0, 'at line 1');
      assert.match(stopped.message, /lint stopped after 50 ms/);
      const actions = await vscode.commands.executeCommand<vscode.CodeAction[]>('vscode.executeCodeActionProvider', uri, stopped.range, vscode.CodeActionKind.QuickFix.value);
      assert.ok(actions.some((x) => x.command?.command === 'workbench.action.openSettings'), 'a quick fix opens the time-limit setting');
      assert.ok(worst < 1000, `the extension host was blocked for ${worst} ms`);
    } finally {
      await settings.update('lint.timeoutMs', undefined, vscode.ConfigurationTarget.Workspace);
      await vscode.commands.executeCommand('workbench.action.closeActiveEditor');
      await sleep(50);
      await vscode.workspace.fs.delete(vscode.Uri.joinPath(workspaceFolder().uri, 'big'), { recursive: true });
    }
  });
});

suite('config diagnostics follow the inventory', () => {
  suiteSetup(() => {
    assert.ok(linterFor('haproxy'), 'the HAProxy linter is not registered');
  });

  test('changing the VIP in inventory.yaml re-lints haproxy.cfg against the new endpoint', async () => {
    const a = await api();
    const haproxy = haproxyUri();
    // Lint the whole workspace first: dependants are re-linted whether open or not.
    await a.configDiagnostics.lintWorkspace();
    const before = vscode.languages.getDiagnostics(haproxy).filter((d) => d.severity === vscode.DiagnosticSeverity.Error);
    assert.deepEqual(before.map((d) => d.message), []);

    const inv = await vscode.workspace.openTextDocument(vscode.Uri.joinPath(workspaceFolder().uri, 'inventory.yaml'));
    const line = [...Array(inv.lineCount).keys()].find((i) => inv.lineAt(i).text.includes('controlPlaneEndpoint: 10.3.60.100:6443'));
    assert.ok(line !== undefined);
    const col = inv.lineAt(line).text.indexOf('10.3.60.100');
    const edit = new vscode.WorkspaceEdit();
    edit.replace(inv.uri, new vscode.Range(line, col, line, col + '10.3.60.100'.length), '10.3.60.101');
    assert.ok(await vscode.workspace.applyEdit(edit));
    try {
      const diag = await waitFor('a haproxy.cfg error about the new endpoint', () =>
        vscode.languages.getDiagnostics(haproxy).find((d) => d.severity === vscode.DiagnosticSeverity.Error && /10\.3\.60\.10[01]/.test(d.message)), 10_000);
      console.log(`    haproxy.cfg:${diag.range.start.line + 1}: ${diag.message.split('\n')[0]} [${code(diag)}]`);
    } finally {
      const undo = new vscode.WorkspaceEdit();
      undo.replace(inv.uri, new vscode.Range(line, col, line, col + '10.3.60.101'.length), '10.3.60.100');
      assert.ok(await vscode.workspace.applyEdit(undo));
      await inv.save();
    }
    await waitFor('haproxy.cfg to be clean again', () => (vscode.languages.getDiagnostics(haproxy).some((d) => d.severity === vscode.DiagnosticSeverity.Error) ? undefined : true), 10_000);
  });
});

suite('config diagnostics follow sibling files', () => {
  suiteSetup(() => {
    assert.ok(linterFor('keepalived'), 'the Keepalived linter is not registered');
  });

  test('a second MASTER keepalived.conf appearing on disk flags the first one (not open); deleting it clears that', async () => {
    const a = await api();
    await a.configDiagnostics.lintWorkspace();
    // A folder of its own, so the example's keepalived.conf (another config set) stays out of it.
    const dir = vscode.Uri.joinPath(workspaceFolder().uri, 'lb-pair');
    const first = vscode.Uri.joinPath(dir, 'keepalived.conf');
    const second = vscode.Uri.joinPath(dir, 'keepalived-second.conf');
    const text = await vscode.workspace.fs.readFile(vscode.Uri.joinPath(workspaceFolder().uri, 'keepalived.conf'));
    const masterIn = (uri: vscode.Uri) => vscode.languages.getDiagnostics(uri).find((d) => code(d) === 'keepalived/one-master');
    try {
      await vscode.workspace.fs.writeFile(first, text);
      await waitFor('the first file to be linted', () => a.configDiagnostics.kindOf(first), 10_000);
      await a.configDiagnostics.whenIdle();
      assert.equal(masterIn(first), undefined);
      await vscode.workspace.fs.writeFile(second, text);
      const d = await waitFor('keepalived.conf to be flagged because of its new sibling', () => masterIn(first), 10_000);
      console.log(`    lb-pair/keepalived.conf:${d.range.start.line + 1}: ${d.message.split('\n')[0]}`);
      await vscode.workspace.fs.delete(second, { useTrash: false });
      await waitFor('the flag to go with the sibling', () => (masterIn(first) ? undefined : true), 10_000);
    } finally {
      await vscode.workspace.fs.delete(dir, { recursive: true, useTrash: false });
    }
  });

  test('a keepalived.conf unpacked with its folders at once is linted, and removing the folder clears it (the watcher reports only the top folder)', async () => {
    const a = await api();
    await a.configDiagnostics.lintWorkspace();
    // `mkdir -p` and a write in the same instant, as an unpacked archive or a copied tree arrives: on Linux the
    // recursive watcher never sees the file (nor the nested folder), only the top folder appearing.
    const top = vscode.Uri.joinPath(workspaceFolder().uri, 'unpacked');
    const file = vscode.Uri.joinPath(top, 'balancers', 'lb2', 'keepalived.conf');
    const example = new TextDecoder().decode(await vscode.workspace.fs.readFile(vscode.Uri.joinPath(workspaceFolder().uri, 'keepalived.conf')));
    // A router id keepalived refuses, so that the lint shows on a line of its own.
    const text = example.replace('virtual_router_id 51', 'virtual_router_id 300');
    assert.notEqual(text, example);
    try {
      mkdirSync(dirname(file.fsPath), { recursive: true });
      writeFileSync(file.fsPath, text);
      const d = await waitFor('a diagnostic in the unpacked keepalived.conf', () => vscode.languages.getDiagnostics(file).find((x) => code(x) === 'keepalived/virtual-router-id'), 10_000);
      assert.equal(d.range.start.line, text.split('\n').findIndex((l) => l.includes('virtual_router_id 300')));
      assert.equal(a.configDiagnostics.kindOf(file), 'keepalived');
      // Removed as a whole, the watcher reports the top folder alone: its files' diagnostics go with it.
      rmSync(top.fsPath, { recursive: true, force: true });
      await waitFor('the diagnostics to go with the folder', () => vscode.languages.getDiagnostics(file).length === 0 || undefined, 10_000);
      assert.equal(a.configDiagnostics.kindOf(file), undefined);
    } finally {
      rmSync(top.fsPath, { recursive: true, force: true });
    }
  });
});

suite('Generate Cluster Configs from Inventory', () => {
  test('writes the files into the folder without a tab per file, and leaves an edited file alone unless told to overwrite', async () => {
    await api();
    const folder = vscode.Uri.joinPath(workspaceFolder().uri, 'generated-test');
    try {
      const written = await vscode.commands.executeCommand<vscode.Uri[]>('kubeadm.generateClusterConfigs', { folder, overwrite: false });
      assert.ok(written && written.length >= 6, `written: ${written?.map((u) => u.path).join(', ')}`);
      const names = written.map((u) => u.path.slice(folder.path.length + 1));
      for (const f of ['kubeadm-config.yaml', 'haproxy.cfg', 'keepalived.conf', 'etc/containerd/config.toml']) assert.ok(names.includes(f), names.join(', '));
      const opened = new Set(vscode.window.tabGroups.all.flatMap((g) => g.tabs).map((t) => (t.input instanceof vscode.TabInputText ? t.input.uri.toString() : '')));
      // One summary instead of seven tabs: none of the written files is opened.
      for (const u of written) assert.ok(!opened.has(u.toString()), `${u.path} was opened as a tab`);

      const cfg = vscode.Uri.joinPath(folder, 'haproxy.cfg');
      await vscode.workspace.fs.writeFile(cfg, new TextEncoder().encode('# mine\n'));
      await vscode.commands.executeCommand('kubeadm.generateClusterConfigs', { folder, overwrite: false });
      assert.equal(new TextDecoder().decode(await vscode.workspace.fs.readFile(cfg)), '# mine\n');
      await vscode.commands.executeCommand('kubeadm.generateClusterConfigs', { folder, overwrite: true });
      assert.notEqual(new TextDecoder().decode(await vscode.workspace.fs.readFile(cfg)), '# mine\n');
    } finally {
      await vscode.commands.executeCommand('workbench.action.closeAllEditors');
      await vscode.workspace.fs.delete(folder, { recursive: true, useTrash: false });
    }
  });
});
