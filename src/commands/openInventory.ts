import * as vscode from 'vscode';
import { defineCommand } from './context';
import { CommandIds } from '../editor/commandIds';
import { editorUi } from '../editor/vscodeUi';

/** Opens inventory.yaml, or offers to create one when the workspace has none. */
export const openInventory = defineCommand({}, (ctx) => {
  return async (): Promise<void> => {
    const loaded = await ctx.inventory.reload();
    if (!loaded) {
      const create = vscode.l10n.t('Create inventory.yaml');
      const choice = await editorUi(ctx.reports).message('info', vscode.l10n.t('This workspace has no inventory.yaml yet.'), { actions: [create] });
      if (choice === create) await vscode.commands.executeCommand(CommandIds.createInventory);
      return;
    }
    await vscode.window.showTextDocument(loaded.uri, { preview: false });
  };
});
