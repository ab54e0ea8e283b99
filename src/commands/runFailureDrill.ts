import * as vscode from 'vscode';
import { loadKubeAdapter } from '../adapters/kube/load';
import type { KubeConnection } from '../adapters/kube/index';
import type { HostSession } from '../editor/hostSessions';
import { faultActsOverSsh, type DrillRequest } from '../core/drill/plan';
import { describeError } from '../core/live/errors';
import { drillWorkflow } from '../engine/workflows/drillWorkflow';
import { setting } from '../editor/settings';
import { editorUi } from '../editor/vscodeUi';
import type { InventoryNode } from '../editor/treeNodes';
import { CommandIds } from '../editor/commandIds';
import { defineCommand, refuseWithoutCluster } from './context';
import { editorPreflight, refuseUnlessPasses } from './preflightGate';
import type { PreflightReport } from '../core/preflight/model';
import { isCancel } from '../core/errors';
import { isKubernetesHost } from '../core/inventory/types';

/**
 * Run Failure Drill…: the seed's fault-tolerance chapter on the real cluster. Pick a control-plane node,
 * a worker or a balancer (from its Inventory row — a balancer's live row under the VIP too — or a list), how it
 * fails — for a node: stop Kubernetes on it over SSH, power it off with the hypervisor commands of the settings
 * kubeadmWorkbench.drill.powerOffCommand / powerOnCommand (machine-scoped: a workspace cannot set what runs on this
 * machine), or cut its network (drill.cutCommand / healCommand, else nftables over SSH), and whether to wait for the
 * pods' evictions; for a balancer: HAProxy stopped on the VIP holder, keepalived stopped, power-off, or VRRP
 * blocked. The rest — the plan beside a modal, the guard's refusal, the run in a run terminal with a cancellable notification (a cancel stops the observation, never the restore), the
 * report — is the drill workflow's (engine/workflows/drillWorkflow.ts), the same as the CLI's `drill`. Before the
 * first question: the cluster connection (else the refusal offers the context picker, the bring-up, the setting) and
 * the preflight of every host, whose pool the drill then uses.
 */
export const runFailureDrill = defineCommand({ trust: vscode.l10n.t('run a failure drill on the cluster'), inventory: vscode.l10n.t('A failure drill') }, (ctx) => {
  return async (arg?: InventoryNode | string): Promise<void> => {
    const { inv, folder } = ctx;
    const ui = editorUi(ctx.reports);
    const conn = await ctx.connection.ensure();
    if (!conn) {
      // Connected from the refusal's picker: the drill starts again, now with its connection.
      if (await refuseWithoutCluster(ctx, vscode.l10n.t('run the drill'))) await vscode.commands.executeCommand(CommandIds.runFailureDrill, arg);
      return;
    }
    const pool = ctx.sessions.open(inv, folder);
    try {
      // The cluster must answer; a host that does not is a measurement the drill cannot take (its report says so),
      // except the node that a `stop` drill stops over SSH: judged once the fault is chosen.
      const all = inv.hosts.map((h) => h.name);
      const pre = await editorPreflight(ctx, ui, pool, inv, { operation: vscode.l10n.t('Run Failure Drill'), hosts: all, cluster: true, tolerate: { hosts: all } });
      if (!pre.ok) return;
      await drill(ui, pool, conn, arg, pre.report);
    } finally {
      await pool.close();
    }
  };

  async function drill(ui: ReturnType<typeof editorUi>, pool: HostSession, conn: KubeConnection, arg: InventoryNode | string | undefined, checked: PreflightReport): Promise<void> {
    const { loaded, inv } = ctx;
    const candidates = inv.hosts.filter((h) => isKubernetesHost(h) || h.roles.includes('loadbalancer'));
    let hostName = typeof arg === 'string' ? arg : arg?.kind === 'host' ? arg.host.name : arg?.kind === 'live' ? balancerOfRow(arg.node.id) : undefined;
    hostName ??= await ui.pick(vscode.l10n.t('Run Failure Drill'), candidates.map((h) => ({ value: h.name, label: h.name, description: `${h.address} · ${h.roles.join(', ')}` })), vscode.l10n.t('The host to fail (it is restored afterwards)'));
    if (!hostName) return;
    const host = candidates.find((h) => h.name === hostName);
    if (!host) {
      void ui.message('error', vscode.l10n.t('{0} is not a control-plane node, worker or balancer of {1}.', hostName, inv.cluster.name));
      return;
    }
    // A fault made over SSH needs its host to pass the preflight: refused as soon as the fault is chosen, before the next question.
    const others = inv.hosts.map((h) => h.name).filter((h) => h !== host.name);
    const reachable = async (fault: Pick<DrillRequest, 'kind' | 'cutCommand' | 'healCommand'>): Promise<boolean> =>
      !faultActsOverSsh(fault) || refuseUnlessPasses(ui, checked, vscode.l10n.t('Failure drill on {0}', host.name), { hosts: others });
    const balancer = !isKubernetesHost(host);
    const req = balancer ? await balancerRequest(ui, host.name, reachable) : await nodeRequest(ui, host.name, reachable);
    if (!req) return;
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
      if (isCancel(e)) throw e;
      void ui.message('error', vscode.l10n.t('Failure drill on {0}: {1}', host.name, describeError(e)));
    } finally {
      probe?.dispose();
    }
  }
});

/** `balancers:lb1` (a balancer's live row under the VIP row) → `lb1`. */
function balancerOfRow(id: string): string | undefined {
  const m = /^balancers:([^:]+)$/.exec(id);
  return m && m[1] !== 'vip' ? m[1] : undefined;
}

type EditorUi = ReturnType<typeof editorUi>;
/** False after refusing: the fault would be made over SSH on a host that failed the preflight. */
type Reachable = (fault: Pick<DrillRequest, 'kind' | 'cutCommand' | 'healCommand'>) => Promise<boolean>;

/** The power commands of the settings, or undefined after saying what is missing (with the button to set them). */
async function powerCommands(ui: EditorUi, what: 'node' | 'balancer'): Promise<{ off: string; on: string } | undefined> {
  const off = setting('drillPowerOffCommand').trim();
  const on = setting('drillPowerOnCommand').trim();
  if (off && on) return { off, on };
  const open = vscode.l10n.t('Open Settings');
  if ((await ui.message('error', what === 'node' ? vscode.l10n.t('Powering a node off needs both kubeadmWorkbench.drill.powerOffCommand and kubeadmWorkbench.drill.powerOnCommand (your hypervisor\'s commands, with {host} or {address}).') : vscode.l10n.t('Powering a balancer off needs both kubeadmWorkbench.drill.powerOffCommand and kubeadmWorkbench.drill.powerOnCommand (your hypervisor\'s commands, with {host} or {address}).'), { actions: [open] })) === open) {
    await vscode.commands.executeCommand('workbench.action.openSettings', 'kubeadmWorkbench.drill');
  }
  return undefined;
}

/**
 * The drill's questions come one after another, after a preflight that may take seconds: a click elsewhere while
 * they open must not drop the drill half-asked (a quick pick closes on focus loss by default).
 */
const WIZARD = { ignoreFocusOut: true } as const;

async function nodeRequest(ui: EditorUi, host: string, reachable: Reachable): Promise<DrillRequest | undefined> {
  const powerOff = setting('drillPowerOffCommand').trim();
  const powerOn = setting('drillPowerOnCommand').trim();
  const cut = setting('drillCutCommand').trim();
  const heal = setting('drillHealCommand').trim();
  const fault = await ui.pick(
    vscode.l10n.t('Failure drill on {0}', host),
    [
      { value: 'stop' as const, label: vscode.l10n.t('Stop Kubernetes on the node'), description: vscode.l10n.t('over SSH'), detail: vscode.l10n.t('kubelet stopped, every container killed with SIGKILL; the host stays up. Restore: start containerd and kubelet.') },
      {
        value: 'power-off' as const,
        label: vscode.l10n.t('Power the node off'),
        description: powerOff && powerOn ? vscode.l10n.t('hypervisor command') : vscode.l10n.t('needs the power commands in the settings'),
        detail: powerOff && powerOn ? `${powerOff.replace(/\{host\}/g, host)} — then ${powerOn.replace(/\{host\}/g, host)}` : vscode.l10n.t('Set kubeadmWorkbench.drill.powerOffCommand and powerOnCommand (e.g. govc vm.power -off {host}).'),
      },
      {
        value: 'partition' as const,
        label: vscode.l10n.t('Cut the node\'s network (it keeps running)'),
        description: cut && heal ? vscode.l10n.t('your cut command') : vscode.l10n.t('nftables over SSH'),
        detail: cut && heal ? `${cut.replace(/\{host\}/g, host)} — then ${heal.replace(/\{host\}/g, host)}` : vscode.l10n.t('Every packet in and out dropped but this SSH session; it heals itself after a few minutes if the drill cannot.'),
      },
    ],
    vscode.l10n.t('How the node fails'),
    WIZARD,
  );
  if (!fault) return undefined;
  if (!(await reachable({ kind: fault, cutCommand: cut, healCommand: heal }))) return undefined;
  const power = fault === 'power-off' ? await powerCommands(ui, 'node') : undefined;
  if (fault === 'power-off' && !power) return undefined;
  const evictionWaitSeconds = await ui.pick(
    vscode.l10n.t('Failure drill on {0}', host),
    [
      { value: 0, label: vscode.l10n.t('Do not wait for evictions'), detail: vscode.l10n.t('The report says when the pods on the node would be evicted (their tolerationSeconds, 300 s by default).') },
      { value: 120, label: vscode.l10n.t('Wait up to 2 minutes after NotReady for evictions'), detail: vscode.l10n.t('For pods with short tolerationSeconds for node.kubernetes.io/unreachable.') },
      { value: 360, label: vscode.l10n.t('Wait up to 6 minutes after NotReady for evictions'), detail: vscode.l10n.t('Enough for the default tolerationSeconds of 300 s.') },
    ],
    vscode.l10n.t('Taint-based evictions of the pods on the node'),
    WIZARD,
  );
  if (evictionWaitSeconds === undefined) return undefined;
  return {
    host,
    kind: fault,
    evictionWaitSeconds,
    ...(power ? { powerOffCommand: power.off, powerOnCommand: power.on } : {}),
    ...(fault === 'partition' && cut && heal ? { cutCommand: cut, healCommand: heal } : {}),
  };
}

async function balancerRequest(ui: EditorUi, host: string, reachable: Reachable): Promise<DrillRequest | undefined> {
  const powerOff = setting('drillPowerOffCommand').trim();
  const powerOn = setting('drillPowerOnCommand').trim();
  const fault = await ui.pick(
    vscode.l10n.t('Balancer drill on {0}', host),
    [
      { value: 'haproxy' as const, label: vscode.l10n.t('Stop HAProxy on the VIP holder (black hole)'), description: vscode.l10n.t('over SSH'), detail: vscode.l10n.t('keepalived\'s check must drop the priority and move the VIP: interval × fall + Master_Down_Interval. Refused when the weights would never move it.') },
      { value: 'stop' as const, label: vscode.l10n.t('Stop keepalived on the VIP holder'), description: vscode.l10n.t('over SSH'), detail: vscode.l10n.t('A graceful release (priority 0): the other balancer takes the VIP after its skew time.') },
      {
        value: 'power-off' as const,
        label: vscode.l10n.t('Power the VIP holder off'),
        description: powerOff && powerOn ? vscode.l10n.t('hypervisor command') : vscode.l10n.t('needs the power commands in the settings'),
        detail: vscode.l10n.t('The other balancer takes the VIP after Master_Down_Interval = 3 × advert_int + (256 − priority)/256 s.'),
      },
      { value: 'split-brain' as const, label: vscode.l10n.t('Block VRRP between the balancers (split brain)'), description: vscode.l10n.t('nftables over SSH'), detail: vscode.l10n.t('Both become MASTER; the live view and status must report it within 5 s. Heals itself after a few minutes if the drill cannot.') },
    ],
    vscode.l10n.t('How the balancer fails'),
    WIZARD,
  );
  if (!fault) return undefined;
  if (!(await reachable({ kind: fault }))) return undefined;
  const power = fault === 'power-off' ? await powerCommands(ui, 'balancer') : undefined;
  if (fault === 'power-off' && !power) return undefined;
  return { host, kind: fault, ...(power ? { powerOffCommand: power.off, powerOnCommand: power.on } : {}) };
}
