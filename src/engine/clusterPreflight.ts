/**
 * The preflight's cluster checks on the command line (the editor reads them from its live connection): the kubeconfig
 * as kubectl finds it (--kubeconfig, else KUBECONFIG, else ~/.kube/config) with a context for the inventory's
 * endpoint, then GET /readyz through that endpoint (the VIP) — anonymous, as kubeadm's default RBAC allows.
 */
import type { Inventory } from '../core/inventory/types';
import { classifyError, describeError } from '../core/live/errors';
import { contextForEndpoint } from '../core/live/kubeconfig';
import type { CheckResult } from '../core/preflight/model';
import { clusterCheck, clusterFix } from '../core/preflight/clusterChecks';
import { loadKubeAdapter } from '../adapters/kube/load';
import { probeReadyz } from '../adapters/kube/readyz';

export async function clusterChecks(inv: Inventory, kubeconfig = '', timeoutMs = 3000): Promise<CheckResult[]> {
  const endpoint = inv.cluster.controlPlaneEndpoint;
  const [host, port] = [endpoint.replace(/:\d+$/, ''), Number(/:(\d+)$/.exec(endpoint)?.[1] ?? 6443)];
  const api = async (): Promise<CheckResult> => {
    const r = await probeReadyz(host, port, timeoutMs);
    if (r.status !== undefined) return clusterCheck.apiReadyz(endpoint, r.status);
    const e = classifyError(r.error, `https://${endpoint}`);
    return clusterCheck.apiSilent(e.kind, endpoint, e.describe(), clusterFix.cliVip(endpoint), true);
  };
  let kube: CheckResult;
  try {
    const { choice } = await loadKubeAdapter().loadKubeconfig(kubeconfig);
    const context = contextForEndpoint(choice, endpoint);
    kube = context ? clusterCheck.kubeconfigOk(context, choice.paths) : clusterCheck.noContextForEndpoint(choice.paths, endpoint, clusterFix.cliKubeconfig());
  } catch (e) {
    kube = clusterCheck.kubeconfigUnusable('no-kubeconfig', describeError(e), clusterFix.cliKubeconfig());
  }
  // The API as the operations reach it: through a context of this cluster; without one there is nothing to ask.
  return [kube, kube.state === 'ok' ? await api() : clusterCheck.apiSkipped()];
}
