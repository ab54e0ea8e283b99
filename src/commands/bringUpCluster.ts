import { describeError } from '../core/live/errors';
import { buildPlan, pickPhases } from '../editor/bringUpPlans';
import { editorUi } from '../editor/vscodeUi';
import { approveAndRunPlan } from './runPlan';
import { defineCommand } from './context';
import { editorPreflight } from './preflightGate';

/**
 * Runs the bring-up plan over SSH: the preflight of every host first (refused with its table, before any question,
 * when one fails), the phases to include, then the plan-run workflow (the plan beside a modal, the sudo password, the
 * run with progress, cancel and resume; engine/workflows/planRunWorkflow.ts), as `up` does — over the pool the
 * preflight opened, so the host keys accepted in its review carry over.
 */
export const bringUpCluster = defineCommand({ trust: 'bring up the cluster over SSH', inventory: 'Bring-up' }, (ctx) => {
  return async (): Promise<void> => {
    const { loaded, inv, folder } = ctx;
    const ui = editorUi(ctx.reports);
    const pool = ctx.sessions.open(inv, folder);
    try {
      if (!(await editorPreflight(ctx, ui, pool, inv, { operation: 'Bring Up', hosts: inv.hosts.map((h) => h.name) })).ok) return;
      const phases = await pickPhases(ui, 'Bring up the cluster');
      if (!phases) return;
      let savedContext: string | undefined;
      let plan;
      try {
        plan = await buildPlan(ui, inv, loaded.uri, phases, (context, path) => (savedContext = `${context} in ${path}`));
      } catch (e) {
        void ui.message('error', `Cannot make the plan: ${describeError(e)}`);
        return;
      }
      await approveAndRunPlan(
        ctx,
        { inv, inventoryUri: loaded.uri, plan, command: 'up', title: `Bring-up of ${inv.cluster.name}`, planDocument: 'bring-up-plan.txt' },
        (took) => `${inv.cluster.name} is up (${took}).${savedContext ? ` Admin context ${savedContext}.` : ''}`,
        pool,
      );
    } finally {
      await pool.close();
    }
  };
});
