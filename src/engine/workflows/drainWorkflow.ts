/**
 * Drain, cordon and uncordon, written once for the editor's commands and the CLI's verbs (kubectl's rules in
 * core/drain): the sudo password for a maintenance command's host, the plan shown, the refusals, the question,
 * the run with per-pod progress and a cancel that stops the evictions and leaves the node cordoned, and the
 * outcome. The front-ends choose the node and the options (the editor in a list, the CLI by kubectl's flags).
 */
import { t } from '../../core/l10n';
import type { SshTransport } from '../../core/ssh/transport';
import type { Inventory } from '../../core/inventory/types';
import { planBlockers, planDrain, renderDrainPlan, runDrain, setCordon, type DrainCluster, type DrainLine, type DrainPlan, type DrainResult, type DrainRunOptions, type DryRun } from '../../core/drain/drainNode';
import { maintenanceHost, sshMaintenance } from '../../core/drain/maintenance';
import { describeError } from '../../core/live/errors';
import { RunOutput, type HostStreams } from '../../core/ssh/runLog';
import { askSudoPassword } from './become';
import type { Ui } from './ui';

export interface DrainWorkflowInput {
  cluster: DrainCluster;
  node: string;
  /** The kubeconfig context, named in the question. */
  context: string;
  options: Omit<DrainRunOptions, 'maintenance' | 'signal' | 'onLine' | 'onProgress'>;
  /** A command to run on the node's inventory host over SSH after the drain. */
  maintenance?: { inventory: Inventory; ssh: SshTransport; loginUser: (host: string) => string; command: string; timeoutMs: number };
  /**
   * A plan with refused pods: `stop` before anything changes (the editor), or `like-kubectl` — ask, then cordon and
   * stop at the refusal as `kubectl drain` does (the CLI, which keeps kubectl's semantics).
   */
  refusedPods: 'stop' | 'like-kubectl';
}

export type DrainOutcome =
  | { kind: 'cancelled' | 'not-confirmed' }
  | { kind: 'invalid' | 'failed-to-plan' | 'refused'; message: string }
  | { kind: 'ran'; result: DrainResult };

export async function drainWorkflow(ui: Ui, input: DrainWorkflowInput): Promise<DrainOutcome> {
  const { cluster, node } = input;
  const options: DrainRunOptions = { ...input.options };
  const m = input.maintenance;
  if (m) {
    let host: string;
    try {
      host = maintenanceHost(m.inventory, node).name;
    } catch (e) {
      const message = describeError(e);
      await ui.message('error', message);
      return { kind: 'invalid', message };
    }
    const user = m.loginUser(host);
    const sudo = await askSudoPassword(ui, user === 'root' ? new Map() : new Map([[host, user]]));
    if (sudo === 'cancelled') return { kind: 'cancelled' };
    options.maintenance = sshMaintenance(m.ssh, m.inventory, node, m.command, { timeoutMs: m.timeoutMs, loginUser: m.loginUser, sudoPassword: sudo.password });
  }

  let plan: DrainPlan;
  try {
    plan = await ui.progress({ title: t('Planning the drain of {0}…', node) }, () => planDrain(cluster, node, options));
  } catch (e) {
    const message = t('cannot plan the drain of node "{0}": {1}', node, describeError(e));
    await ui.message('error', message);
    return { kind: 'failed-to-plan', message };
  }
  await ui.show(`drain-${node}-plan.txt`, renderDrainPlan(plan));
  if (plan.guard && !plan.guard.ok) {
    const message = t('refusing to drain control-plane node "{0}": {1}\nnothing was done.', node, plan.guard.reasons.join(' '));
    await ui.message('error', message, { modal: true });
    return { kind: 'refused', message };
  }
  const blockers = planBlockers(plan);
  if (blockers.length && input.refusedPods === 'stop') {
    const message = t('Drain of {0} not started — Pods are refused: {1} Nothing was changed.', node, blockers.join(' '));
    await ui.message('error', message, { modal: true });
    return { kind: 'refused', message };
  }
  if (options.dryRun === 'none') {
    const c = plan.classification;
    const lost = c.toEvict.filter((p) => p.hasEmptyDir).map((p) => `${p.namespace}/${p.name}`);
    const answer = await ui.confirm({
      message: blockers.length ? t('Pods are refused: the drain would cordon {0} and stop (as kubectl drain does). Go ahead?', node) : t('Drain {0}: evict {1} pod(s)?', node, c.toEvict.length),
      detail: [
        t('Cluster {0}. {1} pod(s) stay on the node. The plan is open beside this dialog.', input.context, c.pods.length - c.toEvict.length),
        lost.length ? t('emptyDir data of {0} is deleted for good.', lost.join(', ')) : '',
        options.maintenance ? t('Then on {0}: {1}, and wait until {2} is Ready again.', options.maintenance.host, options.maintenance.display, node) : '',
        options.uncordonAfter ? t('Finally {0} is uncordoned.', node) : t('{0} stays cordoned afterwards.', node),
        plan.guard?.heldLeases.length ? t('{0} holds the leader leases {1}.', node, plan.guard.heldLeases.map((l) => l.name).join(', ')) : '',
      ].filter(Boolean).join('\n'),
      actions: [lost.length ? t('Drain and Delete emptyDir Data') : t('Drain')],
    });
    if (!answer) return { kind: 'not-confirmed' };
  }

  const output = new RunOutput(options.maintenance?.secrets ?? []);
  const abort = new AbortController();
  const cancel = (): void => {
    if (!abort.signal.aborted) view.plain(t('cancelling the drain of node/{0}…', node), 'stderr');
    abort.abort();
  };
  const view = ui.openRun(t('Kubeadm: drain {0}', node), output, cancel);
  const hostStreams = new Map<string, HostStreams>();
  let reported = 0;
  const result = await ui.progress({ title: t('Draining {0}', node), cancellable: true, onCancel: cancel }, (progress, signal) => {
    signal.addEventListener('abort', () => abort.abort());
    return runDrain(cluster, node, {
      ...options,
      signal: abort.signal,
      onLine: (l: DrainLine) => {
        if (!l.host) return view.plain(l.text, l.stream);
        let h = hostStreams.get(l.host);
        if (!h) hostStreams.set(l.host, (h = output.forCommand(l.host)));
        (l.stream === 'stdout' ? h.onStdout : h.onStderr)(l.text);
      },
      onProgress: (p) => {
        const increment = p.total && p.done !== undefined && p.done > reported ? ((p.done - reported) * 100) / p.total : undefined;
        if (p.done !== undefined) reported = p.done;
        progress(p.total ? `${p.done}/${p.total} pods · ${p.message}` : p.message, increment);
      },
    });
  });
  hostStreams.forEach((h) => h.end());
  const took = t('{0} s', Math.round(result.totalMs / 1000));
  if (result.ok) {
    view.finish(t('node/{0} drained in {1}', node, took), true);
    if (options.dryRun === 'none') await ui.message('info', `${t('node/{0} drained: {1} pod(s) evicted, {2} kept ({3}).', node, result.evicted.length, result.kept.length, took)}${options.uncordonAfter ? t(' Uncordoned.') : ''}`);
    return { kind: 'ran', result };
  }
  view.finish(result.cancelled ? t('cancelled at {0}: {1}', result.failedStep, result.error ?? '') : t('failed at {0}: {1}', result.failedStep, result.error ?? ''), false);
  const uncordon = t('Uncordon Node');
  const pods = result.failedPods.length ? t(' (pods: {0})', result.failedPods.map((p) => p.pod).join(', ')) : '';
  const failure = result.cancelled ? t('Drain cancelled at step "{0}" on node {1}{2}: {3}', result.failedStep, node, pods, result.error ?? '') : t('Drain FAILED at step "{0}" on node {1}{2}: {3}', result.failedStep, node, pods, result.error ?? '');
  const choice = await ui.message('error', failure, {
    actions: result.failedStep !== 'guard' && result.failedStep !== 'node' ? [uncordon] : [],
  });
  if (choice === uncordon) await cordonWorkflow(ui, { cluster, node, cordon: false, context: input.context, server: '', dryRun: 'none', confirmed: true });
  return { kind: 'ran', result };
}

export interface CordonWorkflowInput {
  cluster: DrainCluster;
  node: string;
  cordon: boolean;
  context: string;
  server: string;
  dryRun: DryRun;
  /** The user asked for it already (the Uncordon button after a failed drain). */
  confirmed?: boolean;
}

export type CordonOutcome = { kind: 'not-confirmed' | 'unchanged' | 'done' } | { kind: 'failed'; message: string };

/** kubectl cordon/uncordon: says what changes and asks, unless there is nothing to change or it is a dry run. */
export async function cordonWorkflow(ui: Ui, input: CordonWorkflowInput): Promise<CordonOutcome> {
  const { cluster, node, cordon } = input;
  const verb = cordon ? 'cordon' : 'uncordon';
  try {
    const info = await cluster.getNode(node);
    const lines: DrainLine[] = [];
    if (info.unschedulable === cordon && input.dryRun === 'none') {
      await ui.message('info', `node/${node} already ${verb}ed`);
      return { kind: 'unchanged' };
    }
    if (input.dryRun === 'none' && !input.confirmed) {
      const action = cordon ? t('Cordon') : t('Uncordon');
      const answer = await ui.confirm({
        message: cordon ? t('Cordon {0}?', node) : t('Uncordon {0}?', node),
        detail: `${cordon ? t('Sets spec.unschedulable: no new pods are scheduled on the node; the pods running there stay.') : t('Clears spec.unschedulable: the scheduler may place pods on the node again.')} ${t('Cluster: {0}{1}.', input.context, input.server ? ` (${input.server})` : '')}`,
        actions: [action],
      });
      if (answer !== action) return { kind: 'not-confirmed' };
    }
    await setCordon(cluster, node, cordon, input.dryRun, (l) => lines.push(l), info);
    await ui.message('info', lines.map((l) => l.text).join(' '));
    return { kind: 'done' };
  } catch (e) {
    const message = `error: unable to ${verb} node "${node}": ${describeError(e)}`;
    await ui.message('error', message);
    return { kind: 'failed', message };
  }
}
