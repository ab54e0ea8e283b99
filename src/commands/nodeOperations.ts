/**
 * "Remove from Cluster…", "Replace…" and "Reset Host…" on a host row of the Inventory (or from the palette, with a
 * host picker): the host (and for a replace, the new one) chosen here, the rest is the nodes workflow's
 * (engine/workflows/nodesWorkflow.ts), the CLI's `remove`, `replace` and `reset` too — what was found in a document,
 * a refusal as a modal, the typed name when forced, the plan beside the run modal with progress, cancel and the run
 * terminal, and afterwards the inventory edit as a diff, applied to inventory.yaml unsaved for the user to review
 * and save (or undo).
 */
import { readLocalText } from '../engine/workspaceFiles';
import { dirname } from 'node:path';
import * as vscode from 'vscode';
import type { HostSpec, Inventory } from '../core/inventory/types';
import type * as Inputs from '../engine/inputs';
import type { NodeOperation, NodeRequest } from '../engine/nodes';
import { stateFolderFor, vrrpAuthPass } from '../engine/stateFolder';
import { nodeOperationTitle, nodesWorkflow } from '../engine/workflows/nodesWorkflow';
import type { Ui } from '../engine/workflows/ui';
import { log } from '../editor/log';
import type { InventoryNode } from '../editor/treeNodes';
import { editorUi } from '../editor/vscodeUi';
import { editorPlanRun } from './runPlan';
import { defineCommand } from './context';

const isNode = (h: HostSpec) => h.roles.includes('control-plane') || h.roles.includes('worker');

const VERBS: Record<NodeOperation, { what: string; title: string; pick: string }> = {
  remove: { what: 'remove a node from the cluster over SSH', title: 'Remove from Cluster', pick: 'Node to remove from the cluster' },
  replace: { what: 'replace a node over SSH', title: 'Replace', pick: 'Node to replace' },
  reset: { what: 'reset a host over SSH', title: 'Reset Host', pick: 'Host to reset for re-use (refused while it is an etcd member or a Node)' },
};

async function pickHost(ui: Ui, inv: Inventory, operation: NodeOperation, node?: InventoryNode): Promise<string | undefined> {
  if (node?.kind === 'host') return node.host.name;
  return ui.pick(VERBS[operation].pick, inv.hosts.filter(isNode).map((h) => ({ label: h.name, description: `${h.address} · ${h.roles.join(', ')}`, value: h.name })));
}

const OTHER = Symbol('another host');

/** The new host: a spare of the inventory (no node role), or a name and address typed in. */
async function pickReplacement(ui: Ui, inv: Inventory, old: string): Promise<NodeRequest['replacement']> {
  const spares = inv.hosts.filter((h) => !isNode(h) && !h.roles.includes('loadbalancer'));
  const picked = await ui.pick<HostSpec | typeof OTHER>(`Replace ${old} with…`, [
    ...spares.map((h) => ({ label: h.name, description: h.address, value: h })),
    { label: '$(add) A host that is not in the inventory…', description: 'name and address', value: OTHER },
  ]);
  if (!picked) return undefined;
  if (picked !== OTHER) return { name: picked.name, address: picked.address };
  const name = (await ui.input(`Replace ${old}: the new host's name`, 'Its Node name, a DNS-1123 name, e.g. labs-k8s-m04'))?.trim();
  if (!name) return undefined;
  const address = (await ui.input(`Replace ${old}: ${name}'s address`, 'Its IPv4 address, checked with the rest of the inventory'))?.trim();
  if (!address) return undefined;
  return { name, address };
}

function nodeOperation(operation: NodeOperation) {
  return defineCommand({ trust: VERBS[operation].what, inventory: VERBS[operation].title }, (ctx) => async (node?: InventoryNode): Promise<void> => {
    const { loaded, inv: parsed, folder } = ctx;
    const ui = editorUi(ctx.reports);
    const host = await pickHost(ui, parsed, operation, node);
    if (!host) return;
    const replacement = operation === 'replace' ? await pickReplacement(ui, parsed, host) : undefined;
    if (operation === 'replace' && !replacement) return;
    // A new host not in the inventory is reached with the old one's SSH settings, with no role until it joins.
    const old = parsed.hosts.find((h) => h.name === host);
    const inv: Inventory = replacement && old && !parsed.hosts.some((h) => h.name === replacement.name)
      ? { ...parsed, hosts: [...parsed.hosts, { ...old, name: replacement.name, address: replacement.address, roles: [] }] }
      : parsed;
    const document = await vscode.workspace.openTextDocument(loaded.uri);
    const pool = ctx.sessions.open(inv, folder);
    const request = { operation, host, ...(replacement ? { replacement } : {}) };
    try {
      // eslint-disable-next-line @typescript-eslint/no-require-imports
      const { phaseConfigs, phaseSources, readKubeadmExtra } = require('../engine/inputs') as typeof Inputs;
      const readFile = readLocalText;
      await nodesWorkflow(ui, {
        deps: {
          inventory: inv,
          inventoryText: document.getText(),
          ssh: pool,
          joinInputs: async (after) => {
            const dir = dirname(loaded.uri.fsPath);
            return { configs: phaseConfigs(after, await readKubeadmExtra(after, dir, readFile), await vrrpAuthPass(stateFolderFor(loaded.uri.fsPath))), sources: await phaseSources(after, dir, readFile) };
          },
        },
        loginUser: (h) => pool.loginUser(h),
        hostKeys: pool,
        request,
        run: { ...editorPlanRun(pool, loaded.uri), onLog: (path) => log.runLog(nodeOperationTitle(request), path) },
        inventoryEdit: {
          file: 'inventory.yaml',
          question: `Apply the edit to inventory.yaml?`,
          action: 'Apply (unsaved)',
          apply: async (text) => {
            // Through the editor, not workspace.applyEdit: VS Code saves a file a workspace edit changed while no
            // editor showed it (files.refactoring.autoSave, on by default) — seen in the lab's palette test, where the
            // edit meant for review was on disk at once. The whole text in one edit: one undo takes it back.
            const editor = await vscode.window.showTextDocument(document, { preview: false });
            const whole = new vscode.Range(document.positionAt(0), document.positionAt(document.getText().length));
            if (!(await editor.edit((b) => b.replace(whole, text)))) throw new Error('VS Code did not apply the edit to inventory.yaml');
            // The web workbench (code-server) saves after a delay by default: say what the user's setting does.
            const autoSave = vscode.workspace.getConfiguration('files', document.uri).get<string>('autoSave', 'off');
            return autoSave === 'off'
              ? `inventory.yaml edited, not saved: review it and save, or undo.`
              : `inventory.yaml edited; your files.autoSave setting (${autoSave}) saves it — Undo in its editor takes the edit back.`;
          },
        },
      });
    } finally {
      await pool.close();
    }
  });
}

export const removeNode = nodeOperation('remove');
export const replaceNode = nodeOperation('replace');
export const resetHost = nodeOperation('reset');
