import * as vscode from 'vscode';
import { loadKubeAdapter } from '../adapters/kube/load';
import type { KubeConnection } from '../adapters/kube/index';
import type { SshPool } from '../adapters/ssh/pool';
import { renderDrillPlan, type DrillRequest } from '../core/drill/plan';
import { renderDrillReport } from '../core/drill/report';
import { describeError } from '../core/live/errors';
import { RunOutput } from '../core/ssh/runLog';
import { sudoUnlessRoot } from '../engine/become';
import { prepareDrill, runDrill, type DrillDeps } from '../engine/drill';
import { RunTerminal } from '../editor/runTerminal';
import { askSudoPassword } from '../editor/sudoPassword';
import type { InventoryNode } from '../editor/treeNodes';
import { defineCommand } from './context';

/**
 * Run Failure Drill…: the seed's fault-tolerance chapter on the real cluster. Pick a control-plane node
 * or a worker (from its Inventory row, or a list), how it fails — stop Kubernetes on it over SSH, or
 * power it off with the hypervisor commands of the settings kubeadmWorkbench.drill.powerOffCommand /
 * powerOnCommand (machine-scoped: a workspace cannot set what runs on this machine) — and whether to
 * wait for the pods' evictions. The plan (the exact commands, the quorum arithmetic, the expected
 * numbers from this cluster's settings) opens beside a modal that asks to go ahead; a drill the
 * control-plane guard refuses stops there. The run narrates in a run terminal with a cancellable
 * notification — a cancel stops the observation, never the restore — and ends with the report.
 */
export const runFailureDrill = defineCommand({ trust: 'run a failure drill on the cluster', inventory: 'A failure drill' }, (ctx) => {
  return async (arg?: InventoryNode | string): Promise<void> => {
    const { loaded, inv } = ctx;
    const candidates = inv.hosts.filter((h) => h.roles.includes('control-plane') || h.roles.includes('worker'));
    let hostName = typeof arg === 'string' ? arg : arg?.kind === 'host' ? arg.host.name : undefined;
    if (!hostName) {
      const pick = await vscode.window.showQuickPick(
        candidates.map((h) => ({ label: h.name, description: `${h.address} · ${h.roles.join(', ')}` })),
        { title: 'Run Failure Drill', placeHolder: 'The node to fail (it is restored afterwards)' },
      );
      if (!pick) return;
      hostName = pick.label;
    }
    const host = candidates.find((h) => h.name === hostName);
    if (!host) {
      void vscode.window.showErrorMessage(`${hostName} is not a control-plane node or worker of ${inv.cluster.name}: a drill fails Kubernetes nodes.`);
      return;
    }

    const settings = vscode.workspace.getConfiguration('kubeadmWorkbench');
    const powerOff = settings.get<string>('drill.powerOffCommand')?.trim() ?? '';
    const powerOn = settings.get<string>('drill.powerOnCommand')?.trim() ?? '';
    const kindPick = await vscode.window.showQuickPick(
      [
        { fault: 'stop' as const, label: 'Stop Kubernetes on the node', description: 'over SSH', detail: 'kubelet stopped, every container killed with SIGKILL; the host stays up. Restore: start containerd and kubelet.' },
        {
          fault: 'power-off' as const,
          label: 'Power the node off',
          description: powerOff && powerOn ? 'hypervisor command' : 'needs the power commands in the settings',
          detail: powerOff && powerOn ? `${powerOff.replace(/\{host\}/g, host.name)} — then ${powerOn.replace(/\{host\}/g, host.name)}` : 'Set kubeadmWorkbench.drill.powerOffCommand and powerOnCommand (e.g. govc vm.power -off {host}).',
        },
      ],
      { title: `Failure drill on ${host.name}`, placeHolder: 'How the node fails' },
    );
    if (!kindPick) return;
    if (kindPick.fault === 'power-off' && (!powerOff || !powerOn)) {
      const open = 'Open Settings';
      if ((await vscode.window.showErrorMessage('Powering a node off needs both kubeadmWorkbench.drill.powerOffCommand and kubeadmWorkbench.drill.powerOnCommand (your hypervisor\'s commands, with {host} or {address}).', open)) === open) {
        await vscode.commands.executeCommand('workbench.action.openSettings', 'kubeadmWorkbench.drill');
      }
      return;
    }
    const waitPick = await vscode.window.showQuickPick(
      [
        { seconds: 0, label: 'Do not wait for evictions', detail: 'The report says when the pods on the node would be evicted (their tolerationSeconds, 300 s by default).' },
        { seconds: 120, label: 'Wait up to 2 minutes after NotReady for evictions', detail: 'For pods with short tolerationSeconds for node.kubernetes.io/unreachable.' },
        { seconds: 360, label: 'Wait up to 6 minutes after NotReady for evictions', detail: 'Enough for the default tolerationSeconds of 300 s.' },
      ],
      { title: `Failure drill on ${host.name}`, placeHolder: 'Taint-based evictions of the pods on the node' },
    );
    if (!waitPick) return;
    const req: DrillRequest = { host: host.name, kind: kindPick.fault, evictionWaitSeconds: waitPick.seconds, ...(kindPick.fault === 'power-off' ? { powerOffCommand: powerOff, powerOnCommand: powerOn } : {}) };

    const conn = await ctx.connection.ensure();
    if (!conn) {
      const why = ctx.connection.state.kind === 'error' ? ctx.connection.state.message : 'pick a context with "Kubeadm: Select Cluster Context"';
      void vscode.window.showErrorMessage(`Cannot run the drill: no cluster connection (${why}).`);
      return;
    }
    const folder = vscode.workspace.getWorkspaceFolder(loaded.uri)?.uri;
    let probe: KubeConnection | undefined;
    let pool: SshPool | undefined;
    const output = new RunOutput();
    const abort = new AbortController();
    let terminal: RunTerminal | undefined;
    try {
      // The availability probe opens a new connection per request (as each kubectl call does) to the same server.
      probe = await loadKubeAdapter().connect({ kubeconfig: settings.get<string>('kubeconfig') ?? '', context: conn.context, keepAlive: false });
      pool = ctx.sessions.open(inv, folder);
      const p = pool;
      const loginUser = (h: string): string => {
        try {
          return p.loginUser(h);
        } catch {
          return 'root'; // a configuration error: the first command on that host reports it
        }
      };
      const nonRoot = new Map(inv.hosts.map((h) => [h.name, loginUser(h.name)] as const).filter(([, u]) => u !== 'root'));
      const sudo = await askSudoPassword(nonRoot);
      if (!sudo) return;
      if (sudo.password) output.addSecrets([sudo.password]);
      const deps: DrillDeps = {
        inventory: inv,
        ssh: p,
        api: conn.transport,
        probe: probe.transport,
        become: sudoUnlessRoot((h) => p.loginUser(h), sudo.password),
        output,
        ...(folder ? { cwd: folder.fsPath } : {}),
      };
      let plan;
      try {
        ({ plan } = await vscode.window.withProgress({ location: vscode.ProgressLocation.Notification, title: `Reading ${inv.cluster.name} for the drill on ${host.name}…` }, () => prepareDrill(deps, req)));
      } catch (e) {
        void vscode.window.showErrorMessage(`Cannot plan the drill on ${host.name}: ${describeError(e)}`);
        return;
      }
      await ctx.reports.show(`failure-drill-${host.name}-plan.md`, renderDrillPlan(plan), 'markdown');
      if (plan.refusals.length) {
        void vscode.window.showErrorMessage(`Failure drill on ${host.name} refused: ${plan.refusals.join(' ')} Nothing was done.`, { modal: true });
        return;
      }
      const what = plan.kind === 'power-off' ? `Power off ${host.name}` : `Stop Kubernetes on ${host.name}`;
      const answer = await vscode.window.showWarningMessage(
        `${what} and measure how ${inv.cluster.name} copes?`,
        {
          modal: true,
          detail: [
            `Fault: ${plan.fault?.where === 'local' ? `on this machine: ${plan.fault.command.display}` : plan.fault ? `over SSH: ${plan.fault.command.display}` : ''}`,
            plan.etcd ? plan.etcd.quorum : '',
            `The node is restored afterwards (${plan.restore?.where === 'local' ? plan.restore.command.display : 'start containerd and kubelet'}) — also when the drill fails or you cancel. The plan is open beside this dialog.`,
          ].filter(Boolean).join('\n'),
        },
        'Run Drill',
      );
      if (answer !== 'Run Drill') return;
      terminal = new RunTerminal(`Kubeadm: drill ${host.name}`, output, () => abort.abort());
      terminal.show(true);
      const report = await vscode.window.withProgress({ location: vscode.ProgressLocation.Notification, title: `Failure drill on ${host.name}`, cancellable: true }, async (progress, token) => {
        token.onCancellationRequested(() => {
          output.message(`cancelling: the observation stops; ${host.name} is restored first…`, undefined, 'error');
          abort.abort();
        });
        return runDrill(deps, plan, { signal: abort.signal, onProgress: (x) => progress.report({ message: x.message }) });
      });
      const failed = report.measurements.filter((m) => m.verdict === 'fail').map((m) => m.title);
      terminal.finish(report.ok ? `drill on ${host.name}: passed` : `drill on ${host.name}: ${report.run.cancelled ? 'cancelled' : 'failed'}${failed.length ? ` (${failed.join('; ')})` : ''}`, report.ok);
      await ctx.reports.show(`failure-drill-${host.name}-report.md`, renderDrillReport(report), 'markdown');
      if (!report.run.restore.ok) void vscode.window.showErrorMessage(`${host.name} was NOT restored: ${report.run.restore.error ?? ''}. See the report for the command to run by hand.`, { modal: true });
      else if (!report.ok) void vscode.window.showWarningMessage(`Failure drill on ${host.name}: ${report.run.cancelled ? 'cancelled' : `${failed.length} measurement(s) outside their bounds`} — see the report.`);
      else void vscode.window.showInformationMessage(`Failure drill on ${host.name} passed — see the report.`);
    } catch (e) {
      terminal?.finish(`drill on ${host.name}: error ${describeError(e)}`, false);
      void vscode.window.showErrorMessage(`Failure drill on ${host.name}: ${describeError(e)}`);
    } finally {
      probe?.dispose();
      await pool?.close();
    }
  };
});
