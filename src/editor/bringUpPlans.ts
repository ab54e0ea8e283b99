/**
 * Builds the bring-up plan for the workspace's inventory (shared by "Show Bring-up Plan" and
 * "Bring Up Cluster") and asks which phases to include.
 */
import { readLocalText } from '../engine/workspaceFiles';
import { homedir } from 'node:os';
import { dirname, join } from 'node:path';
import * as vscode from 'vscode';
import type { Inventory } from '../core/inventory/types';
import type { Plan } from '../core/plan/types';
import { BRING_UP_PHASES, buildBringUpPlan, type BringUpPhase } from '../engine/bringUp';
import type * as Inputs from '../engine/inputs';
import { stateFolderFor, vrrpAuthPass } from '../engine/stateFolder';
import { checkKubeconfigTarget, saveAdminKubeconfig } from '../engine/kubeconfig';
import { setting } from './settings';
import { log } from './log';
import type { Ui } from '../engine/workflows/ui';
import { ExplainedFailure, isCancel } from '../core/errors';
import { describeError } from '../core/live/errors';

const PHASE_LABELS: Record<BringUpPhase, string> = {
  prepare: vscode.l10n.t('Prepare hosts — swap, modules, sysctl, containerd, kubeadm/kubelet/kubectl'),
  loadbalancer: vscode.l10n.t('Load balancer — HAProxy and Keepalived with the VIP'),
  init: vscode.l10n.t('Init — kubeadm init --upload-certs on the first control-plane node, CNI'),
  'join-control-plane': vscode.l10n.t('Join control-plane nodes — one at a time, etcd checked in between'),
  'join-workers': vscode.l10n.t('Join workers — in parallel'),
  verify: vscode.l10n.t('Cluster checks — every node Ready, CoreDNS running, then healthy as the status bar judges it'),
};

export async function pickPhases(ui: Ui, title: string): Promise<BringUpPhase[] | undefined> {
  const picked = await ui.pickMany(
    title,
    BRING_UP_PHASES.map((p) => ({ label: p, description: PHASE_LABELS[p], picked: true, value: p })),
    vscode.l10n.t('Phases to include (all by default); steps already done are skipped'),
    { ignoreFocusOut: false },
  );
  if (!picked?.length) return undefined;
  return picked;
}

export function kubeconfigPath(): string {
  const configured = setting('kubeconfig').split(':')[0]?.trim();
  const fromEnv = process.env.KUBECONFIG?.split(':')[0];
  return (configured || fromEnv || join(homedir(), '.kube', 'config')).replace(/^~(?=\/)/, homedir());
}

/**
 * The bring-up plan from the workspace's files, or an ExplainedFailure naming why it cannot be made (a file the
 * inventory names that is missing or refused, a state file not ours): the command's boundary shows it as it is, with
 * the inventory one click away.
 */
export async function buildPlan(ui: Ui, inv: Inventory, inventoryUri: vscode.Uri, phases: BringUpPhase[], onSaved: (context: string, path: string) => void): Promise<Plan> {
  try {
    return await makePlan(ui, inv, inventoryUri, phases, onSaved);
  } catch (e) {
    throw isCancel(e) ? e : new ExplainedFailure(vscode.l10n.t('Cannot make the plan: {0}', describeError(e)), true);
  }
}

async function makePlan(ui: Ui, inv: Inventory, inventoryUri: vscode.Uri, phases: BringUpPhase[], onSaved: (context: string, path: string) => void): Promise<Plan> {
  const folder = vscode.workspace.getWorkspaceFolder(inventoryUri)?.uri;
  const target = kubeconfigPath();
  // The generators and their schemas load on first use, not with the extension (esbuild makes this lazy).
  // eslint-disable-next-line @typescript-eslint/no-require-imports
  const { phaseConfigs, phaseSources, readKubeadmExtra } = require('../engine/inputs') as typeof Inputs;
  const sources = await phaseSources(inv, dirname(inventoryUri.fsPath), readLocalText);
  const extra = await readKubeadmExtra(inv, dirname(inventoryUri.fsPath), readLocalText);
  const vrrp = await vrrpAuthPass(stateFolderFor(inventoryUri.fsPath));
  return buildBringUpPlan(inv, phases, phaseConfigs(inv, extra, vrrp), sources, {
    saveAdminKubeconfig: async (adminConf) => {
      // admin.conf is cluster-admin: never into the workspace unless the user says so.
      if (folder) {
        try {
          await checkKubeconfigTarget(target, folder.fsPath, false);
        } catch {
          const allow = vscode.l10n.t('Write it there');
          const ok = await ui.message('warning', vscode.l10n.t('The kubeconfig {0} is inside the workspace. Write the cluster\'s admin credentials there?', target), { modal: true, actions: [allow] });
          if (ok !== allow) throw new Error(vscode.l10n.t('admin.conf not saved: {0} is inside the workspace', target));
        }
      }
      onSaved(await saveAdminKubeconfig(target, adminConf, inv.cluster.name), target);
    },
    clusterHealthy: async (signal) => {
      // eslint-disable-next-line @typescript-eslint/no-require-imports
      const { waitUntilHealthy } = require('../engine/clusterHealthy') as typeof import('../engine/clusterHealthy');
      await waitUntilHealthy({ inventory: inv, kubeconfig: target, signal, say: (line) => log.info(`bring-up of ${inv.cluster.name}: ${line}`) });
    },
  });
}
