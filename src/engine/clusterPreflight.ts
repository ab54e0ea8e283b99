/**
 * The preflight's cluster checks on the command line (the editor reads them from its live connection): the kubeconfig
 * as kubectl finds it (--kubeconfig, else KUBECONFIG, else ~/.kube/config) with a context for the inventory's
 * endpoint, then GET /readyz through that endpoint (the VIP) — anonymous, as kubeadm's default RBAC allows.
 */
import type { Inventory } from '../core/inventory/types';
import { classifyError, describeError } from '../core/live/errors';
import { contextForEndpoint } from '../core/live/kubeconfig';
import type { CheckResult } from '../core/preflight/model';
import { loadKubeAdapter } from '../adapters/kube/load';
import { probeReadyz } from '../adapters/kube/readyz';

const FIX = 'name the cluster\'s kubeconfig with --kubeconfig F (or KUBECONFIG); `up` saves one when it brings the cluster up';

export async function clusterChecks(inv: Inventory, kubeconfig = '', timeoutMs = 3000): Promise<CheckResult[]> {
  const endpoint = inv.cluster.controlPlaneEndpoint;
  const [host, port] = [endpoint.replace(/:\d+$/, ''), Number(/:(\d+)$/.exec(endpoint)?.[1] ?? 6443)];
  const api = async (): Promise<CheckResult> => {
    const r = await probeReadyz(host, port, timeoutMs);
    if (r.status === 200) return { id: 'api', state: 'ok', detail: `https://${endpoint}/readyz answered ok` };
    if (r.status !== undefined) return { id: 'api', state: r.status === 401 || r.status === 403 ? 'ok' : 'fail', detail: `https://${endpoint}/readyz answered HTTP ${r.status}`, ...(r.status === 401 || r.status === 403 ? {} : { cause: `the API server through ${endpoint} is not ready (HTTP ${r.status})`, fix: 'check the control-plane nodes (kubectl get --raw /readyz?verbose on one of them)' }) };
    const e = classifyError(r.error, `https://${endpoint}`);
    return { id: 'api', state: 'fail', kind: e.kind, detail: endpoint, cause: `the API does not answer through ${endpoint}: ${e.describe()}`, fix: `check the VIP on the balancers (HAProxy and Keepalived running) and that this machine reaches ${endpoint}`, command: `curl -k https://${endpoint}/readyz` };
  };
  let kube: CheckResult;
  try {
    const { choice } = await loadKubeAdapter().loadKubeconfig(kubeconfig);
    const context = contextForEndpoint(choice, endpoint);
    kube = context
      ? { id: 'kubeconfig', state: 'ok', detail: `context ${context} in ${choice.paths.join(', ')}` }
      : { id: 'kubeconfig', state: 'fail', kind: 'other-cluster', detail: choice.paths.join(', '), cause: `no context of ${choice.paths.join(', ')} points at the inventory's endpoint ${endpoint}`, fix: FIX };
  } catch (e) {
    kube = { id: 'kubeconfig', state: 'fail', kind: 'no-kubeconfig', detail: 'not usable', cause: describeError(e), fix: FIX };
  }
  // The API as the operations reach it: through a context of this cluster; without one there is nothing to ask.
  return [kube, kube.state === 'ok' ? await api() : { id: 'api', state: 'skipped', detail: 'not checked: kubeconfig failed' }];
}
