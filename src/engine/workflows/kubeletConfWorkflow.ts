/**
 * The guided fix of an embedded kubelet.conf, for the Certificates view's "Fix kubelet.conf…" and the CLI's
 * `certs fix-kubelet-conf --host NAME`: the node read, refused or "nothing to fix" in one message, the plan (drained
 * first), the run through the plan-run workflow.
 */
import { t } from '../../core/l10n';
import { describeError } from '../../core/live/errors';
import { renderPlan } from '../../core/plan/types';
import { sudoUnlessRoot } from '../become';
import { drainHelper, prepareKubeletConfFix, type KubeletConfDeps, type KubeletConfPreparation } from '../kubeletConf';
import { planRunWorkflow, type PlanRunInput, type PlanRunOutcome } from './planRunWorkflow';
import { preflightStep } from './preflightStep';
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
  const title = t('kubelet.conf of {0}', input.node);
  let prep: KubeletConfPreparation;
  // The shared preflight before the first read: the node and the control-plane node it is drained through (a name
  // the inventory does not have is left to the preparation's refusal).
  const inv = input.deps.inventory;
  const hosts = [...new Set([input.node, drainHelper(inv, input.node)?.name ?? ''])].filter((h) => inv.hosts.some((x) => x.name === h));
  const pre = hosts.length ? await preflightStep(ui, { ssh: input.run.ssh, inventory: inv, operation: title, hosts, sudoPasswordAsked: true }) : undefined;
  if (pre && !pre.ok) return { kind: 'refused', message: pre.message };
  try {
    prep = await ui.progress({ title: t("Reading {0}'s kubelet.conf…", input.node), narrate: true }, () =>
      prepareKubeletConfFix({ ...input.deps, become: sudoUnlessRoot(input.loginUser), stateDir: input.run.stateDir }, input.node),
    );
  } catch (e) {
    const message = `${title}: ${describeError(e)}`;
    await ui.message('error', message);
    return { kind: 'failed-to-read', message };
  }
  if (prep.refusals.length) {
    const message = t('{0}: not fixed; nothing was done: {1}', title, prep.refusals.join(' '));
    await ui.message('error', message, { modal: true });
    return { kind: 'refused', message };
  }
  if (prep.nothing || !prep.plan) {
    await ui.message('info', t('{0} takes its client certificate from the rotated file already; nothing to fix.', title));
    return { kind: 'nothing' };
  }
  if (input.planOnly) {
    await ui.show('kubelet-conf-plan.txt', renderPlan(prep.plan));
    return { kind: 'planned' };
  }
  return planRunWorkflow(ui, { ...input.run, inventory: input.deps.inventory, plan: prep.plan, command: 'kubelet-conf', title: t('Fix of {0}', title), planDocument: 'kubelet-conf-plan.txt' });
}
