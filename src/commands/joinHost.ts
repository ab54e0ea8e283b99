import { describeError } from '../core/live/errors';
import { joinableHosts, joinPhases, joinProblem, narrowToJoin } from '../engine/join';
import { buildPlan } from '../editor/bringUpPlans';
import { editorUi } from '../editor/vscodeUi';
import { approveAndRunPlan } from './runPlan';
import type { InventoryNode } from '../editor/treeNodes';
import { defineCommand } from './context';

/**
 * Joins inventory hosts to the running cluster — a node added to the inventory, or one rebuilt: its
 * prepare steps, a fresh token (and certificate key for a control-plane node), the join, then the etcd
 * and Ready gates; the balancers' configuration too when a control-plane node joins, since it lists
 * every one of them. From a host's context menu, or pick the hosts; then the plan-run workflow, as the CLI's `join`.
 */
export const joinHost = defineCommand({ trust: 'join hosts to the cluster over SSH', inventory: 'Joining' }, (ctx) => {
  return async (node?: InventoryNode): Promise<void> => {
    const { loaded, inv } = ctx;
    const ui = editorUi(ctx.reports);
    const joinable = joinableHosts(inv);
    let hosts: string[];
    if (node?.kind === 'host') {
      const problem = joinProblem(inv, [node.host.name]);
      if (problem) {
        void ui.message('error', `Cannot join: ${problem}.`);
        return;
      }
      hosts = [node.host.name];
    } else {
      const picked = await ui.pickMany(
        'Join hosts to the cluster',
        joinable.map((name) => {
          const h = inv.hosts.find((x) => x.name === name)!;
          return { value: name, label: name, description: `${h.address} · ${h.roles.join(', ')}` };
        }),
        'Hosts to join (steps already done are skipped)',
      );
      if (!picked?.length) return;
      hosts = picked;
    }
    let plan;
    try {
      plan = narrowToJoin(inv, hosts, await buildPlan(inv, loaded.uri, joinPhases(inv, hosts), () => undefined));
    } catch (e) {
      void ui.message('error', `Cannot make the plan: ${describeError(e)}`);
      return;
    }
    const title = `Join of ${hosts.join(', ')}`;
    await approveAndRunPlan(ctx, { inv, inventoryUri: loaded.uri, plan, command: 'join', title, planDocument: 'join-plan.txt' }, (took) => `${hosts.join(', ')} joined ${inv.cluster.name} (${took}).`);
  };
});
