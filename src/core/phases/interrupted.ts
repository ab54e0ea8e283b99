/**
 * What a killed or cancelled run leaves on a host or in the cluster (a kubeadm still running, a half-done
 * init or join, an etcd member without its node), and the commands that find and clear it before the step
 * runs again — only ever when the API says the host is not a working part of the cluster.
 */
import type { HostSpec } from '../inventory/types';
import { and, raw, sh, type Raw, type RemoteCommand } from '../ssh/command';

export const ADMIN = '/etc/kubernetes/admin.conf';
export const KUBECTL = sh`kubectl --kubeconfig ${ADMIN}`;

/**
 * `retry CMD...`: up to 10 tries, 3 s apart. After an interrupted join the VIP may still send a request to
 * the half-joined node's API server (until HAProxy's health check drops it), which then fails.
 */
const RETRY = raw('retry() { n=1; until "$@"; do [ $n -ge 10 ] && return 1; n=$((n+1)); sleep 3; done; };');

/**
 * kubeadm reset empties /var/lib/etcd before it stops the kubelet and removes the containers, so the etcd
 * of an interrupted join or init can write into it again meanwhile (seen on the lab: the next join's
 * preflight found /var/lib/etcd not empty). Once reset has removed the containers, nothing writes there.
 */
const RESET = raw('kubeadm reset -f && { test ! -d /var/lib/etcd || find /var/lib/etcd -mindepth 1 -delete; }');

/** Files an earlier (interrupted) join or init leaves, any of which makes kubeadm's preflight refuse. */
function leftovers(): RemoteCommand {
  return sh`{ test -e /etc/kubernetes/kubelet.conf || test -e /etc/kubernetes/bootstrap-kubelet.conf || test -e /etc/kubernetes/pki/ca.crt || test -n "$(ls -A /etc/kubernetes/manifests 2>/dev/null)"; }`;
}

/** Exits 0 when the API lists `host` with the control-plane label (kubeadm sets it after etcd has joined). */
export function isControlPlaneNode(host: HostSpec): RemoteCommand {
  return sh`${KUBECTL} get nodes -l node-role.kubernetes.io/control-plane -o name --request-timeout=15s | grep -qx ${'node/' + host.name}`;
}

/**
 * Waits (5 min at most) until no kubeadm runs on the host: one left by a killed run ends on its own
 * (it finishes, or dies writing to the closed connection) and its result is what the check sees next.
 */
export function waitForKubeadmToExit(host: HostSpec): RemoteCommand {
  return sh`i=0; while pgrep -x kubeadm >/dev/null; do if [ $i -ge 300 ]; then echo ${`${host.name}: a kubeadm is still running after 5 minutes:`} $(pgrep -ax kubeadm) >&2; exit 1; fi; sleep 1; i=$((i+1)); done`;
}

/** Exits 0 when init ran to its end: admin.conf and the add-ons, its last phase, through the API. */
export function initFinished(): RemoteCommand {
  return sh`test -f ${ADMIN} && ${KUBECTL} -n kube-system get deployment coredns -o name --request-timeout=15s >/dev/null 2>&1`;
}

/**
 * Before init: what an init killed midway left (certificates, manifests, a half-set-up API) is reset so
 * init can run again — but never a cluster that works: once etcd holds data, not when the API cannot be
 * asked (it may only be restarting), not when init in fact finished, and not when any other node has joined.
 */
export function resetInterruptedInit(first: HostSpec): RemoteCommand {
  const unknown = `${first.name}: an earlier init left admin.conf here, and the API does not answer; not resetting a cluster that may be working`;
  const joined = `${first.name}: other nodes have joined this cluster; an interrupted init cannot be redone by resetting it`;
  // Without etcd data on this stacked-etcd node there is no cluster to lose (init was killed before etcd
  // ever ran): reset. With it, the API must say that init did not finish and that nobody else has joined.
  const decide = sh`if test -f ${ADMIN} && test -d /var/lib/etcd/member; then ${RETRY} retry ${KUBECTL} get --raw=/readyz --request-timeout=10s >/dev/null || { echo ${unknown} >&2; exit 1; }; if ${initFinished()}; then echo ${`${first.name} is initialised already`}; exit 0; fi; others=$(${KUBECTL} get nodes -o name --request-timeout=15s | grep -vx ${'node/' + first.name}); if test -n "$others"; then echo ${joined} >&2; exit 1; fi; fi`;
  return sh`{ ! { test -e ${ADMIN} || ${leftovers()}; } || { ${decide} && ${RESET}; }; }`;
}

/**
 * Before a control-plane join: what an interrupted join left on the host is reset. Its etcd member and
 * Node were removed by the step before (forgetInterruptedJoin): kubeadm reset wipes etcd's data, and a
 * member still in the cluster without its data can cost the quorum. Only when the API says the host is
 * not a control-plane node: when the API cannot be asked, a working node is never reset on a guess.
 */
export function resetInterruptedControlPlaneJoin(host: HostSpec): RemoteCommand {
  const unknown = `${host.name}: an earlier join left files here, and the API cannot tell whether ${host.name} finished joining; not resetting it`;
  const cleanup = and(
    sh`if test -f ${ADMIN}; then ${RETRY} nodes=$(retry ${KUBECTL} get nodes -l node-role.kubernetes.io/control-plane -o name --request-timeout=15s) || { echo ${unknown} >&2; exit 1; }; if echo "$nodes" | grep -qx ${'node/' + host.name}; then echo ${`${host.name} is already a control-plane node`}; exit 0; fi; fi`,
    sh`${RESET}`,
  );
  return sh`{ ! ${leftovers()} || { ${cleanup}; }; }`;
}

/**
 * What an interrupted join of `host` left in the cluster, removed from the first control-plane node
 * while etcd still has its quorum: the host's etcd member (unstarted, a learner, or a voter that the
 * killed run's kubeadm went on to promote) and its Node (kubeadm join refuses a name whose Node is
 * Ready). Never for a host the API lists as a control-plane node (kubeadm labels it once its etcd member
 * has joined): a member of a finished join whose host is down is for a human to decide.
 */
export function forgetInterruptedJoin(host: HostSpec, etcdctl: (cmd: Raw) => RemoteCommand): { check: RemoteCommand; run: RemoteCommand } {
  const node = 'node/' + host.name;
  const peer = `https://${host.address}:2380`;
  const controlPlanes = sh`${KUBECTL} get nodes -l node-role.kubernetes.io/control-plane -o name --request-timeout=15s`;
  return {
    // Skipped when the host is a control-plane node, or nothing of it is in etcd or among the Nodes.
    check: sh`cps=$(${controlPlanes}) && all=$(${KUBECTL} get nodes -o name --request-timeout=15s) && members=$(${etcdctl(raw('member list'))}) && { echo "$cps" | grep -qx ${node} || { ! echo "$members" | grep -qF ${peer} && ! echo "$all" | grep -qx ${node}; }; }`,
    run: sh`${RETRY} cps=$(retry ${controlPlanes}) || { echo ${`cannot ask the API whether ${host.name} is a control-plane node; nothing removed`} >&2; exit 1; }; if echo "$cps" | grep -qx ${node}; then echo ${`${host.name} is a control-plane node: nothing to remove`}; exit 0; fi; members=$(retry ${etcdctl(raw('member list'))}) || exit 1; for id in $(echo "$members" | grep -F ${peer} | cut -d, -f1); do retry ${etcdctl(raw('member remove'))} "$id" || exit 1; done; retry ${KUBECTL} delete ${node} --ignore-not-found --request-timeout=15s`,
  };
}

/**
 * Before a worker join: a kubeadm of a killed run is waited for (when it finished, kubelet.conf is
 * there and nothing is left to do), then what it left is reset. kubelet.conf is a worker's last file, and
 * the check already found it missing, so no joined worker is reset here.
 */
export function resetInterruptedWorkerJoin(host: HostSpec): RemoteCommand {
  return sh`${waitForKubeadmToExit(host)}; if test -f /etc/kubernetes/kubelet.conf; then echo ${`${host.name} has joined (an earlier kubeadm finished)`}; exit 0; fi; { ! ${leftovers()} || kubeadm reset -f; }`;
}
