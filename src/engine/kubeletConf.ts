/**
 * The guided fix of a kubelet.conf that embeds its client certificate (src/core/certs/kubelet.ts): the node's state
 * read first — nothing to fix when kubelet.conf already points at the rotated file; refused when that file is not
 * usable (then only the documented manual path is left), when another run holds the node, or when the node is the
 * only control-plane node (nothing to drain it through) — then the plan: drained, kubelet.conf pointed at the
 * rotated file, the kubelet restarted until the new process has renewed its Lease and the node is Ready (both read
 * with the fixed file), uncordoned.
 */
import { join } from 'node:path';
import { buildKubeletConfPlan, kubeletConfUsesRotatedFile, rotatedFileUsable, KUBELET_CLIENT_CURRENT } from '../core/certs/kubelet';
import { asRoot } from '../core/drill/commands';
import { summarizeFailure } from '../core/text/failureSummary';
import { isKubernetesHost, hostsWithRole, type Inventory } from '../core/inventory/types';
import { heldLocks } from './state/hostLocks';
import type { Plan } from '../core/plan/types';
import { sh, type SudoOptions } from '../core/ssh/command';
import { ANY_EXIT_CODE, type SshTransport } from '../core/ssh/transport';
import { t } from '../core/l10n';

export interface KubeletConfDeps {
  inventory: Inventory;
  ssh: SshTransport;
  become: (host: string) => SudoOptions | undefined;
  stateDir: string;
}

export interface KubeletConfPreparation {
  plan?: Plan;
  refusals: string[];
  /** kubelet.conf already takes the rotated file. */
  nothing: boolean;
}

/** The control-plane node a node is drained through: another one when there is one. */
export function drainHelper(inv: Inventory, node: string): Inventory['hosts'][number] | undefined {
  return hostsWithRole(inv, 'control-plane').find((h) => h.name !== node) ?? hostsWithRole(inv, 'control-plane')[0];
}

export async function prepareKubeletConfFix(deps: KubeletConfDeps, node: string): Promise<KubeletConfPreparation> {
  const inv = deps.inventory;
  const host = inv.hosts.find((h) => h.name === node);
  if (!host || !isKubernetesHost(host)) return { refusals: [t('{0} is not a Kubernetes node of the inventory', node)], nothing: false };
  const helper = drainHelper(inv, node);
  if (!helper) return { refusals: [t('the inventory has no control-plane host to drain the node through')], nothing: false };
  let state: { fixed: boolean; usable: boolean };
  try {
    const r = await deps.ssh.exec(node, asRoot(sh`if ${kubeletConfUsesRotatedFile()}; then echo fixed=yes; else echo fixed=no; fi; if ${rotatedFileUsable()}; then echo usable=yes; else echo usable=no; fi`, deps.become(node)), { okCodes: [...ANY_EXIT_CODE], timeoutMs: 20_000 });
    state = { fixed: /fixed=yes/.test(r.stdout), usable: /usable=yes/.test(r.stdout) };
  } catch (e) {
    return { refusals: [t('cannot read {0}\'s kubelet.conf: {1}', node, summarizeFailure(e, node).cause)], nothing: false };
  }
  if (state.fixed) return { refusals: [], nothing: true };
  const refusals: string[] = [];
  if (!state.usable) refusals.push(t('{0}: {1} is missing, expires within the hour or is not signed by the cluster\'s CA, so kubelet.conf cannot simply be pointed at it; follow "Kubelet client certificate rotation fails" in kubeadm\'s certificate management guide (a new kubelet.conf from kubeadm kubeconfig user on a control-plane node)', node, KUBELET_CLIENT_CURRENT));
  if (helper.name === node) refusals.push(t('{0} is the only control-plane node: there is no other to drain it through; fix kubelet.conf there by hand after draining it', node));
  for (const { host: h, owner } of await heldLocks(join(deps.stateDir, 'locks'), [node, helper.name])) refusals.push(t('{0} is being changed by another run ({1}, pid {2}, since {3}); wait for it to end', h, owner.runId, owner.pid, owner.since));
  if (refusals.length) return { refusals, nothing: false };
  return { plan: buildKubeletConfPlan({ inventory: inv, node, helper: helper.name }), refusals, nothing: false };
}
