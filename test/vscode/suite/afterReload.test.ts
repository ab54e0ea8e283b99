/**
 * After a reload the closed config files' findings are back in Problems without opening a file: a bounded workspace
 * scan starts with the extension (before this, nothing came until a config file was opened: none within 40 s of a
 * reload in the UI tier), unchanged files come from the findings cache in the extension's storage, and the Inventory
 * view answers at once with a loading row. The bound: every config file of examples/labs-k8s published within 2 s of
 * activate() returning, cold (no cache, the worker starting) and again from the cache as a reload builds it.
 */
import * as assert from 'node:assert/strict';
import { readdirSync } from 'node:fs';
import { join } from 'node:path';
import * as vscode from 'vscode';
import { activationMarks, api, EXTENSION_ID, waitFor, workspaceFolder } from './helpers';

const BOUND_MS = 2000;

/** The example's config files as the scan sees them: every file but inventory.yaml (read from the disk, not the extension). */
function exampleConfigFiles(): string[] {
  const root = workspaceFolder().uri.fsPath;
  const walk = (d: string): string[] => readdirSync(d, { withFileTypes: true }).flatMap((e) => (e.isDirectory() ? walk(join(d, e.name)) : [join(d, e.name)]));
  return walk(root).filter((f) => !/inventory\.ya?ml$/.test(f)).map((f) => f.slice(root.length + 1)).sort();
}

function code(d: vscode.Diagnostic): string | undefined {
  return typeof d.code === 'object' ? String(d.code.value) : d.code === undefined ? undefined : String(d.code);
}

suite('after a reload', () => {
  test('the startup scan publishes every config file of the example within 2 s of activation, none of them open', async () => {
    const a = await api();
    const files = exampleConfigFiles();
    assert.equal(files.length, 7, files.join(', '));
    const scan = await waitFor('the startup scan to settle', () => (a.configDiagnostics.startupScan?.doneAt ? a.configDiagnostics.startupScan : undefined), 15_000);
    const afterActivate = scan.doneAt! - activationMarks(EXTENSION_ID).didActivate;
    console.log(`    startup scan: ${scan.files} config files (${scan.fromCache} from the cache, ${scan.linted} linted) in ${scan.ms} ms; published ${afterActivate} ms after activate() returned (bound ${BOUND_MS} ms)`);
    assert.equal(scan.files, files.length, 'every config file of the example');
    assert.equal(scan.fromCache, 0, 'a fresh profile has no cache');
    assert.ok(afterActivate <= BOUND_MS, `published ${afterActivate} ms after activation`);
    const open = new Set(vscode.workspace.textDocuments.map((d) => d.uri.toString()));
    for (const f of files) {
      const uri = vscode.Uri.joinPath(workspaceFolder().uri, f);
      assert.ok(a.configDiagnostics.kindOf(uri), `${f} is tracked`);
      assert.ok(!open.has(uri.toString()), `${f} is not open: its findings came from the scan`);
    }
  });

  test('a reload restores a closed file\'s findings from the cache without linting it, within 2 s', async () => {
    const a = await api();
    assert.ok(a.freshConfigDiagnostics, 'the test harness runs the extension host with KW_TEST_UI=1');
    // A config set of its own with a finding, never opened: written on disk, linted by the watcher's event.
    const dir = vscode.Uri.joinPath(workspaceFolder().uri, 'reload-check');
    const file = vscode.Uri.joinPath(dir, 'haproxy.cfg');
    const example = new TextDecoder().decode(await vscode.workspace.fs.readFile(vscode.Uri.joinPath(workspaceFolder().uri, 'haproxy.cfg')));
    const broken = example.replace(/(frontend kubernetes-api\n(?:.*\n)*?\s+mode )tcp/, '$1http');
    assert.notEqual(broken, example);
    let fresh: ReturnType<NonNullable<typeof a.freshConfigDiagnostics>> | undefined;
    try {
      await vscode.workspace.fs.writeFile(file, new TextEncoder().encode(broken));
      const before = await waitFor('the frontend-mode finding of the closed file', () => vscode.languages.getDiagnostics(file).find((d) => code(d) === 'haproxy/frontend-mode-tcp'), 10_000);
      await a.configDiagnostics.whenIdle();
      await a.configDiagnostics.flushCache();
      const t0 = Date.now();
      fresh = a.freshConfigDiagnostics();
      const scan = await waitFor('the reload\'s startup scan', () => (fresh!.startupScan?.doneAt ? fresh!.startupScan : undefined), 15_000);
      const restored = fresh.findingsFor(file).find((f) => f.rule === 'haproxy/frontend-mode-tcp');
      console.log(`    reload: ${scan.files} config files, ${scan.fromCache} from the cache, ${scan.linted} linted; published in ${scan.doneAt! - t0} ms`);
      assert.equal(scan.files, 8);
      assert.equal(scan.fromCache, 8, 'nothing changed since the cache was written: no file is linted again');
      assert.equal(scan.linted, 0);
      assert.ok(restored, 'the closed file\'s finding is back');
      assert.equal(restored.range.start.line, before.range.start.line);
      assert.ok(scan.doneAt! - t0 <= BOUND_MS, `${scan.doneAt! - t0} ms`);
    } finally {
      fresh?.dispose();
      await vscode.workspace.fs.delete(dir, { recursive: true, useTrash: false });
    }
  });
});
