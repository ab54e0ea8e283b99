/**
 * The failure drill, written once for the editor's "Run Failure Drill…" and the CLI's `drill`: the sudo
 * password (when a host is not reached as root), the plan read from the cluster and shown, the refusal of a
 * drill the control-plane guard forbids, the question, the run with a cancel that stops the observation but
 * never the restore, the report, and the verdict. The front-ends pick the node and the fault and connect.
 */
import type { DrillPlan, DrillRequest } from '../../core/drill/plan';
import { renderDrillPlan } from '../../core/drill/plan';
import { renderDrillReport, type DrillReport } from '../../core/drill/report';
import { describeError } from '../../core/live/errors';
import { RunOutput } from '../../core/ssh/runLog';
import { sudoUnlessRoot } from '../become';
import { prepareDrill, runDrill, type DrillDeps } from '../drill';
import { askSudoPassword, nonRootHosts } from './become';
import type { Ui } from './ui';

export interface DrillWorkflowInput extends Omit<DrillDeps, 'become' | 'output'> {
  request: DrillRequest;
  /** The login user of a host (throws on a configuration error). */
  loginUser: (host: string) => string;
  /** Show the plan and stop (CLI --plan). */
  planOnly?: boolean;
  /** The engine's steps; tests replace them below the real path the extension-host and lab tiers run. */
  engine?: { prepare: typeof prepareDrill; run: typeof runDrill };
}

export type DrillOutcome =
  | { kind: 'cancelled' | 'not-confirmed' | 'planned' }
  | { kind: 'failed-to-plan' | 'refused'; message: string }
  | { kind: 'ran'; report: DrillReport };

export async function drillWorkflow(ui: Ui, input: DrillWorkflowInput): Promise<DrillOutcome> {
  const { request: req, inventory: inv } = input;
  const engine = input.engine ?? { prepare: prepareDrill, run: runDrill };
  const host = req.host;
  const output = new RunOutput();
  const sudo = await askSudoPassword(ui, nonRootHosts(inv.hosts.map((h) => h.name), input.loginUser));
  if (sudo === 'cancelled') return { kind: 'cancelled' };
  if (sudo.password) output.addSecrets([sudo.password]);
  const deps: DrillDeps = {
    inventory: inv,
    ssh: input.ssh,
    api: input.api,
    probe: input.probe,
    become: sudoUnlessRoot(input.loginUser, sudo.password),
    output,
    ...(input.cwd ? { cwd: input.cwd } : {}),
    ...(input.runLocal ? { runLocal: input.runLocal } : {}),
  };
  let plan: DrillPlan;
  try {
    ({ plan } = await ui.progress({ title: `Reading ${inv.cluster.name} for the drill on ${host}…` }, () => engine.prepare(deps, req)));
  } catch (e) {
    const message = `Cannot plan the drill on ${host}: ${describeError(e)}`;
    await ui.message('error', message);
    return { kind: 'failed-to-plan', message };
  }
  await ui.show(`failure-drill-${host}-plan.md`, renderDrillPlan(plan), 'markdown');
  if (plan.refusals.length) {
    const message = `Failure drill on ${host} refused: ${plan.refusals.join(' ')} Nothing was done.`;
    await ui.message('error', message, { modal: true });
    return { kind: 'refused', message };
  }
  if (input.planOnly) return { kind: 'planned' };
  const what: Record<DrillPlan['kind'], string> = {
    'power-off': `Power off ${host}`,
    stop: plan.target.role === 'loadbalancer' ? `Stop keepalived on ${host}` : `Stop Kubernetes on ${host}`,
    partition: `Cut ${host}'s network`,
    haproxy: `Stop HAProxy on ${host} (the VIP holder)`,
    'split-brain': `Block VRRP on ${host} (split brain)`,
  };
  const answer = await ui.confirm({
    message: `${what[plan.kind]} and measure how ${inv.cluster.name} copes?`,
    detail: [
      `Fault: ${plan.fault?.where === 'local' ? `on this machine: ${plan.fault.command.display}` : plan.fault ? `over SSH: ${plan.fault.command.display}` : ''}`,
      plan.etcd ? plan.etcd.quorum : '',
      `Restored afterwards (${plan.restore?.where === 'local' ? plan.restore.command.display : (plan.restore?.title ?? '')}) — also when the drill fails or you cancel. The plan is open beside this dialog.`,
    ].filter(Boolean).join('\n'),
    actions: ['Run Drill'],
  });
  if (answer !== 'Run Drill') return { kind: 'not-confirmed' };

  const abort = new AbortController();
  const byHand = plan.restore?.where === 'local' ? plan.restore.command.display : plan.restore ? `ssh ${plan.restore.host} '${plan.restore.command.display}'` : '?';
  const onCancel = (count: number): void => {
    if (count === 1) output.message(`cancelling: the observation stops; ${host} is restored first…`, undefined, 'error');
    else output.message(`still restoring ${host}; wait for it (by hand: ${byHand})`, undefined, 'error');
    abort.abort();
  };
  let cancels = 0;
  const view = ui.openRun(`Kubeadm: drill ${host}`, output, () => onCancel(++cancels));
  let report: DrillReport;
  try {
    report = await ui.progress({ title: `Failure drill on ${host}`, cancellable: true, cancelNeverExits: true, onCancel: () => onCancel(++cancels) }, (progress, signal) => {
      signal.addEventListener('abort', () => abort.abort());
      return engine.run(deps, plan, { signal: abort.signal, onProgress: (x) => progress(x.message) });
    });
  } catch (e) {
    view.finish(`drill on ${host}: error ${describeError(e)}`, false);
    throw e;
  }
  const failed = report.measurements.filter((m) => m.verdict === 'fail').map((m) => m.title);
  view.finish(report.ok ? `drill on ${host}: passed` : `drill on ${host}: ${report.run.cancelled ? 'cancelled' : 'failed'}${failed.length ? ` (${failed.join('; ')})` : ''}`, report.ok);
  await ui.show(`failure-drill-${host}-report.md`, renderDrillReport(report), 'markdown', { preview: true });
  if (!report.run.restore.ok) await ui.message('error', `${host} was NOT restored: ${report.run.restore.error ?? ''}. See the report for the command to run by hand.`, { modal: true });
  else if (!report.ok) await ui.message('warning', `Failure drill on ${host}: ${report.run.cancelled ? 'cancelled' : `${failed.length} measurement(s) outside their bounds`} — see the report.`);
  else await ui.message('info', `Failure drill on ${host} passed — see the report.`);
  return { kind: 'ran', report };
}
