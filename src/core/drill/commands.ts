/**
 * The remote commands of a failure drill, all from the `sh` template: the `stop` fault and its
 * restore, and the read-only probes (HAProxy's admin socket, etcdctl) the drill polls.
 */
import { sh, sudo, type RemoteCommand, type ShellValue, type SudoOptions } from '../ssh/command';

/**
 * The node stays up but Kubernetes on it dies as in a crash: kubelet stops (no heartbeats, nothing
 * restarts the pods), then every container is killed with SIGKILL (`crictl stop --timeout 0`), so
 * nothing shuts down gracefully — no leader lease is released, no connection closed politely. Pod
 * sandboxes and their network stay, as they would on a hung host.
 */
export function stopNodeCommand(): RemoteCommand {
  return sh`systemctl stop kubelet && ids=$(crictl ps -q 2>/dev/null) && if [ -n "$ids" ]; then crictl stop --timeout 0 $ids >/dev/null; fi && echo "kubelet stopped, $(echo $ids | wc -w) containers killed"`;
}

/** Restore after `stop`: containerd (in case) and kubelet, which restarts the static pods and the others. */
export function startNodeCommand(): RemoteCommand {
  return sh`systemctl start containerd kubelet && systemctl is-active kubelet`;
}

/** Read-only check that the `stop` fault can run and be undone here. */
export function stopPreflightCommand(): RemoteCommand {
  return sh`systemctl is-active -q kubelet && command -v crictl >/dev/null && echo ok`;
}

export type HaproxyProbeMethod = 'socat' | 'perl' | 'journal';

/** Which way to reach HAProxy's admin socket on a balancer: socat, else perl (Essential on Debian), else the journal. */
export function haproxyProbeDetectCommand(socket: string): RemoteCommand {
  return sh`if [ -S ${socket} ] && command -v socat >/dev/null 2>&1; then echo socat; elif [ -S ${socket} ] && perl -MIO::Socket::UNIX -e 1 2>/dev/null; then echo perl; else echo journal; fi; date +%s`;
}

const PERL_SHOW_STAT = 'my $s = IO::Socket::UNIX->new(Peer => $ARGV[0]) or die "cannot connect to $ARGV[0]: $!\\n"; print $s "show stat\\n"; print while <$s>;';

/** `show stat` through the admin socket, or HAProxy's "Server B/S is UP|DOWN" journal lines since `sinceEpoch`. */
export function haproxyProbeCommand(method: HaproxyProbeMethod, socket: string, sinceEpoch: number): RemoteCommand {
  if (method === 'socat') return sh`echo 'show stat' | socat stdio ${`unix-connect:${socket}`}`;
  if (method === 'perl') return sh`perl -MIO::Socket::UNIX -e ${PERL_SHOW_STAT} ${socket}`;
  return sh`journalctl -u haproxy.service --since ${`@${sinceEpoch}`} -o cat --no-pager -q | grep -E 'Server [^ ]+ is (UP|DOWN)' || true`;
}

export function readFileCommand(path: string): RemoteCommand {
  return sh`cat -- ${path}`;
}

/** etcdctl with the given arguments: the host's own when installed, else the one in the running etcd container. */
export function etcdctlCommand(args: readonly ShellValue[]): RemoteCommand {
  return sh`if command -v etcdctl >/dev/null 2>&1; then ETCDCTL_API=3 etcdctl ${args}; else c=$(crictl ps -q --name '^etcd$' --state running 2>/dev/null | head -n1); [ -n "$c" ] || { echo 'no etcdctl on the host and no running etcd container' >&2; exit 127; }; crictl exec "$c" etcdctl ${args}; fi`;
}

/** Through sudo when the login user is not root. */
export function asRoot(cmd: RemoteCommand, become: SudoOptions | undefined): RemoteCommand {
  return become ? sudo(cmd, become) : cmd;
}
