/**
 * The preflight's cluster checks as the user reads them, one table for both front ends: the command line asks the
 * kubeconfig file and the VIP itself (engine/clusterPreflight.ts), the editor reads its live connection
 * (editor/clusterPreflight.ts); what differs is only where they look and the next step they offer (a flag on the
 * command line, a command in the editor). Each entry builds one CheckResult in the display language.
 */
import { t } from '../l10n';
import { skipped, type CheckResult } from './model';

export const clusterCheck = {
  /** The kubeconfig has a context for the inventory's endpoint (`paths`: the files it came from, on the command line). */
  kubeconfigOk: (context: string, paths?: readonly string[]): CheckResult => ({ id: 'kubeconfig', state: 'ok', detail: paths ? t('context {0} in {1}', context, paths.join(', ')) : t('context {0}', context) }),
  /** The editor has a kubeconfig but no connection yet: the file is there, the API is what failed. */
  kubeconfigFound: (): CheckResult => ({ id: 'kubeconfig', state: 'ok', detail: t('found') }),
  noKubeconfigFile: (looked: readonly string[], fix: string): CheckResult => ({ id: 'kubeconfig', state: 'fail', kind: 'no-kubeconfig', detail: t('none found'), cause: t('no kubeconfig file was found (looked at {0})', looked.join(', ')), fix }),
  /** The kubeconfig could not be read or used: `why` in plain words. */
  kubeconfigUnusable: (kind: 'no-kubeconfig' | 'config', why: string, fix: string): CheckResult => ({ id: 'kubeconfig', state: 'fail', kind, detail: kind === 'config' ? t('cannot be used') : t('not usable'), cause: why, fix }),
  noContextForEndpoint: (paths: readonly string[], endpoint: string, fix: string): CheckResult => ({ id: 'kubeconfig', state: 'fail', kind: 'other-cluster', detail: paths.join(', '), cause: t('no context of {0} points at the inventory\'s endpoint {1}', paths.join(', '), endpoint), fix }),
  contextOfOtherCluster: (context: string, server: string, endpoint: string, fix: string): CheckResult => ({ id: 'kubeconfig', state: 'warn', kind: 'other-cluster', detail: t('context {0}', context), cause: t('the context {0} points at {1}, not at the inventory\'s endpoint {2}', context, server, endpoint), fix }),
  untrusted: (): CheckResult => ({ id: 'kubeconfig', state: 'fail', kind: 'untrusted', detail: t('not read'), cause: t('the workspace is not trusted, so nothing connects'), fix: t('trust the workspace (Manage Workspace Trust)') }),
  /** The API is not asked without a usable kubeconfig. */
  apiSkipped: (): CheckResult => skipped(['api'], 'kubeconfig')[0]!,
  apiAnswers: (server: string): CheckResult => ({ id: 'api', state: 'ok', detail: t('{0} answers', server) }),
  apiReadyz: (endpoint: string, status: number): CheckResult =>
    status === 200
      ? { id: 'api', state: 'ok', detail: t('https://{0}/readyz answered ok', endpoint) }
      : status === 401 || status === 403
        ? { id: 'api', state: 'ok', detail: t('https://{0}/readyz answered HTTP {1}', endpoint, status) }
        : { id: 'api', state: 'fail', detail: t('https://{0}/readyz answered HTTP {1}', endpoint, status), cause: t('the API server through {0} is not ready (HTTP {1})', endpoint, status), fix: t('check the control-plane nodes (kubectl get --raw /readyz?verbose on one of them)') },
  /** No answer at all: `through` the endpoint named in the cause (the command line), or not (the editor's connection). */
  apiSilent: (kind: string, endpoint: string, why: string, fix: string, named: boolean): CheckResult => ({
    id: 'api', state: 'fail', kind, detail: endpoint, cause: named ? t('the API does not answer through {0}: {1}', endpoint, why) : t('the API does not answer: {0}', why), fix, command: `curl -k https://${endpoint}/readyz`,
  }),
};

/** The next steps the two front ends offer. */
export const clusterFix = {
  /** The command line: a flag. */
  cliKubeconfig: (): string => t('name the cluster\'s kubeconfig with --kubeconfig F (or KUBECONFIG); `up` saves one when it brings the cluster up'),
  cliVip: (endpoint: string): string => t('check the VIP on the balancers (HAProxy and Keepalived running) and that this machine reaches {0}', endpoint),
  /** The editor: its commands, by their titles. */
  editorKubeconfig: (): string => t('choose the cluster\'s kubeconfig and context ("Kubeadm: Select Cluster Context"), or bring the cluster up ("Kubeadm: Bring Up Cluster…"), which saves one'),
  editorVip: (endpoint: string): string => t('check that the VIP answers (curl -k https://{0}/readyz) and that the kubeconfig\'s context is this cluster\'s; {1}', endpoint, clusterFix.editorKubeconfig()),
};
