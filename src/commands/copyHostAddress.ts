import * as vscode from 'vscode';
import type { InventoryNode } from '../editor/treeNodes';
import { defineCommand } from './context';

export const copyHostAddress = defineCommand({}, () => {
  return async (node?: InventoryNode): Promise<void> => {
    if (node?.kind !== 'host') return;
    await vscode.env.clipboard.writeText(node.host.address);
    vscode.window.setStatusBarMessage(vscode.l10n.t('Copied {0}', node.host.address), 2000);
  };
});
