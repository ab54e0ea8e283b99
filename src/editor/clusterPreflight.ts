/**
 * The preflight's cluster checks in the editor, from the connection the live views and the cluster commands use
 * (editor/clusterConnection.ts): the kubeconfig (found, loadable, a context for the inventory's endpoint) and the API
 * answering through it. A failure says why in plain words and what to do (Select kubeconfig, Bring Up).
 */
import type { Inventory } from '../core/inventory/types';
import type { CheckResult } from '../core/preflight/model';
import { serverMatchesEndpoint } from '../core/live/kubeconfig';
import { plainWords } from '../core/text/plainWords';
import type { ClusterConnection } from './clusterConnection';
import { kubeconfigCandidates, kubeconfigFound } from './contextPicker';

const SELECT = 'choose the cluster\'s kubeconfig and context ("Kubeadm: Select Cluster Context"), or bring the cluster up ("Kubeadm: Bring Up Cluster…"), which saves one';

export async function editorClusterChecks(connection: ClusterConnection, inv: Inventory): Promise<CheckResult[]> {
  if (!kubeconfigFound()) {
    return [
      { id: 'kubeconfig', state: 'fail', kind: 'no-kubeconfig', detail: 'none found', cause: `no kubeconfig file was found (looked at ${kubeconfigCandidates().join(', ')})`, fix: SELECT },
      { id: 'api', state: 'skipped', detail: 'not checked: kubeconfig failed' },
    ];
  }
  const conn = await connection.ensure();
  const endpoint = inv.cluster.controlPlaneEndpoint;
  if (conn) {
    const ours = serverMatchesEndpoint(conn.server, endpoint);
    return [
      ours
        ? { id: 'kubeconfig', state: 'ok', detail: `context ${conn.context}` }
        : { id: 'kubeconfig', state: 'warn', kind: 'other-cluster', detail: `context ${conn.context}`, cause: `the context ${conn.context} points at ${conn.server}, not at the inventory's endpoint ${endpoint}`, fix: SELECT },
      { id: 'api', state: 'ok', detail: `${conn.server} answers` },
    ];
  }
  const s = connection.state;
  if (s.kind === 'untrusted') return [{ id: 'kubeconfig', state: 'fail', kind: 'untrusted', detail: 'not read', cause: 'the workspace is not trusted, so nothing connects', fix: 'trust the workspace (Manage Workspace Trust)' }];
  const why = s.kind === 'error' ? plainWords(s.message) : 'no connection';
  if (s.kind === 'error' && s.failure === 'config') return [{ id: 'kubeconfig', state: 'fail', kind: 'config', detail: 'cannot be used', cause: why, fix: SELECT }, { id: 'api', state: 'skipped', detail: 'not checked: kubeconfig failed' }];
  return [
    { id: 'kubeconfig', state: 'ok', detail: 'found' },
    { id: 'api', state: 'fail', kind: s.kind === 'error' ? (s.failure ?? 'other') : 'other', detail: endpoint, cause: `the API does not answer: ${why}`, fix: `check that the VIP answers (curl -k https://${endpoint}/readyz) and that the kubeconfig's context is this cluster's; ${SELECT}`, command: `curl -k https://${endpoint}/readyz` },
  ];
}
