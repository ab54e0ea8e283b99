import * as assert from 'node:assert/strict';
import * as vscode from 'vscode';
import type { KubeadmWorkbenchApi } from '../../../src/extension';
import { ScriptedUi, type Script } from '../../unit/workflows/scriptedUi';

export const EXTENSION_ID = 'kubeadm-workbench.kubeadm-workbench';

/** The API activate() returns, plus what the tests look for when the extension exposes it. */
export type Api = KubeadmWorkbenchApi & {
  views?: { inventory?: vscode.TreeDataProvider<unknown> };
};

export const sleep = (ms: number): Promise<void> => new Promise((r) => setTimeout(r, ms));

export async function waitFor<T>(what: string, probe: () => T | undefined | Promise<T | undefined>, timeoutMs = 10_000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const v = await probe();
    if (v !== undefined && v !== false) return v;
    if (Date.now() > deadline) assert.fail(`timed out after ${timeoutMs} ms waiting for ${what}`);
    await sleep(50);
  }
}

export function extension(): vscode.Extension<Api> {
  const ext = vscode.extensions.getExtension<Api>(EXTENSION_ID);
  assert.ok(ext, `extension ${EXTENSION_ID} is not installed in the extension host`);
  return ext;
}

/**
 * When the extension host loaded and activated an extension, from VS Code's own performance marks in this process
 * (vs/base/common/performance keeps them on globalThis.MonacoPerformanceMarks; Date.now() stamps, 1 ms). The host
 * marks willLoadExtensionCode when it starts on an activation (before reading the bundle), didLoadExtensionCode after
 * the module's top level ran, willActivateExtension once the ExtensionContext (storage, secrets) is ready too, and
 * didActivateExtension once activate() returned.
 */
export function activationMarks(id: string): { willLoad: number; didLoad: number; willActivate: number; didActivate: number } {
  const perf = (globalThis as { MonacoPerformanceMarks?: { getMarks(): { name: string; startTime: number }[] } }).MonacoPerformanceMarks;
  assert.ok(perf, 'the extension host keeps no performance marks (globalThis.MonacoPerformanceMarks)');
  const marks = perf.getMarks();
  const at = (what: string): number => {
    const m = marks.find((x) => x.name === `code/extHost/${what}/${id}`);
    assert.ok(m, `no ${what} mark for ${id} among the extension host's marks: ${marks.map((x) => x.name).filter((n) => n.includes(id)).join(', ') || 'none for it'}`);
    return m.startTime;
  };
  return { willLoad: at('willLoadExtensionCode'), didLoad: at('didLoadExtensionCode'), willActivate: at('willActivateExtension'), didActivate: at('didActivateExtension') };
}

export async function api(): Promise<Api> {
  const ext = extension();
  return ext.isActive ? ext.exports : ext.activate();
}

export function workspaceFolder(): vscode.WorkspaceFolder {
  const folder = vscode.workspace.workspaceFolders?.[0];
  assert.ok(folder, 'no workspace folder open');
  return folder;
}

export function inventoryUri(): vscode.Uri {
  return vscode.Uri.joinPath(workspaceFolder().uri, 'inventory.yaml');
}

/**
 * Answers the commands' questions from a script for one test, in front of the real VS Code Ui (which still shows
 * documents and terminals); `restore()` puts the real Ui back.
 */
export async function scripted(script: Script): Promise<ScriptedUi & { restore: () => void }> {
  const a = await api();
  const ui = new ScriptedUi(script);
  assert.ok(a.wrapUi, 'the test harness runs the extension host with KW_TEST_UI=1');
  a.wrapUi((real) => ui.over(real));
  return Object.assign(ui, { restore: () => a.wrapUi!(undefined) });
}
