import * as vscode from 'vscode';
import { importAnsibleInventory as convert, KUBESPRAY_GROUP_VARS, type AnsibleGroupVarsFile, type AnsibleImportOptions, type ImportMissing } from '../core/inventory/ansible';
import { serializeInventory } from '../core/inventory/serialize';
import { splitEndpoint } from '../core/inventory/types';
import { defineCommand } from './context';
import { exists } from './createInventory';
import { readRegularText, replaceFile } from '../adapters/fs/safeFile';
import { editorUi } from '../editor/vscodeUi';

/** An Ansible inventory or group_vars file larger than this is refused unread. */
const MAX_IMPORT_BYTES = 16 * 1024 * 1024;

const ASK: Record<ImportMissing, { prompt: string; placeHolder: string; validate: (v: string) => string | undefined }> = {
  kubernetesVersion: {
    prompt: vscode.l10n.t('The Ansible inventory sets no kube_version. Kubernetes version to pin (kubeadm, kubelet, kubectl):'),
    placeHolder: '1.30.14',
    validate: (v) => (/^v?\d+\.\d+\.\d+$/.test(v.trim()) ? undefined : vscode.l10n.t('A full version like 1.30.14')),
  },
  controlPlaneEndpoint: {
    prompt: vscode.l10n.t('The Ansible inventory names no API load balancer. controlPlaneEndpoint (the Keepalived VIP and port):'),
    placeHolder: '10.3.60.100:6443',
    validate: (v) => (splitEndpoint(v) ? undefined : 'host:port, e.g. 10.3.60.100:6443'),
  },
};

/** Converts an Ansible/Kubespray inventory (INI or YAML) into inventory.yaml; asks before replacing one. */
export const importAnsibleInventory = defineCommand({}, (ctx) => {
  return async (source?: vscode.Uri): Promise<void> => {
    const ui = editorUi(ctx.reports);
    const folder = vscode.workspace.workspaceFolders?.[0];
    if (!folder) {
      void ui.message('error', vscode.l10n.t('Open a folder first: the imported inventory is written into the workspace.'));
      return;
    }
    const picked = source ?? (await vscode.window.showOpenDialog({
      title: vscode.l10n.t('Import Ansible/Kubespray inventory'),
      canSelectMany: false,
      defaultUri: folder.uri,
      filters: { 'Ansible inventory': ['ini', 'yaml', 'yml', 'cfg', ''], 'All files': ['*'] },
    }))?.[0];
    if (!picked) return;
    const options: AnsibleImportOptions = { groupVars: await readGroupVars(picked) };
    const text = await readRegularText(picked.fsPath, { maxBytes: MAX_IMPORT_BYTES });
    let result = convert(text, picked.path, options);
    // Kubespray keeps version and endpoint in group_vars; when they are nowhere, ask rather than guess.
    for (const field of result.missing) {
      // No title: the prompt says what is missing and why it is asked.
      const value = await ui.input('', ASK[field].prompt, undefined, { placeHolder: ASK[field].placeHolder, validate: ASK[field].validate });
      if (value === undefined) return;
      options[field] = value.trim();
    }
    if (result.missing.length) result = convert(text, picked.path, options);
    const { inventory, findings } = result;
    const errors = findings.filter((f) => f.severity === 'error');
    if (inventory.hosts.length === 0) {
      void ui.message('error', vscode.l10n.t('No Kubernetes hosts found in {0}{1}', vscode.workspace.asRelativePath(picked), errors[0] ? `: ${errors[0].message}` : '.'));
      return;
    }
    const target = vscode.Uri.joinPath(folder.uri, 'inventory.yaml');
    if (await exists(target)) {
      const replace = vscode.l10n.t('Replace');
      const choice = await ui.message('warning', vscode.l10n.t('inventory.yaml exists. Replace it with the imported hosts?'), { modal: true, actions: [replace] });
      if (choice !== replace) return;
    }
    const header = vscode.l10n.t('Imported from {0}', vscode.workspace.asRelativePath(picked));
    await replaceFile(target.fsPath, serializeInventory(inventory, header), { mode: 'keep' });
    await ctx.inventory.reload();
    await vscode.window.showTextDocument(target);
    if (findings.length) {
      void ui.message('warning', vscode.l10n.t('Imported {0} hosts with {1} note(s): {2}', inventory.hosts.length, findings.length, findings.slice(0, 3).map((f) => f.message).join(' · ')));
    }
  };
});

async function readGroupVars(inventoryFile: vscode.Uri): Promise<AnsibleGroupVarsFile[]> {
  const dir = vscode.Uri.joinPath(inventoryFile, '..');
  const found: AnsibleGroupVarsFile[] = [];
  for (const gv of KUBESPRAY_GROUP_VARS) {
    const uri = vscode.Uri.joinPath(dir, gv.file);
    try {
      found.push({ group: gv.group, fileName: uri.path, text: await readRegularText(uri.fsPath, { maxBytes: MAX_IMPORT_BYTES }) });
    } catch {
      // Kubespray layouts vary; absent files are normal
    }
  }
  return found;
}
