/**
 * The preflight's cluster checks in the editor, from the connection the live views and the cluster commands use
 * (editor/clusterConnection.ts): the kubeconfig (found, loadable, a context for the inventory's endpoint) and the API
 * answering through it. A failure says why in plain words and what to do (Select kubeconfig, Bring Up).
 */
import type { Inventory } from '../core/inventory/types';
import type { CheckResult } from '../core/preflight/model';
import { clusterCheck, clusterFix } from '../core/preflight/clusterChecks';
import { t } from '../core/l10n';
import { serverMatchesEndpoint } from '../core/live/kubeconfig';
import { plainWords } from '../core/text/plainWords';
import type { ClusterConnection } from './clusterConnection';
import { kubeconfigCandidates, kubeconfigFound } from './contextPicker';

export async function editorClusterChecks(connection: ClusterConnection, inv: Inventory): Promise<CheckResult[]> {
  if (!kubeconfigFound()) return [clusterCheck.noKubeconfigFile(kubeconfigCandidates(), clusterFix.editorKubeconfig()), clusterCheck.apiSkipped()];
  const conn = await connection.ensure();
  const endpoint = inv.cluster.controlPlaneEndpoint;
  if (conn) {
    const ours = serverMatchesEndpoint(conn.server, endpoint);
    return [ours ? clusterCheck.kubeconfigOk(conn.context) : clusterCheck.contextOfOtherCluster(conn.context, conn.server, endpoint, clusterFix.editorKubeconfig()), clusterCheck.apiAnswers(conn.server)];
  }
  const s = connection.state;
  if (s.kind === 'untrusted') return [clusterCheck.untrusted()];
  const why = s.kind === 'error' ? plainWords(s.message) : t('no connection');
  if (s.kind === 'error' && s.failure === 'config') return [clusterCheck.kubeconfigUnusable('config', why, clusterFix.editorKubeconfig()), clusterCheck.apiSkipped()];
  return [clusterCheck.kubeconfigFound(), clusterCheck.apiSilent(s.kind === 'error' ? (s.failure ?? 'other') : 'other', endpoint, why, clusterFix.editorVip(endpoint), false)];
}
