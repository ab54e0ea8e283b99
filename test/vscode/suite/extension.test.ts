import * as assert from 'node:assert/strict';
import { existsSync, statSync } from 'node:fs';
import { join } from 'node:path';
import * as vscode from 'vscode';
import { EAGER_EXTENSION_BYTES } from '../../budgets';
import { EXTENSION_ID, activationMarks, api, extension, inventoryUri, waitFor, workspaceFolder } from './helpers';

/** The sizes of the extension's files (dist/…), as installed. */
function withSizes(files: string[]): { file: string; bytes: number }[] {
  const dist = join(extension().extensionPath, 'dist');
  return files.map((file) => ({ file, bytes: statSync(join(dist, file)).size }));
}

const SEED_HOSTS: [string, string][] = [
  ['labs-k8s-balancer', '10.3.60.50'],
  ['labs-k8s-m01', '10.3.60.51'],
  ['labs-k8s-m02', '10.3.60.52'],
  ['labs-k8s-m03', '10.3.60.53'],
  ['labs-k8s-w01', '10.3.60.54'],
  ['labs-k8s-w02', '10.3.60.55'],
];

suite('kubeadm-workbench in the extension host', () => {
  test('runs in VS Code with the labs-k8s example open', () => {
    console.log(`    VS Code ${vscode.version}, Node ${process.version}, remoteName=${vscode.env.remoteName ?? '-'}, appHost=${vscode.env.appHost}`);
    assert.match(workspaceFolder().uri.path, /labs-k8s$/);
  });

  test('the extension under test is the one installed from the .vsix, not the repository', () => {
    const ext = extension();
    console.log(`    extension folder: ${ext.extensionPath}`);
    // code-server unpacked the .vsix into the run's extensions dir; the repository (with src/) is nowhere in the window.
    assert.match(ext.extensionPath, /\/extensions\/kubeadm-workbench\.kubeadm-workbench-\d+\.\d+\.\d+$/);
    assert.ok(!existsSync(join(ext.extensionPath, 'src')), 'the extension folder has sources: it is a checkout, not the package');
  });

  test('activates on the workspace (workspaceContains); activation timed end to end and inside activate()', async () => {
    const ext = extension();
    // workspaceContains:**/inventory.yaml activates it without any command.
    await waitFor('activation by workspaceContains', () => ext.isActive || undefined, 15_000);
    const a = await api();
    assert.equal(typeof a.activationMs, 'number', 'activate() must return { activationMs }');
    // End to end: from the extension host starting on our activation event (it then reads and compiles
    // dist/extension.js and runs its top level) to activate() having returned the API — what the user waits for.
    const t = activationMarks(EXTENSION_ID);
    const endToEnd = t.didActivate - t.willLoad;
    const moduleLoad = t.didLoad - t.willLoad;
    console.log(
      `    activation end to end: ${endToEnd} ms (goal <= 50 ms): module load ${moduleLoad} ms, ` +
        `extension context ready ${t.willActivate - t.willLoad} ms after the start, activate() call ${t.didActivate - t.willActivate} ms`,
    );
    console.log(`    activate: ${a.activationMs.toFixed(1)} ms (inside activate() only)`);
    // The two clocks must tell one story: the whole contains the module load and activate() itself (1 ms stamps).
    assert.ok(moduleLoad >= 0 && endToEnd >= moduleLoad && endToEnd + 1 >= a.activationMs, JSON.stringify({ ...t, activateMs: a.activationMs }));
    // The goal is 50 ms and is reported, not asserted: on the shared 2-core machine that runs this tier the same
    // build measured 23 to 750 ms end to end from one run to the next (load average 11-25), most of the spread in the
    // extension host's own share (its storage answering: ready 15-743 ms after the start, while our module loaded in
    // 11-97 ms), so a 50 ms assertion would fail for the machine's sake. What keeps activation fast is asserted without a clock by the next test (what activation
    // loads) and by test/package (its bytes); this bound only catches something slow moving into activation itself
    // (a parse, a connection, waiting on a file).
    assert.ok(endToEnd < 5000, `activation took ${endToEnd} ms end to end`);
    assert.ok(a.activationMs < 1000, `activate() took ${a.activationMs.toFixed(1)} ms`);
  });

  test('activation loads only its own part of the bundle: no command, linter, SSH or engine code', async () => {
    const a = await api();
    assert.ok(a.filesLoadedByActivation, 'the test harness runs the extension host with KW_TEST_UI=1');
    const loaded = withSizes(a.filesLoadedByActivation);
    const bytes = loaded.reduce((sum, f) => sum + f.bytes, 0);
    console.log(`    loaded by activation: ${loaded.length} files of dist/, ${bytes} bytes (budget ${EAGER_EXTENSION_BYTES})`);
    assert.ok(loaded.some((f) => f.file === 'extension.js'), `dist/extension.js is not among the loaded files: ${loaded.map((f) => f.file).join(', ')}`);
    // The build names a file that an import() loads after the module it holds (ext-gatherFacts-HASH.js), and a file
    // shared by several such modules ext-chunk-HASH.js: activation may load the latter only.
    const onFirstUse = loaded.filter((f) => f.file !== 'extension.js' && !/^ext-chunk-\w+\.js$/.test(f.file));
    assert.deepEqual(onFirstUse.map((f) => f.file), [], 'files meant to load on first use were loaded by activation');
    assert.ok(bytes <= EAGER_EXTENSION_BYTES, `activation loaded ${bytes} bytes of the bundle, over the budget of ${EAGER_EXTENSION_BYTES} (test/budgets.ts)`);
  });

  test('every command of package.json is registered', async () => {
    await api();
    const contributed = (extension().packageJSON.contributes.commands as { command: string }[]).map((c) => c.command);
    assert.ok(contributed.length > 0);
    const registered = new Set(await vscode.commands.getCommands(true));
    const missing = contributed.filter((c) => !registered.has(c));
    assert.deepEqual(missing, [], `commands in package.json but not registered: ${missing.join(', ')}`);
  });

  test('the inventory API exposes the six hosts of the example', async () => {
    const loaded = await (await api()).inventory.get();
    assert.ok(loaded?.inventory, 'inventory.yaml was not loaded');
    assert.equal(loaded.uri.toString(), inventoryUri().toString());
    assert.deepEqual(loaded.inventory.hosts.map((h) => [h.name, h.address]), SEED_HOSTS);
    assert.equal(loaded.inventory.cluster.controlPlaneEndpoint, '10.3.60.100:6443');
    assert.deepEqual(vscode.languages.getDiagnostics(inventoryUri()).filter((d) => d.severity === vscode.DiagnosticSeverity.Error), [], 'the example has no errors');
  });

  test('the Inventory tree shows groups and hosts with address and role', async () => {
    const a = await api();
    const provider = a.views?.inventory;
    assert.ok(provider, 'activate() must expose the Inventory TreeDataProvider as api.views.inventory');
    const roots = (await provider.getChildren()) ?? [];
    const rootItems = await Promise.all(roots.map((r) => provider.getTreeItem(r)));
    assert.deepEqual(rootItems.map((i) => label(i)), ['Load balancers', 'Control plane', 'Workers']);
    const rows: string[] = [];
    for (const root of roots) {
      for (const child of (await provider.getChildren(root)) ?? []) {
        const item = await provider.getTreeItem(child);
        rows.push(`${label(item)} ${String(item.description)}`);
      }
    }
    assert.equal(rows.length, 6, rows.join('\n'));
    for (const [i, [name, address]] of SEED_HOSTS.entries()) assert.match(rows[i]!, new RegExp(`^${name} ${address.replace(/\./g, '\\.')} · `));
    assert.match(rows[0]!, /loadbalancer/);
    assert.match(rows[1]!, /control-plane/);
    assert.match(rows[5]!, /worker/);
  });

  test('Reveal Host opens inventory.yaml at the host line', async () => {
    await api();
    await vscode.commands.executeCommand('kubeadm.revealHost', 'labs-k8s-m02');
    const editor = await waitFor('an editor on inventory.yaml', () => {
      const e = vscode.window.activeTextEditor;
      return e?.document.uri.toString() === inventoryUri().toString() ? e : undefined;
    });
    const line = editor.document.lineAt(editor.selection.active.line).text;
    assert.match(line, /name: labs-k8s-m02/);
  });

  test('Open Inventory opens inventory.yaml', async () => {
    await vscode.commands.executeCommand('workbench.action.closeAllEditors');
    await vscode.commands.executeCommand('kubeadm.openInventory');
    await waitFor('inventory.yaml in the active editor', () => vscode.window.activeTextEditor?.document.uri.toString() === inventoryUri().toString() || undefined);
  });

  test('breaking inventory.yaml gives a diagnostic on the right line, fixing it clears it', async () => {
    await api();
    const uri = inventoryUri();
    const doc = await vscode.workspace.openTextDocument(uri);
    await vscode.window.showTextDocument(doc);
    const line = [...Array(doc.lineCount).keys()].find((i) => doc.lineAt(i).text.includes('name: labs-k8s-m03'));
    assert.ok(line !== undefined);
    const col = doc.lineAt(line).text.indexOf('10.3.60.53');
    const edit = new vscode.WorkspaceEdit();
    const bad = new vscode.Range(line, col, line, col + '10.3.60.53'.length);
    edit.replace(uri, bad, 'not-an-address');
    assert.ok(await vscode.workspace.applyEdit(edit));
    const diag = await waitFor('a diagnostic for the bad address', () =>
      vscode.languages.getDiagnostics(uri).find((d) => d.severity === vscode.DiagnosticSeverity.Error && /not-an-address/.test(d.message)));
    console.log(`    diagnostic at ${diag.range.start.line + 1}:${diag.range.start.character + 1}: ${diag.message}`);
    assert.equal(diag.range.start.line, line, 'diagnostic on the line of the broken address');
    assert.equal(diag.range.start.character, col);

    // Undo the edit: the diagnostic goes away and all six hosts are back.
    const fix = new vscode.WorkspaceEdit();
    fix.replace(uri, new vscode.Range(line, col, line, col + 'not-an-address'.length), '10.3.60.53');
    assert.ok(await vscode.workspace.applyEdit(fix));
    await waitFor('diagnostics to clear', () => (vscode.languages.getDiagnostics(uri).some((d) => d.severity === vscode.DiagnosticSeverity.Error) ? undefined : true));
    const loaded = await waitFor('six hosts again', () => {
      const cur = extension().exports.inventory.current;
      return cur?.inventory?.hosts.length === 6 ? cur : undefined;
    });
    assert.equal(loaded.inventory?.hosts[3]?.address, '10.3.60.53');
    await doc.save();
  });
});

function label(item: vscode.TreeItem): string {
  const l = item.label;
  return typeof l === 'string' ? l : (l?.label ?? '');
}
