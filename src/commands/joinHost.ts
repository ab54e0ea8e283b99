import * as vscode from 'vscode';
import { joinableHosts, joinPhases, joinProblem, narrowToJoin } from '../engine/join';
import { buildPlan } from '../editor/bringUpPlans';
import { approveAndRunPlan } from '../editor/planRun';
import type { InventoryNode } from '../editor/treeNodes';
import { defineCommand } from './context';

/**
 * Joins inventory hosts to the running cluster — a node added to the inventory, or one rebuilt: its
 * prepare steps, a fresh token (and certificate key for a control-plane node), the join, then the etcd
 * and Ready gates; the balancers' configuration too when a control-plane node joins, since it lists
 * every one of them. From a host's context menu, or pick the hosts.
 */
export const joinHost = defineCommand({ trust: 'join hosts to the cluster over SSH', inventory: 'Joining' }, (ctx) => {
  return async (node?: InventoryNode): Promise<void> => {
    const { loaded, inv } = ctx;
    const joinable = joinableHosts(inv);
    let hosts: string[];
    if (node?.kind === 'host') {
      const problem = joinProblem(inv, [node.host.name]);
      if (problem) {
        void vscode.window.showErrorMessage(`Cannot join: ${problem}.`);
        return;
      }
      hosts = [node.host.name];
    } else {
      const picked = await vscode.window.showQuickPick(
        joinable.map((name) => {
          const h = inv.hosts.find((x) => x.name === name)!;
          return { label: name, description: `${h.address} · ${h.roles.join(', ')}` };
        }),
        { title: 'Join hosts to the cluster', canPickMany: true, placeHolder: 'Hosts to join (steps already done are skipped)' },
      );
      if (!picked?.length) return;
      hosts = picked.map((p) => p.label);
    }
    let plan;
    try {
      plan = narrowToJoin(inv, hosts, await buildPlan(inv, loaded.uri, joinPhases(inv, hosts), () => undefined));
    } catch (e) {
      void vscode.window.showErrorMessage(`Cannot make the plan: ${(e as Error).message}`);
      return;
    }
    const title = `Join of ${hosts.join(', ')}`;
    await approveAndRunPlan(ctx, { inv, inventoryUri: loaded.uri, plan, command: 'join', title, planDocument: 'join-plan.txt' }, (took) => `${hosts.join(', ')} joined ${inv.cluster.name} (${took}).`);
  };
});
