/**
 * Completion and field docs in the real extension host, with no YAML extension installed: inventory.yaml's fields
 * and enumeration values, a kubeadm file's apiVersion values, and a hover with the schema's description — through
 * VS Code's own completion and hover commands, as the editor asks them.
 */
import * as assert from 'node:assert/strict';
import * as vscode from 'vscode';
import { api, inventoryUri, waitFor, workspaceFolder } from './helpers';

async function completions(uri: vscode.Uri, position: vscode.Position): Promise<vscode.CompletionItem[]> {
  const list = await vscode.commands.executeCommand<vscode.CompletionList>('vscode.executeCompletionItemProvider', uri, position);
  // Only ours: VS Code adds the document's words as suggestions of its own.
  return list.items.filter((i) => i.kind === vscode.CompletionItemKind.Field || i.kind === vscode.CompletionItemKind.EnumMember);
}

const label = (i: vscode.CompletionItem): string => (typeof i.label === 'string' ? i.label : i.label.label);

suite('completion and field docs', () => {
  test('inventory.yaml: the cluster fields it lacks, the values of cni, and the hover of a field', async () => {
    await api();
    const doc = await vscode.workspace.openTextDocument(inventoryUri());
    const editor = await vscode.window.showTextDocument(doc);
    const original = doc.getText();
    try {
      const cniLine = [...Array(doc.lineCount).keys()].find((i) => /^\s+cni: flannel/.test(doc.lineAt(i).text))!;
      await editor.edit((e) => e.insert(new vscode.Position(cniLine + 1, 0), '  \n'));
      const fields = await waitFor('the cluster fields', async () => {
        const items = await completions(doc.uri, new vscode.Position(cniLine + 1, 2));
        return items.length ? items : undefined;
      });
      const names = fields.map(label);
      assert.ok(names.includes('apiServerAuditLog') && names.includes('imageRepository'), names.join(', '));
      assert.ok(!names.includes('cni') && !names.includes('name'), 'the fields it has are not offered');
      assert.equal(fields.find((i) => label(i) === 'apiServerAuditLog')!.detail, 'boolean');

      const col = doc.lineAt(cniLine).text.indexOf('flannel');
      const values = (await completions(doc.uri, new vscode.Position(cniLine, col))).map(label);
      assert.deepEqual(values, ['flannel', 'calico']);

      const hovers = await vscode.commands.executeCommand<vscode.Hover[]>('vscode.executeHoverProvider', doc.uri, new vscode.Position(cniLine, col - 3));
      const text = hovers.flatMap((h) => h.contents.map((c) => (typeof c === 'string' ? c : c.value))).join('\n');
      assert.match(text, /cluster\.cni[\s\S]*The network plugin applied after kubeadm init/);
    } finally {
      await editor.edit((e) => e.replace(new vscode.Range(0, 0, doc.lineCount, 0), original));
      await doc.save();
      await vscode.commands.executeCommand('workbench.action.closeActiveEditor');
    }
  });

  test('a new kubeadm file: the apiVersion values, then the kinds of that version', async () => {
    await api();
    const uri = vscode.Uri.joinPath(workspaceFolder().uri, 'kubeadm-new.yaml');
    await vscode.workspace.fs.writeFile(uri, new TextEncoder().encode('apiVersion: \n'));
    try {
      const doc = await vscode.workspace.openTextDocument(uri);
      const versions = await waitFor('the apiVersion values', async () => {
        const items = (await completions(uri, new vscode.Position(0, 12))).map(label);
        return items.length ? items : undefined;
      });
      assert.deepEqual(versions, ['kubeadm.k8s.io/v1beta3', 'kubeadm.k8s.io/v1beta4', 'kubelet.config.k8s.io/v1beta1', 'kubeproxy.config.k8s.io/v1alpha1']);
      const editor = await vscode.window.showTextDocument(doc);
      await editor.edit((e) => e.replace(new vscode.Range(0, 0, 1, 0), 'apiVersion: kubeadm.k8s.io/v1beta4\nkind: \n'));
      const kinds = (await completions(uri, new vscode.Position(1, 6))).map(label);
      assert.ok(kinds.includes('UpgradeConfiguration') && kinds.includes('ClusterConfiguration'), kinds.join(', '));
      await vscode.commands.executeCommand('workbench.action.revertAndCloseActiveEditor');
    } finally {
      await vscode.workspace.fs.delete(uri, { useTrash: false });
    }
  });
});
