/**
 * The remote side of an etcd backup, as constant scripts run with `sh -c SCRIPT kw ARG` (the only
 * argument is a timestamp we generate, or the snapshot path the host printed and we validated).
 *
 * The snapshot is written into etcd's data directory (read from the static pod manifest; default
 * /var/lib/etcd): kubeadm mounts it into the etcd container at the same path, so the host's etcdctl and
 * the container's (through crictl, when the host has none) write the same file. Mode 0600, removed again
 * after the copy has arrived.
 */
import { t } from '../l10n';
import { sh, type RemoteCommand } from '../ssh/command';

const ETCDCTL_TLS =
  '--endpoints=https://127.0.0.1:2379 --cacert=/etc/kubernetes/pki/etcd/ca.crt --cert=/etc/kubernetes/pki/etcd/healthcheck-client.crt --key=/etc/kubernetes/pki/etcd/healthcheck-client.key --dial-timeout=5s --command-timeout=600s';

const SAVE_SCRIPT = [
  'set -e',
  "d=$(sed -n 's/^[[:space:]]*- --data-dir=//p' /etc/kubernetes/manifests/etcd.yaml 2>/dev/null | head -n1)",
  '[ -n "$d" ] || d=/var/lib/etcd',
  'f="$d/kw-snapshot-$1.db"',
  `tls='${ETCDCTL_TLS}'`,
  'c=$(crictl ps -q --name \'^etcd$\' --state running 2>/dev/null | head -n1 || true)',
  'umask 077',
  'if command -v etcdctl >/dev/null 2>&1; then ETCDCTL_API=3 etcdctl $tls snapshot save "$f" >&2',
  'elif [ -n "$c" ]; then crictl exec "$c" etcdctl $tls snapshot save "$f" >&2',
  "else echo 'no etcdctl on the host and no running etcd container' >&2; exit 127; fi",
  'chmod 600 "$f"',
  "printf '\\036kw-path %s\\n' \"$f\"",
  // etcdutl: the host's, else the one in the etcd image (registry.k8s.io/etcd ships it); etcdctl ≤ 3.5 still has `snapshot status`.
  "printf '\\036kw-status '",
  'if command -v etcdutl >/dev/null 2>&1; then echo "etcdutl on the host"; etcdutl snapshot status "$f" -w json 2>&1 || true',
  'elif [ -n "$c" ] && crictl exec "$c" etcdutl version >/dev/null 2>&1; then echo "etcdutl in the etcd container"; crictl exec "$c" etcdutl snapshot status "$f" -w json 2>&1 || true',
  'elif command -v etcdctl >/dev/null 2>&1 && ETCDCTL_API=3 etcdctl snapshot status "$f" -w json >/dev/null 2>&1; then echo "etcdctl on the host"; ETCDCTL_API=3 etcdctl snapshot status "$f" -w json',
  'else echo none; fi',
  "printf '\\036kw-size %s\\n' \"$(stat -c %s \"$f\")\"",
  "printf '\\036kw-sha256 %s\\n' \"$(sha256sum \"$f\" | cut -d' ' -f1)\"",
  "printf '\\036kw-revision '; if command -v etcdctl >/dev/null 2>&1; then ETCDCTL_API=3 etcdctl $tls endpoint status -w json 2>/dev/null || true; elif [ -n \"$c\" ]; then crictl exec \"$c\" etcdctl $tls endpoint status -w json 2>/dev/null || true; fi; echo",
].join('\n');

/** `etcdctl snapshot save` on the member of this host, then its status, size and SHA-256. */
export function snapshotSaveCommand(stamp: string): RemoteCommand {
  if (!/^\d{8,20}$/.test(stamp)) throw new Error(t('bad snapshot stamp {0}', stamp));
  return sh`sh -c ${SAVE_SCRIPT} kw ${stamp}`;
}

/** A path printed by the save script: absolute, ours by name, nothing a shell or a `..` could bend. */
export function isSnapshotPath(path: string): boolean {
  return /^\/[A-Za-z0-9._/-]*\/kw-snapshot-\d{8,20}\.db$/.test(path) && !path.split('/').includes('..');
}

/** The snapshot's raw bytes on stdout (an SSH channel is binary-safe; the caller takes them with ExecOptions.stdoutTo). */
export function snapshotReadCommand(path: string): RemoteCommand {
  if (!isSnapshotPath(path)) throw new Error(t('refusing to read {0}: not a snapshot this tool wrote', path));
  return sh`cat -- ${path}`;
}

export function snapshotRemoveCommand(path: string): RemoteCommand {
  if (!isSnapshotPath(path)) throw new Error(t('refusing to remove {0}: not a snapshot this tool wrote', path));
  return sh`rm -f -- ${path}`;
}

/** What a restore needs besides the snapshot: the etcd CA certificate (public) and kubeadm's ClusterConfiguration. */
export function restoreContextCommand(): RemoteCommand {
  return sh`sh -c ${[
    "printf '\\036kw-etcd-ca\\n'; cat /etc/kubernetes/pki/etcd/ca.crt 2>/dev/null || true",
    "printf '\\036kw-cluster-configuration\\n'",
    "if command -v kubectl >/dev/null 2>&1; then kubectl --kubeconfig=/etc/kubernetes/admin.conf -n kube-system get configmap kubeadm-config -o 'jsonpath={.data.ClusterConfiguration}' --request-timeout=10s 2>/dev/null || true; fi",
  ].join('\n')}`;
}

/** Splits `\x1ekw-NAME rest` sections of a script's output: name → text after the marker (same line + following lines). */
export function markedSections(stdout: string): Map<string, string> {
  const out = new Map<string, string>();
  let name: string | undefined;
  let buf: string[] = [];
  const flush = () => name !== undefined && out.set(name, buf.join('\n').trim());
  for (const line of stdout.split('\n')) {
    const m = /^\u001ekw-([a-z0-9-]+) ?(.*)$/.exec(line);
    if (m) {
      flush();
      name = m[1]!;
      buf = m[2] ? [m[2]] : [];
    } else if (name !== undefined) buf.push(line);
  }
  flush();
  return out;
}
