/**
 * The guided fix of an embedded kubelet.conf, for the Certificates view's "Fix kubelet.conf…" and the CLI's
 * `certs fix-kubelet-conf --host NAME`: the node read, refused or "nothing to fix" in one message, the plan (drained
 * first), the run through the plan-run workflow.
 */
import { describeError } from '../../core/live/errors';
import { renderPlan } from '../../core/plan/types';
import { sudoUnlessRoot } from '../become';
import { prepareKubeletConfFix, type KubeletConfDeps, type KubeletConfPreparation } from '../kubeletConf';
import { planRunWorkflow, type PlanRunInput, type PlanRunOutcome } from './planRunWorkflow';
import type { Ui } from './ui';

export interface KubeletConfWorkflowInput {
  deps: Omit<KubeletConfDeps, 'become' | 'stateDir'>;
  loginUser: (host: string) => string;
  node: string;
  planOnly?: boolean;
  run: Omit<PlanRunInput, 'inventory' | 'plan' | 'command' | 'title' | 'planDocument' | 'password' | 'onEvent' | 'onNarration'>;
}

export type KubeletConfOutcome = { kind: 'failed-to-read' | 'refused'; message: string } | { kind: 'nothing' | 'planned' } | PlanRunOutcome;

export async function kubeletConfWorkflow(ui: Ui, input: KubeletConfWorkflowInput): Promise<KubeletConfOutcome> {
  const title = `kubelet.conf of ${input.node}`;
  let prep: KubeletConfPreparation;
  try {
    prep = await ui.progress({ title: `Reading ${input.node}'s kubelet.conf…`, narrate: true }, () =>
      prepareKubeletConfFix({ ...input.deps, become: sudoUnlessRoot(input.loginUser), stateDir: input.run.stateDir }, input.node),
    );
  } catch (e) {
    const message = `${title}: ${describeError(e)}`;
    await ui.message('error', message);
    return { kind: 'failed-to-read', message };
  }
  if (prep.refusals.length) {
    const message = `${title}: not fixed; nothing was done: ${prep.refusals.join(' ')}`;
    await ui.message('error', message, { modal: true });
    return { kind: 'refused', message };
  }
  if (prep.nothing || !prep.plan) {
    await ui.message('info', `${title} takes its client certificate from the rotated file already; nothing to fix.`);
    return { kind: 'nothing' };
  }
  if (input.planOnly) {
    await ui.show('kubelet-conf-plan.txt', renderPlan(prep.plan));
    return { kind: 'planned' };
  }
  return planRunWorkflow(ui, { ...input.run, inventory: input.deps.inventory, plan: prep.plan, command: 'kubelet-conf', title: `Fix of ${title}`, planDocument: 'kubelet-conf-plan.txt' });
}
