/**
 * The remote commands of removing, replacing and resetting a node, all from the `sh` template. The
 * cluster-side ones run on a healthy control-plane host (the "helper") with its admin.conf; etcdctl runs in
 * that host's own etcd pod through `kubectl exec`, so nothing is asked of the node being removed — it may
 * be powered off for good.
 */
import { ADMIN, KUBECTL } from '../phases/interrupted';
import { and, raw, sh, type RemoteCommand } from '../ssh/command';

export { ADMIN, KUBECTL };

const ETCD_TLS = '--cacert=/etc/kubernetes/pki/etcd/ca.crt --cert=/etc/kubernetes/pki/etcd/server.crt --key=/etc/kubernetes/pki/etcd/server.key';

/** etcdctl in `helper`'s etcd pod, against its own member (it answers while it has the quorum). */
export function etcdctlIn(helper: string, args: RemoteCommand): RemoteCommand {
  return sh`${KUBECTL} -n kube-system exec ${'etcd-' + helper} -- etcdctl --endpoints=https://127.0.0.1:2379 ${raw(ETCD_TLS)} ${args}`;
}

/** Exits 0 when no member has this ID (`member list` prints IDs in hex, as the model keeps them). */
export function memberAbsent(helper: string, memberId: string): RemoteCommand {
  return sh`members=$(${etcdctlIn(helper, sh`member list`)}) && ! echo "$members" | cut -d, -f1 | grep -qix ${memberId}`;
}

/** `member remove` by ID; tried again when its answer was lost, and done once the member is gone. */
export function memberRemove(helper: string, memberId: string): RemoteCommand {
  return retried(sh`{ ${memberAbsent(helper, memberId)} || ${etcdctlIn(helper, sh`member remove ${memberId}`)}; }`);
}

/**
 * Exits 0 only when the API answered and has no such Node: a request that failed (a timeout through the VIP while
 * an API server behind it restarts) is not taken for "gone".
 */
export function nodeAbsent(node: string): RemoteCommand {
  return sh`out=$(${KUBECTL} get ${'node/' + node} --ignore-not-found -o name --request-timeout=15s) && test -z "$out"`;
}

/** Up to 5 tries, 3 s apart, of an idempotent command whose request may fail on its way through the VIP. */
function retried(cmd: RemoteCommand): RemoteCommand {
  return sh`i=0; until ${cmd}; do i=$((i+1)); if [ $i -ge 5 ]; then exit 1; fi; sleep 3; done`;
}

/**
 * kubectl drain: evictions honour PodDisruptionBudgets (retried until the timeout), DaemonSet pods stay,
 * emptyDir data goes with its pod. Bare pods are refused (no --force): the user decides about them. A pod
 * on a dead node never finishes terminating; after 30 s of deletion kubectl stops waiting for it.
 */
export function drainNode(node: string, timeoutSeconds: number): RemoteCommand {
  return sh`${KUBECTL} drain ${node} --ignore-daemonsets --delete-emptydir-data --timeout=${`${timeoutSeconds}s`} --skip-wait-for-delete-timeout=30 --request-timeout=30s`;
}

export function deleteNode(node: string): RemoteCommand {
  return retried(sh`${KUBECTL} delete ${'node/' + node} --ignore-not-found --request-timeout=30s`);
}

const STATIC_PODS = ['kube-apiserver', 'kube-controller-manager', 'kube-scheduler'];
const ASIDE = '/etc/kubernetes/manifests.removed';

/**
 * The API server, controller-manager and scheduler stop (their manifests moved aside), so the leader leases
 * the node holds move to the others and HAProxy stops sending it requests. etcd keeps running: stopping it
 * before its member is removed would count it against the quorum in the meantime.
 */
export function stopControlPlanePods(): RemoteCommand {
  return sh`mkdir -p ${ASIDE} && for f in ${STATIC_PODS}; do if test -e /etc/kubernetes/manifests/$f.yaml; then mv /etc/kubernetes/manifests/$f.yaml ${ASIDE}/; fi; done`;
}

export function controlPlanePodsStopped(): RemoteCommand {
  return sh`for f in ${STATIC_PODS}; do ! test -e /etc/kubernetes/manifests/$f.yaml || exit 1; done`;
}

export function controlPlanePodsGone(): RemoteCommand {
  return sh`! crictl ps -q --state running --name '^kube-(apiserver|controller-manager|scheduler)$' 2>/dev/null | grep -q .`;
}

/** Exits 0 when the scheduler's and the controller-manager's leases are held, and not by `node`. */
export function leasesHeldElsewhere(node: string): RemoteCommand {
  return sh`for l in kube-scheduler kube-controller-manager; do h=$(${KUBECTL} -n kube-system get lease $l -o jsonpath='{.spec.holderIdentity}' --request-timeout=10s) || exit 1; case "$h" in '' | ${node}_*) echo "$l is held by \${h:-nobody}" >&2; exit 1;; esac; done`;
}

/**
 * kubeadm reset, then what it leaves by design (its own closing note): the CNI configuration, the iptables
 * rules of kube-proxy and the CNI (only those: the host's own firewall stays), IPVS tables, the CNI's
 * interfaces, etcd's data of a stacked member and root's kubeconfig. The CNI folder is emptied, not removed, and
 * containerd restarted: containerd watches that folder, and with it deleted a node joined again stayed NotReady ("cni
 * plugin not initialized") although flannel wrote its configuration back (seen on the lab).
 */
export function resetHost(): RemoteCommand {
  const iptables = raw(
    'for t in iptables ip6tables; do command -v $t-save >/dev/null 2>&1 || continue; $t-save | grep -viE "kube-|flannel|cni-|calico" | $t-restore || exit 1; done',
  );
  return sh`kubeadm reset -f && { test ! -d /var/lib/etcd || find /var/lib/etcd -mindepth 1 -delete; } && { test ! -d /etc/cni/net.d || find /etc/cni/net.d -mindepth 1 -delete; } && rm -rf /root/.kube/config ${ASIDE} && ${iptables} && { ! command -v ipvsadm >/dev/null 2>&1 || ipvsadm --clear; } && for i in cni0 flannel.1 flannel-v6.1 kube-ipvs0; do ! ip link show $i >/dev/null 2>&1 || ip link delete $i; done && { ! systemctl is-active -q containerd || systemctl restart containerd; }`;
}

/** Exits 0 when nothing of a Kubernetes node is left: no kubelet credentials, no PKI, no manifests, no CNI config. */
export function hostIsReset(): RemoteCommand {
  return sh`! test -e /etc/kubernetes/kubelet.conf && ! test -e /etc/kubernetes/pki/ca.crt && test -z "$(ls -A /etc/kubernetes/manifests 2>/dev/null)" && test -z "$(ls -A /etc/cni/net.d 2>/dev/null)" && ! systemctl is-active -q kubelet`;
}

export const HAPROXY_CONFIG = '/etc/haproxy/haproxy.cfg';
export const HAPROXY_STAGED = '/etc/haproxy/haproxy.cfg.kubeadm-workbench';
export const HAPROXY_SOCKET = '/run/haproxy/admin.sock';

const PERL_SHOW_STAT = 'my $s = IO::Socket::UNIX->new(Peer => $ARGV[0]) or die "cannot connect to $ARGV[0]: $!\\n"; print $s "show stat\\n"; print while <$s>;';

/** `show stat` (CSV) through the admin socket: socat when there, else perl (Essential on Debian). */
export function showStat(): RemoteCommand {
  return sh`if command -v socat >/dev/null 2>&1; then echo 'show stat' | socat stdio ${`unix-connect:${HAPROXY_SOCKET}`}; else perl -MIO::Socket::UNIX -e ${PERL_SHOW_STAT} ${HAPROXY_SOCKET}; fi`;
}

const PERL_ADMIN = 'my $s = IO::Socket::UNIX->new(Peer => $ARGV[0]) or die "cannot connect to $ARGV[0]: $!\\n"; print $s "$ARGV[1]\\n"; print while <$s>;';

/** One admin-socket command (socat when there, else perl, Essential on Debian); its answer on stdout. */
export function haproxyAdmin(command: string): RemoteCommand {
  return sh`if command -v socat >/dev/null 2>&1; then echo ${command} | socat stdio ${`unix-connect:${HAPROXY_SOCKET}`}; else perl -MIO::Socket::UNIX -e ${PERL_ADMIN} ${HAPROXY_SOCKET} ${command}; fi`;
}

/** The server's status column in `show stat` (UP, DOWN, MAINT, DRAIN, …), found by the header's name. */
function serverStatus(backend: string, server: string): RemoteCommand {
  return sh`${haproxyAdmin('show stat')} | awk -F, -v b=${backend} -v s=${server} 'NR == 1 { for (i = 1; i <= NF; i++) if ($i == "status") c = i } $1 == b && $2 == s { print $c }'`;
}

/** Exits 0 when HAProxy's status of the server starts with `want` (MAINT, UP). */
export function serverIs(backend: string, server: string, want: 'MAINT' | 'UP'): RemoteCommand {
  return sh`st=$(${serverStatus(backend, server)}) && case "$st" in ${want}*) ;; *) echo ${server} is "\${st:-missing}" >&2; exit 1;; esac`;
}

/**
 * Takes the server out of the backend: no new connection goes to it, HAProxy stops checking it. A command the
 * socket refuses prints its reason (an unknown server) instead of failing, so the answer is checked too.
 */
export function setServerState(backend: string, server: string, state: 'maint' | 'ready'): RemoteCommand {
  return sh`out=$(${haproxyAdmin(`set server ${backend}/${server} state ${state}`)}) || exit 1; test -z "$(echo "$out" | tr -d '[:space:]')" || { echo "$out" >&2; exit 1; }`;
}

/**
 * Closes every session HAProxy holds to the server. Maintenance only stops new connections: a client's keep-alive
 * connection through the VIP (what HTTP clients reuse between requests) stays on the server it was opened to, and
 * would be answered by an API server whose etcd is restarting (seen on the lab: /readyz 500 and timeouts on such a
 * connection while every new one went elsewhere). Closed, the client's next request opens a connection to another one.
 */
export function shutdownSessions(backend: string, server: string): RemoteCommand {
  return sh`out=$(${haproxyAdmin(`shutdown sessions server ${backend}/${server}`)}) || exit 1; test -z "$(echo "$out" | tr -d '[:space:]')" || { echo "$out" >&2; exit 1; }`;
}

/** Exits 0 when HAProxy holds no session to the server (`scur`, the current sessions, is 0). */
export function serverHasNoSessions(backend: string, server: string): RemoteCommand {
  return sh`n=$(${haproxyAdmin('show stat')} | awk -F, -v b=${backend} -v s=${server} 'NR == 1 { for (i = 1; i <= NF; i++) if ($i == "scur") c = i } $1 == b && $2 == s { print $c }') && test "$n" = 0 || { echo ${server} has "\${n:-no}" sessions >&2; exit 1; }`;
}

/**
 * A control-plane node's server out of the backend for its restarts: in maintenance (no new connection) and its open
 * sessions closed (a keep-alive connection opened earlier moves too). The renewal and the upgrade take it out this way.
 */
export function takeServerOut(backend: string, server: string): RemoteCommand {
  return and(setServerState(backend, server, 'maint'), shutdownSessions(backend, server));
}

/** What `takeServerOut` leaves: the server in maintenance and no session held to it. */
export function serverIsOut(backend: string, server: string): RemoteCommand {
  return and(serverIs(backend, server, 'MAINT'), serverHasNoSessions(backend, server));
}

/** Staged config checked by HAProxy's own parser, then put in place and reloaded (connections are kept). */
export function installHaproxyConfig(): RemoteCommand {
  return sh`haproxy -c -q -f ${HAPROXY_STAGED} && mv ${HAPROXY_STAGED} ${HAPROXY_CONFIG} && systemctl reload haproxy`;
}

/**
 * The running HAProxy's backend, read through the admin socket, has exactly these servers (by name), and
 * those in `mustBeUp` are UP. Columns are found by the CSV header's names.
 */
export function backendServers(backend: string, servers: readonly string[], mustBeUp: readonly string[] = []): RemoteCommand {
  const want = [...servers].sort().join(' ');
  return sh`stat=$(${showStat()}) || exit 1; got=$(echo "$stat" | awk -F, -v b=${backend} '$1 == b && $2 != "BACKEND" && $2 != "FRONTEND" { print $2 }' | sort | tr '\n' ' ' | sed 's/ $//'); test "$got" = ${want} || { echo ${`servers of ${backend}:`} "$got" >&2; exit 1; }; for s in ${[...mustBeUp]}; do st=$(echo "$stat" | awk -F, -v b=${backend} -v s="$s" 'NR == 1 { for (i = 1; i <= NF; i++) if ($i == "status") c = i } $1 == b && $2 == s { print $c }'); case "$st" in UP*) ;; *) echo "$s is \${st:-missing}" >&2; exit 1;; esac; done`;
}
