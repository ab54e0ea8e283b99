/**
 * "Remove from Cluster…", "Replace…" and "Reset Host…" on a host row of the Inventory (or from the palette,
 * with a host picker): the workflow of src/engine/nodes.ts with the editor's dialogs — what was found and the
 * guard's arithmetic in a report document, a refusal as a modal, the typed confirmation as an input box, the
 * plan beside the run modal with progress, cancel and the run terminal (src/editor/planRun.ts), and the
 * inventory edit applied to inventory.yaml unsaved, for the user to review and save (or undo).
 */
import { promises as fs } from 'node:fs';
import { dirname } from 'node:path';
import * as vscode from 'vscode';
import type { HostSpec, Inventory } from '../core/inventory/types';
import { sudoUnlessRoot } from '../engine/become';
import type * as Inputs from '../engine/inputs';
import { nodeOperationWorkflow, type NodeDialogs, type NodeOperation, type NodeRequest } from '../engine/nodes';
import { stateFolderFor, vrrpAuthPass } from '../engine/stateFolder';
import { approveAndRunPlan } from './runPlan';
import type { InventoryNode } from '../editor/treeNodes';
import { defineCommand } from './context';

const isNode = (h: HostSpec) => h.roles.includes('control-plane') || h.roles.includes('worker');

const VERBS: Record<NodeOperation, { what: string; title: string; pick: string }> = {
  remove: { what: 'remove a node from the cluster over SSH', title: 'Remove from Cluster', pick: 'Node to remove from the cluster' },
  replace: { what: 'replace a node over SSH', title: 'Replace', pick: 'Node to replace' },
  reset: { what: 'reset a host over SSH', title: 'Reset Host', pick: 'Host to reset for re-use (refused while it is an etcd member or a Node)' },
};

async function pickHost(inv: Inventory, operation: NodeOperation, node?: InventoryNode): Promise<string | undefined> {
  if (node?.kind === 'host') return node.host.name;
  const picked = await vscode.window.showQuickPick(
    inv.hosts.filter(isNode).map((h) => ({ label: h.name, description: `${h.address} · ${h.roles.join(', ')}` })),
    { title: VERBS[operation].pick },
  );
  return picked?.label;
}

/** The new host: a spare of the inventory (no node role), or a name and address typed in. */
async function pickReplacement(inv: Inventory, old: string): Promise<NodeRequest['replacement']> {
  const other = '$(add) A host that is not in the inventory…';
  const spares = inv.hosts.filter((h) => !isNode(h) && !h.roles.includes('loadbalancer'));
  const picked = await vscode.window.showQuickPick([...spares.map((h) => ({ label: h.name, description: h.address })), { label: other, description: 'name and address' }], { title: `Replace ${old} with…` });
  if (!picked) return undefined;
  if (picked.label !== other) return { name: picked.label, address: picked.description! };
  const name = await vscode.window.showInputBox({ title: `Replace ${old}: the new host's name (its Node name)`, validateInput: (v) => (/^[a-z0-9]([-a-z0-9.]*[a-z0-9])?$/.test(v.trim()) ? undefined : 'a DNS-1123 name, e.g. labs-k8s-m04') });
  if (!name) return undefined;
  const address = await vscode.window.showInputBox({ title: `Replace ${old}: ${name.trim()}'s address`, validateInput: (v) => (/^[0-9a-fA-F:.]+$/.test(v.trim()) ? undefined : 'an IP address') });
  if (!address) return undefined;
  return { name: name.trim(), address: address.trim() };
}

function nodeOperation(operation: NodeOperation) {
  return defineCommand({ trust: VERBS[operation].what, inventory: VERBS[operation].title }, (ctx) => async (node?: InventoryNode): Promise<void> => {
    const { loaded, inv: parsed, folder } = ctx;
    const host = await pickHost(parsed, operation, node);
    if (!host) return;
    const replacement = operation === 'replace' ? await pickReplacement(parsed, host) : undefined;
    if (operation === 'replace' && !replacement) return;
    // A new host not in the inventory is reached with the old one's SSH settings, with no role until it joins.
    const old = parsed.hosts.find((h) => h.name === host);
    const inv: Inventory = replacement && old && !parsed.hosts.some((h) => h.name === replacement.name)
      ? { ...parsed, hosts: [...parsed.hosts, { ...old, name: replacement.name, address: replacement.address, roles: [] }] }
      : parsed;
    const document = await vscode.workspace.openTextDocument(loaded.uri);
    const pool = ctx.sessions.open(inv, folder);
    const become = sudoUnlessRoot((h) => pool.loginUser(h));
    const found: string[] = [];
    const ui: NodeDialogs = {
      busy: (what, work) => Promise.resolve(vscode.window.withProgress({ location: vscode.ProgressLocation.Notification, title: `${title(operation, host, replacement)}: ${what}` }, work)),
      show: (lines) => found.push(...lines),
      refuse: async (reasons) => {
        await ctx.reports.show(`${operation}-${host}.txt`, [...found, '', 'Refused; nothing was done:', ...reasons.map((r) => `  - ${r}`)].join('\n'));
        void vscode.window.showErrorMessage(`${operation[0]!.toUpperCase()}${operation.slice(1)} of ${host} refused: ${reasons.join(' ')}`, { modal: true });
      },
      typeBack: (question) => Promise.resolve(vscode.window.showInputBox({ title: `Force the ${operation} of ${host}`, prompt: question, placeHolder: host, ignoreFocusOut: true })),
      runPlan: async (plan, title) => {
        await ctx.reports.show(`${operation}-${host}-found.txt`, found.join('\n'));
        return approveAndRunPlan(ctx, { inv, inventoryUri: loaded.uri, plan, command: operation, title, planDocument: `${operation}-${host}-plan.txt` });
      },
      offerInventoryEdit: async (edit, name) => {
        const apply = 'Show the Edit';
        const choice = await vscode.window.showInformationMessage(`${title(operation, host, replacement)} is done. Take ${name} out of inventory.yaml${replacement ? ` (${replacement.name} in its place)` : ''}? The edit is applied to the file unsaved: review it and save, or undo.`, apply, 'Keep inventory.yaml as it is');
        if (choice !== apply) return;
        const whole = new vscode.Range(document.positionAt(0), document.positionAt(document.getText().length));
        const wsEdit = new vscode.WorkspaceEdit();
        wsEdit.replace(loaded.uri, whole, edit.text);
        await vscode.workspace.applyEdit(wsEdit);
        await vscode.window.showTextDocument(document, { preview: false });
      },
    };
    try {
      // eslint-disable-next-line @typescript-eslint/no-require-imports
      const { phaseConfigs, phaseSources, readKubeadmExtra } = require('../engine/inputs') as typeof Inputs;
      const readFile = (p: string) => fs.readFile(p, 'utf8');
      await nodeOperationWorkflow({
        inventory: inv,
        inventoryText: document.getText(),
        ssh: pool,
        become,
        joinInputs: async (after) => {
          const dir = dirname(loaded.uri.fsPath);
          return { configs: phaseConfigs(after, await readKubeadmExtra(after, dir, readFile), await vrrpAuthPass(stateFolderFor(loaded.uri.fsPath))), sources: await phaseSources(after, dir, readFile) };
        },
      }, { operation, host, ...(replacement ? { replacement } : {}) }, ui);
    } finally {
      await pool.close();
    }
  });
}

export const removeNode = nodeOperation('remove');
export const replaceNode = nodeOperation('replace');
export const resetHost = nodeOperation('reset');

function title(operation: NodeOperation, host: string, replacement: NodeRequest['replacement']): string {
  return operation === 'replace' ? `Replace ${host} with ${replacement?.name}` : operation === 'remove' ? `Remove ${host} from the cluster` : `Reset ${host}`;
}
