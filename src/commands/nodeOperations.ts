/**
 * "Remove from Cluster…", "Replace…" and "Reset Host…" on a host row of the Inventory (or from the palette, with a
 * host picker): the host (and for a replace, the new one) chosen here, the rest is the nodes workflow's
 * (engine/workflows/nodesWorkflow.ts), the CLI's `remove`, `replace` and `reset` too — what was found in a document,
 * a refusal as a modal, the typed name when forced, the plan beside the run modal with progress, cancel and the run
 * terminal, and afterwards the inventory edit as a diff, applied to inventory.yaml unsaved for the user to review
 * and save (or undo). The preflight of every host comes before the first question: a node being removed or replaced
 * may be dead and a re-imaged host's changed key is the workflow's own question, so those do not refuse; any other
 * host that fails does, before the host is picked or right after.
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
import { defineCommand, type Given } from './context';
import type { HostSession } from '../editor/hostSessions';
import { editorPreflight, refuseUnlessPasses } from './preflightGate';
import { failingHosts } from '../core/preflight/model';
import { isKubernetesHost } from '../core/inventory/types';

const isNode = (h: HostSpec) => isKubernetesHost(h);

const VERBS: Record<NodeOperation, { what: string; title: string; pick: string }> = {
  remove: { what: vscode.l10n.t('remove a node from the cluster over SSH'), title: vscode.l10n.t('Remove from Cluster'), pick: vscode.l10n.t('Node to remove from the cluster') },
  replace: { what: vscode.l10n.t('replace a node over SSH'), title: vscode.l10n.t('Replace'), pick: vscode.l10n.t('Node to replace') },
  reset: { what: vscode.l10n.t('reset a host over SSH'), title: vscode.l10n.t('Reset Host'), pick: vscode.l10n.t('Host to reset for re-use (refused while it is an etcd member or a Node)') },
};

async function pickHost(ui: Ui, inv: Inventory, operation: NodeOperation, node?: InventoryNode): Promise<string | undefined> {
  if (node?.kind === 'host') return node.host.name;
  return ui.pick(VERBS[operation].pick, inv.hosts.filter(isNode).map((h) => ({ label: h.name, description: `${h.address} · ${h.roles.join(', ')}`, value: h.name })));
}

const OTHER = Symbol('otherHost');

/** The new host: a spare of the inventory (no node role), or a name and address typed in. */
async function pickReplacement(ui: Ui, inv: Inventory, old: string): Promise<NodeRequest['replacement']> {
  const spares = inv.hosts.filter((h) => !isNode(h) && !h.roles.includes('loadbalancer'));
  const picked = await ui.pick<HostSpec | typeof OTHER>(vscode.l10n.t('Replace {0} with…', old), [
    ...spares.map((h) => ({ label: h.name, description: h.address, value: h })),
    { label: vscode.l10n.t('$(add) A host that is not in the inventory…'), description: vscode.l10n.t('name and address'), value: OTHER },
  ]);
  if (!picked) return undefined;
  if (picked !== OTHER) return { name: picked.name, address: picked.address };
  const name = (await ui.input(vscode.l10n.t('Replace {0}: the new host\'s name', old), vscode.l10n.t('Its Node name, a DNS-1123 name, e.g. labs-k8s-m04')))?.trim();
  if (!name) return undefined;
  const address = (await ui.input(vscode.l10n.t('Replace {0}: {1}\'s address', old, name), vscode.l10n.t('Its IPv4 address, checked with the rest of the inventory')))?.trim();
  if (!address) return undefined;
  return { name, address };
}

function nodeOperation(operation: NodeOperation) {
  return defineCommand({ trust: VERBS[operation].what, inventory: VERBS[operation].title }, (ctx) => async (node?: InventoryNode): Promise<void> => {
    const { inv: parsed, folder } = ctx;
    const ui = editorUi(ctx.reports);
    const changedKeys = ['host-key-changed'];
    const mayBeDead = (h: string) => (operation === 'reset' ? [] : [h]);
    const candidates = parsed.hosts.filter(isNode).map((h) => h.name);
    // The operation's pool from the start: the host keys accepted in the preflight's review carry over.
    const checking = ctx.sessions.open(parsed, folder);
    let handedOver = false;
    try {
      // Picked from a row, the host is known; from the palette, every node may be the one: judged again once picked.
      const tolerate = { hosts: node?.kind === 'host' ? mayBeDead(node.host.name) : candidates, kinds: changedKeys };
      const pre = await editorPreflight(ctx, ui, checking, parsed, { operation: VERBS[operation].title, hosts: parsed.hosts.map((h) => h.name), tolerate });
      if (!pre.ok) return;
      // From the palette: when no choice of node could pass (two nodes fail, or one for a reset, which needs its
      // node), refused now rather than after the pick.
      const failingNodes = failingHosts(pre.report, { kinds: changedKeys }).filter((h) => candidates.includes(h.host));
      if (!node && failingNodes.length >= (operation === 'reset' ? 1 : 2) && !(await refuseUnlessPasses(ui, pre.report, VERBS[operation].title, { kinds: changedKeys }))) return;
      const host = await pickHost(ui, parsed, operation, node);
      if (!host) return;
      if (!(await refuseUnlessPasses(ui, pre.report, `${VERBS[operation].title} ${host}`, { hosts: mayBeDead(host), kinds: changedKeys }))) return;
      const replacement = operation === 'replace' ? await pickReplacement(ui, parsed, host) : undefined;
      if (operation === 'replace' && !replacement) return;
      handedOver = true;
      await operate(ctx, operation, ui, checking, host, replacement);
    } finally {
      if (!handedOver) await checking.close();
    }
  });
}

/** The host (and its replacement) chosen and checked: the nodes workflow over the pool the preflight opened. */
async function operate(ctx: Given<{ trust: string; inventory: string }>, operation: NodeOperation, ui: Ui, checking: HostSession, host: string, replacement: NodeRequest['replacement']): Promise<void> {
  const { loaded, inv: parsed, folder } = ctx;
  // A new host not in the inventory is reached with the old one's SSH settings, with no role until it joins.
  const old = parsed.hosts.find((h) => h.name === host);
  const inv: Inventory = replacement && old && !parsed.hosts.some((h) => h.name === replacement.name)
    ? { ...parsed, hosts: [...parsed.hosts, { ...old, name: replacement.name, address: replacement.address, roles: [] }] }
    : parsed;
  const document = await vscode.workspace.openTextDocument(loaded.uri);
  // A new host not in the inventory needs a pool that knows it (its keys are asked there, as before).
  const pool = inv === parsed ? checking : ctx.sessions.open(inv, folder);
  if (pool !== checking) await checking.close();
  const request = { operation, host, ...(replacement ? { replacement } : {}) };
  try {
    // The new host: a spare of the inventory was in the preflight; one typed in is checked now, before the plan.
    if (replacement && !parsed.hosts.some((h) => h.name === replacement.name)) {
      if (!(await editorPreflight(ctx, ui, pool, inv, { operation: vscode.l10n.t('Replace {0} with {1}', host, replacement.name), hosts: [replacement.name] })).ok) return;
    }
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
        question: vscode.l10n.t('Apply the edit to inventory.yaml?'),
        action: vscode.l10n.t('Apply (unsaved)'),
        apply: async (text) => {
          // Through the editor, not workspace.applyEdit: VS Code saves a file a workspace edit changed while no
          // editor showed it (files.refactoring.autoSave, on by default) — seen in the lab's palette test, where the
          // edit meant for review was on disk at once. The whole text in one edit: one undo takes it back.
          const editor = await vscode.window.showTextDocument(document, { preview: false });
          const whole = new vscode.Range(document.positionAt(0), document.positionAt(document.getText().length));
          if (!(await editor.edit((b) => b.replace(whole, text)))) throw new Error(vscode.l10n.t('VS Code did not apply the edit to inventory.yaml'));
          // The web workbench (code-server) saves after a delay by default: say what the user's setting does.
          const autoSave = vscode.workspace.getConfiguration('files', document.uri).get<string>('autoSave', 'off');
          return autoSave === 'off'
            ? vscode.l10n.t('inventory.yaml edited, not saved: review it and save, or undo.')
            : vscode.l10n.t('inventory.yaml edited; your files.autoSave setting ({0}) saves it — Undo in its editor takes the edit back.', autoSave);
        },
      },
    });
  } finally {
    await pool.close();
  }
}

export const removeNode = nodeOperation('remove');
export const replaceNode = nodeOperation('replace');
export const resetHost = nodeOperation('reset');
