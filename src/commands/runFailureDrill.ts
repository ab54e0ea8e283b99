import * as vscode from 'vscode';
import { loadKubeAdapter } from '../adapters/kube/load';
import type { KubeConnection } from '../adapters/kube/index';
import type { HostSession } from '../editor/hostSessions';
import type { DrillRequest } from '../core/drill/plan';
import { describeError } from '../core/live/errors';
import { drillWorkflow } from '../engine/workflows/drillWorkflow';
import { setting } from '../editor/settings';
import { editorUi } from '../editor/vscodeUi';
import type { InventoryNode } from '../editor/treeNodes';
import { CommandIds } from '../editor/commandIds';
import { defineCommand, refuseWithoutCluster } from './context';
import { editorPreflight, refuseUnlessPasses } from './preflightGate';
import type { PreflightReport } from '../core/preflight/model';

/**
 * Run Failure Drill…: the seed's fault-tolerance chapter on the real cluster. Pick a control-plane node
 * or a worker (from its Inventory row, or a list), how it fails — stop Kubernetes on it over SSH, or
 * power it off with the hypervisor commands of the settings kubeadmWorkbench.drill.powerOffCommand /
 * powerOnCommand (machine-scoped: a workspace cannot set what runs on this machine) — and whether to
 * wait for the pods' evictions. The rest — the plan beside a modal, the guard's refusal, the run in a
 * run terminal with a cancellable notification (a cancel stops the observation, never the restore), the
 * report — is the drill workflow's (engine/workflows/drillWorkflow.ts), the same as the CLI's `drill`. Before the
 * first question: the cluster connection (else the refusal offers the context picker, the bring-up, the setting) and
 * the preflight of every host, whose pool the drill then uses.
 */
export const runFailureDrill = defineCommand({ trust: 'run a failure drill on the cluster', inventory: 'A failure drill' }, (ctx) => {
  return async (arg?: InventoryNode | string): Promise<void> => {
    const { inv, folder } = ctx;
    const ui = editorUi(ctx.reports);
    const conn = await ctx.connection.ensure();
    if (!conn) {
      // Connected from the refusal's picker: the drill starts again, now with its connection.
      if (await refuseWithoutCluster(ctx, 'run the drill')) await vscode.commands.executeCommand(CommandIds.runFailureDrill, arg);
      return;
    }
    const pool = ctx.sessions.open(inv, folder);
    try {
      // The cluster must answer; a host that does not is a measurement the drill cannot take (its report says so),
      // except the node that a `stop` drill stops over SSH: judged once the fault is chosen.
      const all = inv.hosts.map((h) => h.name);
      const pre = await editorPreflight(ctx, ui, pool, inv, { operation: 'Run Failure Drill', hosts: all, cluster: true, tolerate: { hosts: all } });
      if (!pre.ok) return;
      await drill(ui, pool, conn, arg, pre.report);
    } finally {
      await pool.close();
    }
  };

  async function drill(ui: ReturnType<typeof editorUi>, pool: HostSession, conn: KubeConnection, arg: InventoryNode | string | undefined, checked: PreflightReport): Promise<void> {
    const { loaded, inv } = ctx;
    const candidates = inv.hosts.filter((h) => h.roles.includes('control-plane') || h.roles.includes('worker'));
    let hostName = typeof arg === 'string' ? arg : arg?.kind === 'host' ? arg.host.name : undefined;
    hostName ??= await ui.pick('Run Failure Drill', candidates.map((h) => ({ value: h.name, label: h.name, description: `${h.address} · ${h.roles.join(', ')}` })), 'The node to fail (it is restored afterwards)');
    if (!hostName) return;
    const host = candidates.find((h) => h.name === hostName);
    if (!host) {
      void ui.message('error', `${hostName} is not a control-plane node or worker of ${inv.cluster.name}: a drill fails Kubernetes nodes.`);
      return;
    }

    const powerOff = setting('drillPowerOffCommand').trim();
    const powerOn = setting('drillPowerOnCommand').trim();
    const fault = await ui.pick(
      `Failure drill on ${host.name}`,
      [
        { value: 'stop' as const, label: 'Stop Kubernetes on the node', description: 'over SSH', detail: 'kubelet stopped, every container killed with SIGKILL; the host stays up. Restore: start containerd and kubelet.' },
        {
          value: 'power-off' as const,
          label: 'Power the node off',
          description: powerOff && powerOn ? 'hypervisor command' : 'needs the power commands in the settings',
          detail: powerOff && powerOn ? `${powerOff.replace(/\{host\}/g, host.name)} — then ${powerOn.replace(/\{host\}/g, host.name)}` : 'Set kubeadmWorkbench.drill.powerOffCommand and powerOnCommand (e.g. govc vm.power -off {host}).',
        },
      ],
      'How the node fails',
    );
    if (!fault) return;
    if (fault === 'stop' && !(await refuseUnlessPasses(ui, checked, `Stopping Kubernetes on ${host.name}`, { hosts: inv.hosts.map((h) => h.name).filter((h) => h !== host.name) }))) return;
    if (fault === 'power-off' && (!powerOff || !powerOn)) {
      const open = 'Open Settings';
      if ((await ui.message('error', 'Powering a node off needs both kubeadmWorkbench.drill.powerOffCommand and kubeadmWorkbench.drill.powerOnCommand (your hypervisor\'s commands, with {host} or {address}).', { actions: [open] })) === open) {
        await vscode.commands.executeCommand('workbench.action.openSettings', 'kubeadmWorkbench.drill');
      }
      return;
    }
    const evictionWaitSeconds = await ui.pick(
      `Failure drill on ${host.name}`,
      [
        { value: 0, label: 'Do not wait for evictions', detail: 'The report says when the pods on the node would be evicted (their tolerationSeconds, 300 s by default).' },
        { value: 120, label: 'Wait up to 2 minutes after NotReady for evictions', detail: 'For pods with short tolerationSeconds for node.kubernetes.io/unreachable.' },
        { value: 360, label: 'Wait up to 6 minutes after NotReady for evictions', detail: 'Enough for the default tolerationSeconds of 300 s.' },
      ],
      'Taint-based evictions of the pods on the node',
    );
    if (evictionWaitSeconds === undefined) return;
    const req: DrillRequest = { host: host.name, kind: fault, evictionWaitSeconds, ...(fault === 'power-off' ? { powerOffCommand: powerOff, powerOnCommand: powerOn } : {}) };
    const folder = vscode.workspace.getWorkspaceFolder(loaded.uri)?.uri;
    let probe: KubeConnection | undefined;
    try {
      // The availability probe opens a new connection per request (as each kubectl call does) to the same server.
      probe = await loadKubeAdapter().connect({ kubeconfig: setting('kubeconfig'), context: conn.context, keepAlive: false });
      await drillWorkflow(ui, {
        inventory: inv, ssh: pool, api: conn.transport, probe: probe.transport, loginUser: (h) => pool.loginUser(h), request: req,
        ...(folder ? { cwd: folder.fsPath } : {}),
      });
    } catch (e) {
      // A cancel ends through the command's boundary (quietly, one log line), not as the drill's failure.
      if ((e as { name?: string } | undefined)?.name === 'AbortError') throw e;
      void ui.message('error', `Failure drill on ${host.name}: ${describeError(e)}`);
    } finally {
      probe?.dispose();
    }
  }
});
