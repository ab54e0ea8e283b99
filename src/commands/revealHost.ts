import * as vscode from 'vscode';
import type { CommandContext } from './context';
import type { InventoryNode } from '../views/inventoryView';
import { toRange } from '../editor/diagnostics';

/** Opens inventory.yaml at the host's entry; called from a tree row (argument) or with a host name. */
export function revealHost(ctx: CommandContext) {
  return async (target?: InventoryNode | string): Promise<void> => {
    const name = typeof target === 'string' ? target : target?.kind === 'host' ? target.host.name : undefined;
    const loaded = await ctx.inventory.get();
    if (!loaded || !name) return;
    const range = loaded.locations.hosts.get(name);
    if (!range) {
      void vscode.window.showWarningMessage(`Host ${name} is not in ${vscode.workspace.asRelativePath(loaded.uri)}.`);
      return;
    }
    const selection = toRange(range);
    await vscode.window.showTextDocument(loaded.uri, { selection: new vscode.Range(selection.start, selection.start), preview: true });
  };
}
