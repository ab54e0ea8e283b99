/**
 * The failure drill, written once for the editor's "Run Failure Drill…" and the CLI's `drill`: the sudo
 * password (when a host is not reached as root), the plan read from the cluster and shown, the refusal of a
 * drill the control-plane guard forbids, the question, the run with a cancel that stops the observation but
 * never the restore, the report, and the verdict. The front-ends pick the node and the fault and connect.
 */
import { t } from '../../core/l10n';
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
    ({ plan } = await ui.progress({ title: t('Reading {0} for the drill on {1}…', inv.cluster.name, host) }, () => engine.prepare(deps, req)));
  } catch (e) {
    const message = t('Cannot plan the drill on {0}: {1}', host, describeError(e));
    await ui.message('error', message);
    return { kind: 'failed-to-plan', message };
  }
  await ui.show(`failure-drill-${host}-plan.md`, renderDrillPlan(plan), 'markdown');
  if (plan.refusals.length) {
    const message = t('Failure drill on {0} refused: {1} Nothing was done.', host, plan.refusals.join(' '));
    await ui.message('error', message, { modal: true });
    return { kind: 'refused', message };
  }
  if (input.planOnly) return { kind: 'planned' };
  const what: Record<DrillPlan['kind'], string> = {
    'power-off': t('Power off {0} and measure how {1} copes?', host, inv.cluster.name),
    stop: plan.target.role === 'loadbalancer' ? t('Stop keepalived on {0} and measure how {1} copes?', host, inv.cluster.name) : t('Stop Kubernetes on {0} and measure how {1} copes?', host, inv.cluster.name),
    partition: t("Cut {0}'s network and measure how {1} copes?", host, inv.cluster.name),
    haproxy: t('Stop HAProxy on {0} (the VIP holder) and measure how {1} copes?', host, inv.cluster.name),
    'split-brain': t('Block VRRP on {0} (split brain) and measure how {1} copes?', host, inv.cluster.name),
  };
  const answer = await ui.confirm({
    message: what[plan.kind],
    detail: [
      t('Fault: {0}', plan.fault?.where === 'local' ? t('on this machine: {0}', plan.fault.command.display) : plan.fault ? t('over SSH: {0}', plan.fault.command.display) : ''),
      plan.etcd ? plan.etcd.quorum : '',
      t('Restored afterwards ({0}) — also when the drill fails or you cancel. The plan is open beside this dialog.', plan.restore?.where === 'local' ? plan.restore.command.display : (plan.restore?.title ?? '')),
    ].filter(Boolean).join('\n'),
    actions: [t('Run Drill')],
  });
  if (answer !== t('Run Drill')) return { kind: 'not-confirmed' };

  const abort = new AbortController();
  const byHand = plan.restore?.where === 'local' ? plan.restore.command.display : plan.restore ? `ssh ${plan.restore.host} '${plan.restore.command.display}'` : '?';
  const onCancel = (count: number): void => {
    if (count === 1) output.message(t('cancelling: the observation stops; {0} is restored first…', host), undefined, 'error');
    else output.message(t('still restoring {0}; wait for it (by hand: {1})', host, byHand), undefined, 'error');
    abort.abort();
  };
  let cancels = 0;
  const view = ui.openRun(t('Kubeadm: drill {0}', host), output, () => onCancel(++cancels));
  let report: DrillReport;
  try {
    report = await ui.progress({ title: t('Failure drill on {0}', host), cancellable: true, cancelNeverExits: true, onCancel: () => onCancel(++cancels) }, (progress, signal) => {
      signal.addEventListener('abort', () => abort.abort());
      return engine.run(deps, plan, { signal: abort.signal, onProgress: (x) => progress(x.message) });
    });
  } catch (e) {
    view.finish(t('drill on {0}: error {1}', host, describeError(e)), false);
    throw e;
  }
  const failed = report.measurements.filter((m) => m.verdict === 'fail').map((m) => m.title);
  const bounds = failed.length ? ` (${failed.join('; ')})` : '';
  view.finish(report.ok ? t('drill on {0}: passed', host) : report.run.cancelled ? t('drill on {0}: cancelled{1}', host, bounds) : t('drill on {0}: failed{1}', host, bounds), report.ok);
  await ui.show(`failure-drill-${host}-report.md`, renderDrillReport(report), 'markdown', { preview: true });
  if (!report.run.restore.ok) await ui.message('error', t('{0} was NOT restored: {1}. See the report for the command to run by hand.', host, report.run.restore.error ?? ''), { modal: true });
  else if (!report.ok) await ui.message('warning', report.run.cancelled ? t('Failure drill on {0}: cancelled — see the report.', host) : t('Failure drill on {0}: {1} measurement(s) outside their bounds — see the report.', host, failed.length));
  else await ui.message('info', t('Failure drill on {0} passed — see the report.', host));
  return { kind: 'ran', report };
}
