import * as vscode from 'vscode';
import { INVENTORY_TEMPLATE } from '../core/inventory/template';
import { defineCommand } from './context';
import { alreadyThere, createNewFile } from '../adapters/fs/safeFile';
import { editorUi } from '../editor/vscodeUi';

/** Writes the seed-topology template as inventory.yaml in the first workspace folder, never over an existing file. */
export const createInventory = defineCommand({}, (ctx) => {
  return async (): Promise<void> => {
    const ui = editorUi(ctx.reports);
    const folder = vscode.workspace.workspaceFolders?.[0];
    if (!folder) {
      void ui.message('error', vscode.l10n.t('Open a folder first: the inventory lives in the workspace.'));
      return;
    }
    const target = vscode.Uri.joinPath(folder.uri, 'inventory.yaml');
    if (await exists(target)) {
      await vscode.window.showTextDocument(target);
      void ui.message('info', vscode.l10n.t('inventory.yaml already exists; opened it instead of overwriting.'));
      return;
    }
    try {
      // O_EXCL: a file or link appearing at the name meanwhile is never written through or over.
      await createNewFile(target.fsPath, INVENTORY_TEMPLATE, 0o644);
    } catch (e) {
      if (!alreadyThere(e)) throw e;
      await vscode.window.showTextDocument(target);
      void ui.message('info', vscode.l10n.t('inventory.yaml already exists; opened it instead of overwriting.'));
      return;
    }
    await ctx.inventory.reload();
    await vscode.window.showTextDocument(target);
  };
});

export async function exists(uri: vscode.Uri): Promise<boolean> {
  try {
    await vscode.workspace.fs.stat(uri);
    return true;
  } catch {
    return false;
  }
}
