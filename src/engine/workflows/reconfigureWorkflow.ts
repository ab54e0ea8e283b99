/**
 * The reconfigure as the user meets it, for the editor's "Reconfigure Control Plane…" and the CLI's `reconfigure`:
 * the workspace and the cluster read and compared (narrated), a refusal in one message, "nothing to do" when they
 * agree, the plan (what changes, the drift it overwrites), the run through the plan-run workflow (resumable), and how
 * long each node took from its guard to its API server back in the balancers.
 */
import { hostsWith } from '../../core/inventory/types';
import { t } from '../../core/l10n';
import { describeError } from '../../core/live/errors';
import { renderPlan } from '../../core/plan/types';
import { sudoUnlessRoot } from '../become';
import { prepareReconfigure, type ReconfigureDeps, type ReconfigurePreparation } from '../reconfigure';
import { planRunWorkflow, type PlanRunInput, type PlanRunOutcome } from './planRunWorkflow';
import { preflightStep } from './preflightStep';
import type { Ui } from './ui';

export interface ReconfigureWorkflowInput {
  deps: Omit<ReconfigureDeps, 'become' | 'say' | 'stateDir'>;
  loginUser: (host: string) => string;
  planOnly?: boolean;
  run: Omit<PlanRunInput, 'inventory' | 'plan' | 'command' | 'title' | 'planDocument' | 'password' | 'onEvent' | 'onNarration'>;
}

export type ReconfigureOutcome =
  | { kind: 'failed-to-read' | 'refused'; message: string }
  | { kind: 'nothing' | 'planned' }
  | (PlanRunOutcome & { perNode: { host: string; seconds?: number }[]; seconds: number });

export async function reconfigureWorkflow(ui: Ui, input: ReconfigureWorkflowInput): Promise<ReconfigureOutcome> {
  const inv = input.deps.inventory;
  const title = t('Reconfigure of the control plane of {0}', inv.cluster.name);
  let password: string | undefined;
  const become = (h: string) => sudoUnlessRoot(input.loginUser, password)(h);
  let say: (line: string) => void = () => undefined;
  let prep: ReconfigurePreparation;
  // The shared preflight before the first read: the control-plane nodes it restarts and the balancers it takes them out of.
  const pre = await preflightStep(ui, { ssh: input.run.ssh, inventory: inv, operation: title, hosts: hostsWith(inv, 'control-plane', 'loadbalancer'), sudoPasswordAsked: true });
  if (!pre.ok) return { kind: 'refused', message: pre.message };
  try {
    prep = await ui.progress({ title: t("Comparing the workspace's kubeadm configuration with {0}'s…", inv.cluster.name), narrate: true }, async (progress) => {
      const p = await prepareReconfigure({ ...input.deps, become, stateDir: input.run.stateDir, say: (line) => say(line) });
      progress(`   ${t('workspace: {0}', p.source ?? t('generated from the inventory'))}`);
      return p;
    });
  } catch (e) {
    const message = t('{0}: cannot read the configuration: {1}', title, describeError(e));
    await ui.message('error', message);
    return { kind: 'failed-to-read', message };
  }
  if (prep.refusals.length) {
    const message = t('{0} refused; nothing was done: {1}', title, prep.refusals.join(' '));
    await ui.message('error', message, { modal: true });
    return { kind: 'refused', message };
  }
  if (prep.nothing || !prep.plan) {
    await ui.message('info', t("{0}: the workspace's extraArgs and certSANs are the kubeadm-config ConfigMap's already; nothing to reconfigure.", inv.cluster.name));
    return { kind: 'nothing' };
  }
  if (input.planOnly) {
    await ui.show('reconfigure-plan.txt', renderPlan(prep.plan));
    return { kind: 'planned' };
  }
  const perNode: Record<string, { startedAt: number; seconds?: number }> = {};
  let started = 0;
  const outcome = await planRunWorkflow(ui, {
    ...input.run,
    inventory: inv, plan: prep.plan, command: 'reconfigure', title, planDocument: 'reconfigure-plan.txt',
    password: (p) => (password = p),
    onNarration: (narrate) => (say = (line) => narrate(line)),
    onEvent: (e) => {
      if (e.type === 'step-start' && !started) started = Date.now();
      if (e.type === 'step-start' && e.step.id.endsWith('/guard')) perNode[e.step.host] = { startedAt: Date.now() };
      const back = e.type === 'step-end' && /\/haproxy-ready-(.+)$/.exec(e.step.id);
      const node = back ? back[1]! : e.type === 'step-end' && e.step.id.endsWith('/running') ? e.step.host : undefined;
      if (node && perNode[node] && (e.type === 'step-end' && (e.state === 'done' || e.state === 'skipped'))) perNode[node]!.seconds = (Date.now() - perNode[node]!.startedAt) / 1000;
    },
  });
  say = () => undefined;
  return { ...outcome, perNode: Object.entries(perNode).map(([host, t]) => ({ host, ...(t.seconds !== undefined ? { seconds: t.seconds } : {}) })), seconds: started ? (Date.now() - started) / 1000 : 0 };
}
