import * as vscode from 'vscode';
import { joinableHosts, joinPhases, joinProblem, narrowToJoin } from '../engine/join';
import { buildPlan } from '../editor/bringUpPlans';
import { editorUi } from '../editor/vscodeUi';
import { approveAndRunPlan } from './runPlan';
import type { InventoryNode } from '../editor/treeNodes';
import { defineCommand } from './context';
import { editorPreflight, refuseUnlessPasses } from './preflightGate';
import { hostsWith } from '../core/inventory/types';

/**
 * Joins inventory hosts to the running cluster — a node added to the inventory, or one rebuilt: its
 * prepare steps, a fresh token (and certificate key for a control-plane node), the join, then the etcd
 * and Ready gates; the balancers' configuration too when a control-plane node joins, since it lists
 * every one of them. From a host's context menu, or pick the hosts; then the plan-run workflow, as the CLI's `join`.
 * The preflight comes first: the control-plane nodes and balancers must pass before anything is asked (the hosts
 * offered to join are checked with them, and a picked one that fails is refused before the plan).
 */
export const joinHost = defineCommand({ trust: vscode.l10n.t('join hosts to the cluster over SSH'), inventory: vscode.l10n.t('Joining') }, (ctx) => {
  return async (node?: InventoryNode): Promise<void> => {
    const { loaded, inv, folder } = ctx;
    const ui = editorUi(ctx.reports);
    const joinable = joinableHosts(inv);
    if (node?.kind === 'host') {
      const problem = joinProblem(inv, [node.host.name]);
      if (problem) {
        void ui.message('error', vscode.l10n.t('Cannot join: {0}.', problem));
        return;
      }
    }
    const candidates = node?.kind === 'host' ? [node.host.name] : joinable;
    const pool = ctx.sessions.open(inv, folder);
    try {
      const infrastructure = hostsWith(inv, 'control-plane', 'loadbalancer').filter((h) => !candidates.includes(h));
      const pre = await editorPreflight(ctx, ui, pool, inv, { operation: vscode.l10n.t('Join'), hosts: [...infrastructure, ...candidates], tolerate: node?.kind === 'host' ? {} : { hosts: candidates } });
      if (!pre.ok) return;
      let hosts: string[];
      if (node?.kind === 'host') hosts = [node.host.name];
      else {
        const picked = await ui.pickMany(
          vscode.l10n.t('Join hosts to the cluster'),
          joinable.map((name) => {
            const h = inv.hosts.find((x) => x.name === name)!;
            return { value: name, label: name, description: `${h.address} · ${h.roles.join(', ')}` };
          }),
          vscode.l10n.t('Hosts to join (steps already done are skipped)'),
        );
        if (!picked?.length) return;
        hosts = picked;
        if (!(await refuseUnlessPasses(ui, pre.report, vscode.l10n.t('Join of {0}', hosts.join(', ')), { hosts: joinable.filter((h) => !hosts.includes(h)) }))) return;
      }
      const plan = narrowToJoin(inv, hosts, await buildPlan(ui, inv, loaded.uri, joinPhases(inv, hosts), () => undefined));
      const title = vscode.l10n.t('Join of {0}', hosts.join(', '));
      await approveAndRunPlan(ctx, { inv, inventoryUri: loaded.uri, plan, command: 'join', title, planDocument: 'join-plan.txt' }, (took) => vscode.l10n.t('{0} joined {1} ({2}).', hosts.join(', '), inv.cluster.name, took), pool);
    } finally {
      await pool.close();
    }
  };
});
