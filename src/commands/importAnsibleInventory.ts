import * as vscode from 'vscode';
import { importAnsibleInventory as convert } from '../core/inventory/ansible';
import { serializeInventory } from '../core/inventory/serialize';
import type { CommandContext } from './context';
import { exists } from './createInventory';

/** Converts an Ansible/Kubespray inventory (INI or YAML) into inventory.yaml; asks before replacing one. */
export function importAnsibleInventory(ctx: CommandContext) {
  return async (source?: vscode.Uri): Promise<void> => {
    const folder = vscode.workspace.workspaceFolders?.[0];
    if (!folder) {
      void vscode.window.showErrorMessage('Open a folder first: the imported inventory is written into the workspace.');
      return;
    }
    const picked = source ?? (await vscode.window.showOpenDialog({
      title: 'Import Ansible/Kubespray inventory',
      canSelectMany: false,
      defaultUri: folder.uri,
      filters: { 'Ansible inventory': ['ini', 'yaml', 'yml', 'cfg', ''], 'All files': ['*'] },
    }))?.[0];
    if (!picked) return;
    const text = new TextDecoder().decode(await vscode.workspace.fs.readFile(picked));
    const { inventory, findings } = convert(text, picked.path);
    const errors = findings.filter((f) => f.severity === 'error');
    if (!inventory || inventory.hosts.length === 0) {
      void vscode.window.showErrorMessage(`No Kubernetes hosts found in ${vscode.workspace.asRelativePath(picked)}${errors[0] ? `: ${errors[0].message}` : '.'}`);
      return;
    }
    const target = vscode.Uri.joinPath(folder.uri, 'inventory.yaml');
    if (await exists(target)) {
      const replace = 'Replace';
      const choice = await vscode.window.showWarningMessage('inventory.yaml exists. Replace it with the imported hosts?', { modal: true }, replace);
      if (choice !== replace) return;
    }
    const header = `Imported from ${vscode.workspace.asRelativePath(picked)}`;
    await vscode.workspace.fs.writeFile(target, new TextEncoder().encode(serializeInventory(inventory, header)));
    await ctx.inventory.reload();
    await vscode.window.showTextDocument(target);
    if (findings.length) {
      void vscode.window.showWarningMessage(`Imported ${inventory.hosts.length} hosts with ${findings.length} note(s): ${findings.slice(0, 3).map((f) => f.message).join(' · ')}`);
    }
  };
}
