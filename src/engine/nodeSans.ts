/**
 * certSANs for a replacement control-plane node. kubeadm gives every API server a certificate for its own
 * address, the endpoint and `apiServer.certSANs`; a cluster whose certSANs list the control-plane nodes'
 * addresses (so that clients may reach any one of them by a name or an address kept there) needs the new
 * address there too, or a client that uses it fails TLS verification. Read from kubeadm's ClusterConfiguration.
 */
import { parseDocument } from 'yaml';
import { hostsWithRole, type Inventory } from '../core/inventory/types';
import { KUBECTL } from '../core/nodes/commands';
import { sh, type RemoteCommand } from '../core/ssh/command';

export async function readClusterSans(run: (cmd: RemoteCommand) => Promise<{ code: number; stdout: string }>): Promise<string[] | undefined> {
  const r = await run(sh`${KUBECTL} -n kube-system get configmap kubeadm-config -o ${'jsonpath={.data.ClusterConfiguration}'} --request-timeout=15s`);
  if (r.code !== 0) return undefined;
  const doc = parseDocument(r.stdout, { prettyErrors: false });
  if (doc.errors.length) return undefined;
  const sans = (doc.toJS() as { apiServer?: { certSANs?: unknown } } | null)?.apiServer?.certSANs;
  return Array.isArray(sans) ? sans.filter((s): s is string => typeof s === 'string') : [];
}

/** The advice when certSANs list control-plane addresses but not the new one; undefined when nothing is missing. */
export function sanAdvice(sans: readonly string[] | undefined, inv: Inventory, newAddress: string): string | undefined {
  if (!sans) return undefined;
  const listed = hostsWithRole(inv, 'control-plane').filter((h) => sans.includes(h.address));
  if (!listed.length || sans.includes(newAddress)) return undefined;
  return `apiServer.certSANs lists the control-plane addresses ${listed.map((h) => h.address).join(', ')} but not ${newAddress}: the new node's own certificate has it, the others do not. Add ${newAddress} to certSANs in the kubeadm-config ConfigMap (kubectl -n kube-system edit configmap kubeadm-config) and renew the API server certificates (kubeadm-workbench certs renew --inventory F) after the replace.`;
}
