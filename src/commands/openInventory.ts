import * as vscode from 'vscode';
import { defineCommand } from './context';
import { CommandIds } from '../editor/commandIds';

/** Opens inventory.yaml, or offers to create one when the workspace has none. */
export const openInventory = defineCommand({}, (ctx) => {
  return async (): Promise<void> => {
    const loaded = await ctx.inventory.reload();
    if (!loaded) {
      const create = 'Create inventory.yaml';
      const choice = await vscode.window.showInformationMessage('This workspace has no inventory.yaml yet.', create);
      if (choice === create) await vscode.commands.executeCommand(CommandIds.createInventory);
      return;
    }
    await vscode.window.showTextDocument(loaded.uri, { preview: false });
  };
});
