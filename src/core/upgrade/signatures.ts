/**
 * Failures of an upgrade step recognised by what kubeadm, apt or the kubelet printed, each with what it means and
 * what to do — the ones kubeadm users meet (kubeadm issues and kubeadm's own upgrade code's messages), so the
 * person at the terminal reads an explanation instead of a timeout.
 */
import { t } from '../l10n';

export interface FailureSignature {
  id: string;
  /** Matched against the step's output and error. */
  pattern: RegExp;
  /** What happened and what to do, in plain words (in the catalogue's language when read). */
  readonly explanation: string;
  /** Where it is documented or discussed. */
  reference?: string;
}

export const SIGNATURES: readonly FailureSignature[] = [
  {
    id: 'etcd-static-pod-hash',
    pattern: /static Pod hash for component etcd on Node \S+ did not change/i,
    get explanation() {
      return t('kubeadm wrote the new etcd manifest and waited for the kubelet to restart etcd with it, but the mirror pod\'s hash never changed (kubeadm #2957): the kubelet did not pick the manifest up in time, or etcd\'s manifest did not change at all. kubeadm rolled the node back. Check `crictl ps --name etcd` and the kubelet\'s log on the node; once etcd runs and is healthy, run the upgrade again — the steps already at the target are skipped. If etcd is at the target\'s version already, `kubeadm upgrade apply --etcd-upgrade=false` is kubeadm\'s documented way past it.');
    },
    reference: 'https://github.com/kubernetes/kubeadm/issues/2957',
  },
  {
    id: 'static-pod-hash',
    pattern: /static Pod hash for component (kube-apiserver|kube-controller-manager|kube-scheduler) on Node \S+ did not change/i,
    get explanation() {
      return t('kubeadm wrote the new manifest but the kubelet did not restart the component with it in time (a slow image pull, a kubelet that is not running, a crash-looping new container). kubeadm restored the old manifest. Look at `crictl ps -a --name kube-` and `journalctl -u kubelet` on the node, then run the upgrade again.');
    },
  },
  {
    id: 'static-pod-hash-unread',
    pattern: /failed to obtain static Pod hash for component \S+ on Node \S+: Get "[^"]+": (net\/http: request canceled|context deadline exceeded|dial tcp)/i,
    get explanation() {
      return t('kubeadm wrote the new manifest and, waiting for the kubelet to restart the component, could not read its mirror pod through the control-plane endpoint in time (10 s per request): the API servers behind HAProxy answered too slowly — the hosts are overloaded, or etcd is slow. kubeadm rolled the node back. Once the node\'s etcd and API server run again, run the upgrade again (it resumes at this node).');
    },
  },
  {
    id: 'health-check-job',
    pattern: /\[ERROR CreateJob\]: Job "[^"]+" in the namespace "kube-system" did not complete/i,
    get explanation() {
      return t('kubeadm\'s upgrade health check runs a small Job and wants it finished within 15 s: no node could start its pod in time (overloaded hosts, a missing pause image, taints). Nothing was changed; run the upgrade again once the cluster is idle, or name CreateJob in cluster.ignorePreflightErrors after checking that pods start.');
    },
  },
  {
    id: 'kubeadm-rolled-back',
    pattern: /couldn't upgrade control plane\. kubeadm has tried to recover everything into the earlier state/i,
    get explanation() {
      return t('kubeadm failed half-way through the node and put back the manifests (and etcd data) it had saved in /etc/kubernetes/tmp. The cluster runs the old version on this node; the reason is in the lines before this one.');
    },
  },
  {
    id: 'version-too-high',
    pattern: /Specified version to upgrade to "?v?[\d.]+"? is (too high|at least one minor release higher than the kubeadm minor release)/i,
    get explanation() {
      return t('kubeadm refuses a target more than one minor ahead of the cluster, or newer than kubeadm itself: the kubeadm package on this node is not the target\'s (its package step did not run or the package source still names the old minor).');
    },
  },
  {
    id: 'version-not-newer',
    pattern: /Specified version to upgrade to "?v?[\d.]+"? is (equal to or )?lower than the cluster version/i,
    get explanation() {
      return t('The cluster\'s configuration is at the target or newer already: this node was upgraded by an earlier run, or the target is a downgrade.');
    },
  },
  {
    id: 'not-ready-control-plane',
    pattern: /\[ERROR ControlPlaneNodesReady\]|there are NotReady control-planes in the cluster/i,
    get explanation() {
      return t('kubeadm\'s preflight refuses while a control-plane Node is NotReady. Bring it back (its kubelet, its CNI pod) and run the upgrade again.');
    },
  },
  {
    id: 'image-pull',
    pattern: /\[ERROR ImagePull\]|failed to pull image|ErrImagePull|ImagePullBackOff/i,
    get explanation() {
      return t('An image of the target could not be pulled: the registry or mirror the node uses lacks it, or the node cannot reach it. The preflight checks the registry for every image kubeadm pulls; push the image named above and run again.');
    },
  },
  {
    id: 'coredns-migration',
    pattern: /\[ERROR CoreDNSUnsupportedPlugins\]|\[ERROR CoreDNSMigration\]|CoreDNS.*(unsupported|cannot migrate)/i,
    get explanation() {
      return t('The CoreDNS Corefile uses plugins or settings the target\'s CoreDNS cannot migrate automatically. Fix the Corefile (kube-system/coredns ConfigMap) or let kubeadm skip the check with --ignore-preflight-errors=CoreDNSUnsupportedPlugins,CoreDNSMigration after checking it by hand.');
    },
  },
  {
    id: 'apt-version-missing',
    pattern: /E: Version '[^']+' for '(kubeadm|kubelet|kubectl)' was not found/i,
    get explanation() {
      return t('The node\'s package source does not offer that version: kubernetes.list still names the old minor, apt\'s lists are stale, or the mirror lacks the version.');
    },
  },
  {
    id: 'apt-held',
    pattern: /Held packages were changed and -y was used without --allow-change-held-packages/i,
    get explanation() {
      return t('The package is held (as it should be between upgrades) and the install did not allow changing held packages.');
    },
  },
  {
    id: 'apiserver-unreachable',
    pattern: /couldn't create a Kubernetes client|the connection to the server [^ ]+ was refused|Unable to connect to the server/i,
    get explanation() {
      return t('kubeadm or kubectl could not reach the API through the control-plane endpoint: check that the VIP answers and that at least one API server behind HAProxy is UP.');
    },
  },
  {
    id: 'kubelet-wait-timeout',
    pattern: /timed out waiting for the condition|context deadline exceeded/i,
    get explanation() {
      return t('A wait ran out of time (a static pod that did not come back, an API that did not answer). The lines before say which; kubeadm\'s backups of the node are in /etc/kubernetes/tmp.');
    },
  },
];

/** The signatures found in a failed step's output, most specific first (the list's order). */
export function explainFailure(text: string): FailureSignature[] {
  const found = SIGNATURES.filter((s) => s.pattern.test(text));
  // The etcd case is the generic static-pod case with a known cause: say it once.
  return found.some((f) => f.id === 'etcd-static-pod-hash') ? found.filter((f) => f.id !== 'static-pod-hash' && f.id !== 'kubelet-wait-timeout') : found;
}
