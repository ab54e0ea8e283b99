/**
 * The remote commands of an upgrade, all from the `sh` template (versions are parsed numbers, names are the
 * inventory's validated ones, HAProxy server names the generator's safe names). Checks ask the host or the API
 * for the state a step leaves, so a re-run skips what is already at the target.
 */
import { ADMIN, KUBECTL } from '../phases/interrupted';
import { raw, sh, type RemoteCommand } from '../ssh/command';
import { formatVersion, type KubeVersion } from './versions';

export const KUBELET_CONF = '/etc/kubernetes/kubelet.conf';
export const KUBEADM_BACKUPS = '/etc/kubernetes/tmp';
const APT = raw('DEBIAN_FRONTEND=noninteractive apt-get -o DPkg::Lock::Timeout=300 -o Dpkg::Options::=--force-confold -y -q');
const DPKG_VERSION = raw("dpkg-query -W -f='${Version}'");

/** `kubeadm=1.34.12-*`: Debian versions of the Kubernetes packages are `<version>-<revision>`. */
function pinned(pkg: string, v: KubeVersion): string {
  return `${pkg}=${v.major}.${v.minor}.${v.patch}-*`;
}

function plain(v: KubeVersion): string {
  return `${v.major}.${v.minor}.${v.patch}`;
}

/**
 * Exits 0 when these packages are installed at the target version and held. The loops here run in a subshell: an
 * `exit` in them must end the check, not the shell of the `if` a gate wraps it in.
 */
export function packagesAtTarget(pkgs: readonly string[], v: KubeVersion): RemoteCommand {
  const held = [...pkgs].sort().map((p) => `${p} `).join('');
  return sh`(for p in ${[...pkgs]}; do test "$(${DPKG_VERSION} $p 2>/dev/null | cut -d- -f1)" = ${plain(v)} || exit 1; done) && test "$(apt-mark showhold ${[...pkgs]} | sort | tr '\n' ' ')" = ${held}`;
}

/** kubernetes.io's order: unhold, install the pinned version, hold again (a routine apt upgrade must never move them). */
export function upgradePackages(pkgs: readonly string[], v: KubeVersion): RemoteCommand {
  return sh`apt-mark unhold ${[...pkgs]} >/dev/null && ${APT} install --no-install-recommends --allow-downgrades --allow-change-held-packages ${pkgs.map((p) => pinned(p, v))} && apt-mark hold ${[...pkgs]} >/dev/null`;
}

const MANIFESTS = ['kube-apiserver', 'kube-controller-manager', 'kube-scheduler'];

/** Exits 0 when the static pod manifests of the API server, controller-manager and scheduler name the target's images. */
export function staticPodsAtTarget(v: KubeVersion): RemoteCommand {
  return sh`(for c in ${MANIFESTS}; do grep -Eq "image: .*/$c:"${`${formatVersion(v).replace(/\./g, '\\.')}$`} /etc/kubernetes/manifests/$c.yaml 2>/dev/null || exit 1; done)`;
}

/**
 * Exits 0 when the cluster-wide part of `kubeadm upgrade apply` is at the target too: the kubeadm-config
 * ConfigMap's ClusterConfiguration names the version (the upload-config phase, which the other nodes' `upgrade
 * node` reads). Apply's phases run after the manifests change, so a run killed between them leaves manifests at the
 * target and this not; apply is safe to run again. Not kube-proxy: with other control-plane nodes still at the old
 * version, kubeadm leaves the add-ons to the last node's `upgrade node` (the `addons` step after it checks them).
 */
export function clusterConfigAtTarget(v: KubeVersion): RemoteCommand {
  const want = formatVersion(v);
  return sh`c=$(${KUBECTL} -n kube-system get cm kubeadm-config -o jsonpath='{.data.ClusterConfiguration}' --request-timeout=15s) && test "$(echo "$c" | sed -n 's/^kubernetesVersion:[[:space:]]*//p' | tr -d '\\042\\047[:space:]')" = ${want}`;
}

/**
 * Exits 0 when kube-proxy's DaemonSet names the target's image (a cluster without kube-proxy, whose CNI replaces it,
 * has none to ask). kubeadm's addon phase upgrades CoreDNS first, then kube-proxy: kube-proxy at the target means both.
 */
export function addonsAtTarget(v: KubeVersion): RemoteCommand {
  const want = formatVersion(v);
  return sh`p=$(${KUBECTL} -n kube-system get ds kube-proxy --ignore-not-found -o jsonpath='{.spec.template.spec.containers[0].image}' --request-timeout=15s) && { test -z "$p" || echo "$p" | grep -q ${`:${want}$`}; }`;
}

/** kubeadm's addon phase on a control-plane node: CoreDNS and kube-proxy of the version the cluster's configuration names. */
export function kubeadmUpgradeAddons(): RemoteCommand {
  return sh`kubeadm upgrade node phase addon all`;
}

/** Prints `at-target=yes` or `at-target=no` (a gate's capture: later steps of the node skip on yes). */
export function reportAtTarget(check: RemoteCommand): RemoteCommand {
  return sh`if ${check}; then echo at-target=yes; else echo at-target=no; fi`;
}

function ignoring(ignorePreflightErrors: readonly string[]): RemoteCommand {
  return ignorePreflightErrors.length ? sh` --ignore-preflight-errors=${ignorePreflightErrors.join(',')}` : sh``;
}

export function kubeadmUpgradePlan(v: KubeVersion, ignorePreflightErrors: readonly string[] = []): RemoteCommand {
  return sh`kubeadm upgrade plan ${formatVersion(v)}${ignoring(ignorePreflightErrors)}`;
}

export function kubeadmUpgradeApply(v: KubeVersion, ignorePreflightErrors: readonly string[] = []): RemoteCommand {
  return sh`kubeadm upgrade apply ${formatVersion(v)} --yes${ignoring(ignorePreflightErrors)}`;
}

export function kubeadmUpgradeNode(ignorePreflightErrors: readonly string[] = []): RemoteCommand {
  return sh`kubeadm upgrade node${ignoring(ignorePreflightErrors)}`;
}

/**
 * The node's own API server answers /readyz, says it is the target version when given one (the upgrade's) and serves an
 * authorised request (asked at its address, not the VIP): a list the admin may read only through RBAC. /readyz alone is asked anonymously by
 * HAProxy; a client is refused (403) by an API server whose authoriser has not caught up, and that is what a node
 * back in the balancers must not do to anybody.
 */
export function ownApiServerReady(address: string, v?: KubeVersion): RemoteCommand {
  const server = `https://${address.includes(':') ? `[${address}]` : address}:6443`;
  const ready = sh`${KUBECTL} --server=${server} get --raw=/readyz --request-timeout=5s >/dev/null`;
  const authorised = sh`${KUBECTL} --server=${server} get --raw=/api/v1/namespaces/kube-system/configmaps?limit=1 --request-timeout=5s >/dev/null`;
  return v ? sh`${ready} && ${KUBECTL} --server=${server} get --raw=/version --request-timeout=5s | grep -qF ${`"gitVersion": "${formatVersion(v)}"`} && ${authorised}` : sh`${ready} && ${authorised}`;
}

/** Seconds a restarted kubelet is given to restart a static pod whose container it will not keep (its first sync). */
export const KUBELET_FIRST_SYNC_SECONDS = 30;

/**
 * Exits 0 once the kube-apiserver running on the node is the one the kubelet running now keeps: started after that
 * kubelet (it replaced the old container), or still the same container KUBELET_FIRST_SYNC_SECONDS after the kubelet's
 * start (it kept it). Before that, the API server that answers may be the old one about to be stopped: a node put
 * back into HAProxy then would have its new API server receive clients before it can authorise them (the 403 an
 * independent client got through the VIP during the kubelet phase of an upgrade; issue 36).
 */
export function apiServerSettledAfterKubelet(): RemoteCommand {
  const created = '{{.status.createdAt}}';
  return sh`k=$(date -d "$(systemctl show -p ActiveEnterTimestamp --value kubelet)" +%s) || exit 1; ids=$(crictl ps -q --name '^kube-apiserver$' --state running) || exit 1; if [ -z "$ids" ]; then echo 'kube-apiserver is not running yet (the kubelet starts it)' >&2; exit 1; fi; newest=0; for id in $ids; do c=$(crictl inspect -o go-template --template ${created} "$id") || exit 1; s=$(date -d "$c" +%s) || exit 1; [ "$s" -gt "$newest" ] && newest=$s; done; [ "$newest" -ge "$k" ] && exit 0; [ $(( $(date +%s) - k )) -ge ${String(KUBELET_FIRST_SYNC_SECONDS)} ] && exit 0; echo 'kube-apiserver is the container from before the kubelet restarted: waiting for the kubelet to keep or replace it' >&2; exit 1`;
}

/** Seconds between the two reads of the leader leases: more than their holders' renewal period (2 s by default). */
export const LEASE_OBSERVE_SECONDS = 3;

/**
 * The scheduler's and controller-manager's leader leases are held by holders that renew them: read twice,
 * `observeSeconds` apart, each must name a holder and a renewTime other than the first read's. A holder whose process
 * stopped without giving its lease up (static pods restarted by kubeadm or a new kubelet, a kill) keeps its name on
 * the lease until the lease expires (15 s): "held" alone would let the next node be drained while no
 * controller-manager runs, and no endpoint controller would take that node's evicted pods out of the Services.
 * The loops run in a subshell: an `exit` ends the check only.
 */
export function leadersRenewing(observeSeconds = LEASE_OBSERVE_SECONDS): RemoteCommand {
  const seconds = Math.max(0, Math.floor(observeSeconds)); // a whole number: sh puts it in bare
  const read = sh`for l in kube-scheduler kube-controller-manager; do printf '%s ' $l; ${KUBECTL} -n kube-system get lease $l -o ${'jsonpath={.spec.holderIdentity} {.spec.renewTime}'} --request-timeout=10s || exit 1; echo; done`;
  return sh`(a=$(${read}) || exit 1; sleep ${seconds}; b=$(${read}) || exit 1; printf '%s\\n' "$b" | while read -r l h t; do if [ -z "$t" ]; then echo "$l is held by nobody" >&2; exit 1; fi; if printf '%s\\n' "$a" | grep -qxF "$l $h $t"; then echo "$l: its holder $h did not renew it in ${seconds} s (a holder that stopped keeps it until it expires, then another takes it)" >&2; exit 1; fi; done)`;
}

/** The Node as the node's own kubelet credentials read it (a worker has no admin.conf; the node authorizer lets a node read itself). */
function ownNode(node: string, jsonpath: string): RemoteCommand {
  return sh`kubectl --kubeconfig ${KUBELET_CONF} get ${'node/' + node} -o ${`jsonpath=${jsonpath}`} --request-timeout=10s`;
}

/** Exits 0 when the running kubelet reports the target version and the Node is Ready. */
export function nodeReadyAtTarget(node: string, v: KubeVersion): RemoteCommand {
  return sh`test "$(${ownNode(node, '{.status.nodeInfo.kubeletVersion} {.status.conditions[?(@.type=="Ready")].status}')})" = ${`${formatVersion(v)} True`}`;
}

/** Exits 0 when the running kubelet reports the target version (Ready or not). */
export function nodeReportsTarget(node: string, v: KubeVersion): RemoteCommand {
  return sh`test "$(${ownNode(node, '{.status.nodeInfo.kubeletVersion}')})" = ${formatVersion(v)}`;
}

/** Exits 0 when the Node is schedulable. */
export function nodeSchedulable(node: string): RemoteCommand {
  return sh`test -z "$(${ownNode(node, '{.spec.unschedulable}')})" || test "$(${ownNode(node, '{.spec.unschedulable}')})" = false`;
}

export function restartKubelet(): RemoteCommand {
  return sh`systemctl daemon-reload && systemctl restart kubelet`;
}

/** Every node's kubelet and every API server pod at the target: the whole upgrade is done (skips the snapshot on a re-run). */
export function clusterAtTarget(v: KubeVersion): RemoteCommand {
  const want = formatVersion(v);
  return sh`test -f ${ADMIN} && k=$(${KUBECTL} get nodes -o jsonpath='{range .items[*]}{.status.nodeInfo.kubeletVersion}{"\\n"}{end}' --request-timeout=15s) && test -n "$k" && test -z "$(echo "$k" | grep -vx ${want})" && a=$(${KUBECTL} -n kube-system get pods -l component=kube-apiserver -o jsonpath='{range .items[*]}{.spec.containers[0].image}{"\\n"}{end}' --request-timeout=15s) && test -n "$a" && test -z "$(echo "$a" | grep -v ${`:${want}$`})"`;
}

/** kubeadm's backups of manifests and etcd data from `upgrade apply`/`upgrade node` (it never removes them). */
export function listKubeadmBackups(): RemoteCommand {
  return sh`if test -d ${KUBEADM_BACKUPS}; then for d in ${raw(KUBEADM_BACKUPS)}/kubeadm-backup-* ${raw(KUBEADM_BACKUPS)}/kubeadm-upgraded-manifests*; do test -e "$d" && echo "$(du -sh "$d" | cut -f1) $d"; done; fi; true`;
}

/**
 * Exits 0 when these Nodes are Ready (asked with the admin credentials of the control-plane node it runs on). A gate
 * before a control-plane node is drained: the drain's guard refuses while another control-plane node is NotReady,
 * and right after the node before it was upgraded that can be for a few seconds (seen on the lab under load: m03
 * NotReady just after its kubeadm upgrade node, and the whole run failed at m01's drain).
 */
export function nodesReady(nodes: readonly string[]): RemoteCommand {
  return sh`${KUBECTL} wait --for=condition=Ready ${nodes.map((n) => `node/${n}`)} --timeout=10s >/dev/null`;
}
