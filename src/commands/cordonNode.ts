import * as vscode from 'vscode';
import { setCordon, type DrainLine } from '../core/drain/drainNode';
import { resolveNodeTarget } from '../editor/nodeTarget';
import { defineCommand } from './context';

/**
 * Cordon Node / Uncordon Node: kubectl cordon/uncordon (spec.unschedulable) on a node picked from the
 * Inventory or Control Plane view, or from a list; a modal says what changes before anything does.
 */
export function cordonCommand(cordon: boolean) {
  const verb = cordon ? 'cordon' : 'uncordon';
  return defineCommand({ trust: `${verb} a node`, cluster: `${verb} a node` }, (ctx) => async (arg?: unknown): Promise<void> => {
    const target = await resolveNodeTarget(ctx, arg, `${verb} a node`);
    if (!target) return;
    const { cluster, node, conn } = target;
    try {
      const info = await cluster.getNode(node);
      if (info.unschedulable === cordon) {
        void vscode.window.showInformationMessage(`node/${node} already ${verb}ed`);
        return;
      }
      const action = cordon ? 'Cordon' : 'Uncordon';
      const answer = await vscode.window.showWarningMessage(
        `${action} ${node}?`,
        { modal: true, detail: `${cordon ? 'Sets spec.unschedulable: no new pods are scheduled on the node; the pods running there stay.' : 'Clears spec.unschedulable: the scheduler may place pods on the node again.'} Cluster: ${conn.context} (${conn.server}).` },
        action,
      );
      if (answer !== action) return;
      const lines: DrainLine[] = [];
      await setCordon(cluster, node, cordon, 'none', (l) => lines.push(l), info);
      void vscode.window.showInformationMessage(lines.map((l) => l.text).join(' '));
    } catch (e) {
      void vscode.window.showErrorMessage(`Unable to ${verb} node ${node}: ${(e as Error).message}`);
    }
  });
}

export const cordonNode = cordonCommand(true);
