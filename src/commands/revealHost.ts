import * as vscode from 'vscode';
import { defineCommand } from './context';
import type { InventoryNode } from '../editor/treeNodes';
import { toRange } from '../editor/diagnostics';
import type { Range } from '../core/findings';
import { editorUi } from '../editor/vscodeUi';

/** Opens inventory.yaml at the host's entry; called from a tree row (argument) or with a host name. */
export const revealHost = defineCommand({}, (ctx) => {
  return async (target?: InventoryNode | string): Promise<void> => {
    const name = typeof target === 'string' ? target : target?.kind === 'host' ? target.host.name : undefined;
    const loaded = await ctx.inventory.get();
    if (!loaded || !name) return;
    let range = loaded.locations.hosts.get(name);
    // A stale row (the file is broken) may name a host the broken parse did not reach: find its line by text.
    if (!range && loaded.lastGood) range = await findNameLine(loaded.uri, name);
    if (!range) {
      void editorUi(ctx.reports).message('warning', vscode.l10n.t('Host {0} is not in {1}.', name, vscode.workspace.asRelativePath(loaded.uri)));
      return;
    }
    const selection = toRange(range);
    await vscode.window.showTextDocument(loaded.uri, { selection: new vscode.Range(selection.start, selection.start), preview: true });
  };
});

async function findNameLine(uri: vscode.Uri, name: string): Promise<Range | undefined> {
  const doc = await vscode.workspace.openTextDocument(uri);
  const escaped = name.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
  const m = new RegExp(`^(\\s*-?\\s*)name:\\s*["']?${escaped}["']?\\s*$`, 'm').exec(doc.getText());
  if (!m) return undefined;
  const start = doc.positionAt(m.index + m[1]!.length);
  return { start: { line: start.line, character: start.character }, end: { line: start.line, character: start.character } };
}
