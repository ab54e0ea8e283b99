import * as vscode from 'vscode';
import { DEFAULT_DRAIN_OPTIONS } from '../core/drain/classify';
import { DEFAULT_READY_TIMEOUT_SECONDS, planBlockers, planDrain, renderDrainPlan, runDrain, type DrainRunOptions } from '../core/drain/drainNode';
import { maintenanceHost, sshMaintenance } from '../core/drain/maintenance';
import { RunOutput, type HostStreams } from '../core/ssh/runLog';
import { resolveNodeTarget } from '../editor/nodeTarget';
import { RunTerminal } from '../editor/runTerminal';
import { askSudoPassword } from '../editor/sudoPassword';
import { CommandIds } from '../editor/commandIds';
import { defineCommand, type CommandContext } from './context';

const LAST_COMMAND = 'kubeadm.drain.lastMaintenanceCommand';

type Option = 'ignoreDaemonSets' | 'deleteEmptyDirData' | 'force' | 'maintenance' | 'uncordon';

/**
 * Drain Node…: kubectl drain's rules (src/core/drain) from the editor. Pick the overrides (DaemonSets, emptyDir
 * data — never on by default —, force), optionally a maintenance command for the node's host and an uncordon;
 * the plan (evict / keep / refuse per pod, the control-plane guard and the leader leases the node holds, what
 * runs on which host) opens as a document beside a modal that asks to go ahead. A plan with refused pods or a
 * guard refusal stops there: nothing is cordoned. The run shows per-pod progress in a run terminal and a
 * cancellable notification; cancel stops the evictions (and the remote command) and leaves the node cordoned.
 */
export const drainNode = defineCommand({ trust: 'drain a node', cluster: 'drain a node' }, (ctx) => {
  return async (arg?: unknown): Promise<void> => {
    const target = await resolveNodeTarget(ctx, arg, 'drain a node');
    if (!target) return;
    const { cluster, node, conn } = target;

    const picks = await vscode.window.showQuickPick(
      [
        { id: 'ignoreDaemonSets' as Option, label: 'Ignore DaemonSet-managed pods', description: '--ignore-daemonsets', detail: 'They stay on the node (their DaemonSet would put them back at once). Without it a DaemonSet pod refuses the drain.', picked: true },
        { id: 'deleteEmptyDirData' as Option, label: 'Delete emptyDir data', description: '--delete-emptydir-data', detail: 'Pods with emptyDir volumes are evicted and the data in those volumes is LOST.', picked: false },
        { id: 'force' as Option, label: 'Force: evict pods without a controller', description: '--force', detail: 'Bare pods are deleted for good: nothing recreates them.', picked: false },
        { id: 'maintenance' as Option, label: 'Then run a maintenance command on the host…', description: '--then', detail: "Over SSH on the node's inventory host after the drain (e.g. a kernel update and a reboot), then wait until the node is Ready again.", picked: false },
        { id: 'uncordon' as Option, label: 'Uncordon when done', description: '--uncordon', detail: 'Make the node schedulable again at the end.', picked: false },
      ],
      { title: `Drain ${node}`, canPickMany: true, placeHolder: 'Options (the plan is shown before anything happens)', ignoreFocusOut: true },
    );
    if (!picks) return;
    const has = (o: Option) => picks.some((p) => p.id === o);
    const options: DrainRunOptions = {
      ...DEFAULT_DRAIN_OPTIONS,
      ignoreDaemonSets: has('ignoreDaemonSets'),
      deleteEmptyDirData: has('deleteEmptyDirData'),
      force: has('force'),
      gracePeriodSeconds: -1,
      dryRun: 'none',
      readyTimeoutSeconds: DEFAULT_READY_TIMEOUT_SECONDS,
      uncordonAfter: has('uncordon'),
    };

    const loaded = await ctx.inventory.get();
    let pool: ReturnType<CommandContext['sessions']['open']> | undefined;
    try {
      if (has('maintenance')) {
        const inv = loaded?.inventory;
        if (!inv || !loaded) {
          void vscode.window.showErrorMessage('A maintenance command runs on the node\'s inventory host: open a valid inventory.yaml first.');
          return;
        }
        let host: string;
        try {
          host = maintenanceHost(inv, node).name;
        } catch (e) {
          void vscode.window.showErrorMessage((e as Error).message);
          return;
        }
        const command = await vscode.window.showInputBox({
          title: `Maintenance command on ${host}`,
          prompt: `Runs as root over SSH after the drain, as one argument to sh -c (shown in the plan first). A command that reboots makes the wait ask for a new boot ID.`,
          value: ctx.extension.workspaceState.get<string>(LAST_COMMAND) ?? 'apt-get update && apt-get -y upgrade && reboot',
          ignoreFocusOut: true,
          validateInput: (v) => (v.trim() ? undefined : 'A shell command'),
        });
        if (!command) return;
        await ctx.extension.workspaceState.update(LAST_COMMAND, command);
        pool = ctx.sessions.open(inv, vscode.workspace.getWorkspaceFolder(loaded.uri)?.uri);
        const user = pool.loginUser(host);
        const sudo = await askSudoPassword(user === 'root' ? new Map() : new Map([[host, user]]));
        if (!sudo) return;
        const p = pool;
        options.maintenance = sshMaintenance(p, inv, node, command, { timeoutMs: 30 * 60_000, loginUser: (h) => p.loginUser(h), sudoPassword: sudo.password });
      }

      let plan;
      try {
        plan = await vscode.window.withProgress({ location: vscode.ProgressLocation.Notification, title: `Planning the drain of ${node}…` }, () => planDrain(cluster, node, options));
      } catch (e) {
        void vscode.window.showErrorMessage(`Cannot plan the drain of ${node}: ${(e as Error).message}`);
        return;
      }
      await ctx.reports.show(`drain-${node}-plan.txt`, renderDrainPlan(plan));
      const blockers = planBlockers(plan);
      if (blockers.length) {
        const what = plan.guard && !plan.guard.ok ? 'The control-plane guard refuses it' : 'Pods are refused';
        void vscode.window.showErrorMessage(`Drain of ${node} not started — ${what}: ${blockers.join(' ')} Nothing was changed.`, { modal: true });
        return;
      }
      const c = plan.classification;
      const lost = c.toEvict.filter((p) => p.hasEmptyDir).map((p) => `${p.namespace}/${p.name}`);
      const kept = c.pods.length - c.toEvict.length;
      const answer = await vscode.window.showWarningMessage(
        `Drain ${node}: evict ${c.toEvict.length} pod(s)?`,
        {
          modal: true,
          detail: [
            `Cluster ${conn.context}. ${kept} pod(s) stay on the node. The plan is open beside this dialog.`,
            lost.length ? `emptyDir data of ${lost.join(', ')} is deleted for good.` : '',
            options.maintenance ? `Then on ${options.maintenance.host}: ${options.maintenance.display}, and wait until ${node} is Ready again.` : '',
            options.uncordonAfter ? `Finally ${node} is uncordoned.` : `${node} stays cordoned afterwards.`,
            plan.guard?.heldLeases.length ? `${node} holds the leader leases ${plan.guard.heldLeases.map((l) => l.name).join(', ')}.` : '',
          ].filter(Boolean).join('\n'),
        },
        lost.length ? 'Drain and Delete emptyDir Data' : 'Drain',
      );
      if (!answer) return;

      const output = new RunOutput(options.maintenance?.secrets ?? []);
      const abort = new AbortController();
      const terminal = new RunTerminal(`Kubeadm: drain ${node}`, output, () => abort.abort());
      terminal.show(true);
      const hostStreams = new Map<string, HostStreams>();
      const result = await vscode.window.withProgress({ location: vscode.ProgressLocation.Notification, title: `Draining ${node}`, cancellable: true }, async (progress, token) => {
        token.onCancellationRequested(() => abort.abort());
        let reported = 0;
        return runDrain(cluster, node, {
          ...options,
          signal: abort.signal,
          onLine: (l) => {
            if (l.host) {
              let h = hostStreams.get(l.host);
              if (!h) hostStreams.set(l.host, (h = output.forCommand(l.host)));
              (l.stream === 'stdout' ? h.onStdout : h.onStderr)(l.text);
            } else output.message(l.text, undefined, l.text.startsWith('error:') ? 'error' : 'info');
          },
          onProgress: (p) => {
            const increment = p.total && p.done !== undefined && p.done > reported ? ((p.done - reported) * 100) / p.total : undefined;
            if (p.done !== undefined) reported = p.done;
            progress.report({ message: p.total ? `${p.done}/${p.total} pods · ${p.message}` : p.message, ...(increment ? { increment } : {}) });
          },
        });
      });
      hostStreams.forEach((h) => h.end());
      const took = `${Math.round(result.totalMs / 1000)} s`;
      if (result.ok) {
        terminal.finish(`node/${node} drained in ${took}`, true);
        void vscode.window.showInformationMessage(`node/${node} drained: ${result.evicted.length} pod(s) evicted, ${result.kept.length} kept (${took}).${options.uncordonAfter ? ' Uncordoned.' : ''}`);
        return;
      }
      terminal.finish(`${result.cancelled ? 'cancelled' : 'failed'} at ${result.failedStep}: ${result.error ?? ''}`, false);
      const uncordon = 'Uncordon Node';
      const choice = await vscode.window.showErrorMessage(`Drain of ${node} ${result.cancelled ? 'cancelled' : 'failed'} at step "${result.failedStep}": ${result.error ?? ''}`, ...(result.failedStep !== 'guard' && result.failedStep !== 'node' ? [uncordon] : []));
      if (choice === uncordon) await vscode.commands.executeCommand(CommandIds.uncordonNode, node);
    } finally {
      await pool?.close();
    }
  };
});
