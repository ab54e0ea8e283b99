/**
 * Where a restore finds etcdutl on a control-plane node, with nothing for the user to install: the host's own when it
 * has one, else the one in the cluster's etcd image — registry.k8s.io's etcd images carry etcd, etcdctl and etcdutl in
 * /usr/local/bin, and containerd holds that image on every control-plane node already (the kubelet pulled it), so an
 * air-gapped node has it too. The image is the one the etcd manifest names (wherever the restore moved the manifest);
 * containerd mounts it read-only (`ctr images mount`), the binary is copied out (static Go) and the mount removed. The
 * restore's own etcd is stopped by then, so a running etcd container cannot be asked (`crictl exec`) the way the backup
 * asks it.
 */
import { sh, type RemoteCommand } from '../ssh/command';

/** The restore's work directory on the node (it holds the uploaded snapshot too). */
export const RESTORE_WORK = '/var/lib/kw-restore';

/** The etcd manifest's image (wherever the restore moved the manifest), into `$img`; exits 1 saying why when none. */
const ETCD_IMAGE = [
  'img=$(sed -n \'s/^[[:space:]]*image:[[:space:]]*//p\' /etc/kubernetes/manifests/etcd.yaml /etc/kubernetes/manifests.kw-restore/etcd.yaml 2>/dev/null | head -n1 | tr -d "\\"\'")',
  'if [ -z "$img" ]; then echo "no etcdutl on the host, and no etcd manifest naming the cluster\'s etcd image" >&2; exit 1; fi',
  'if ! command -v ctr >/dev/null 2>&1; then echo "no etcdutl on the host, and no ctr to take it from the etcd image $img" >&2; exit 1; fi',
];

/**
 * Shell text for `sh -c` that sets `$etcdutl` (the command to run) and `$etcdutl_from` (where it came from), or exits 1
 * saying why there is none. Constant: no value of the caller is in it. Safe under `set -e` (the restore's script).
 */
export const RESOLVE_ETCDUTL = [
  `mkdir -p ${RESTORE_WORK}`,
  'if command -v etcdutl >/dev/null 2>&1; then etcdutl=etcdutl; etcdutl_from="the host"',
  'else',
  ...ETCD_IMAGE.map((l) => `  ${l}`),
  `  mnt=$(mktemp -d ${RESTORE_WORK}/etcd-image.XXXXXX) || exit 1`,
  '  if ! ctr -n k8s.io images mount "$img" "$mnt" >/dev/null 2>&1; then rmdir "$mnt" || true; echo "no etcdutl on the host, and containerd cannot mount the etcd image $img" >&2; exit 1; fi',
  `  if cp "$mnt/usr/local/bin/etcdutl" ${RESTORE_WORK}/etcdutl 2>/dev/null; then copied=0; else copied=1; fi`,
  '  ctr -n k8s.io images unmount --rm "$mnt" >/dev/null 2>&1 || true; rmdir "$mnt" 2>/dev/null || true',
  '  if [ "$copied" != 0 ]; then echo "no etcdutl on the host, and the etcd image $img has none in /usr/local/bin" >&2; exit 1; fi',
  `  etcdutl=${RESTORE_WORK}/etcdutl; etcdutl_from="the etcd image $img"`,
  'fi',
].join('\n');

/**
 * The restore's precheck, before anything is asked or changed: exits 0 and says where etcdutl will come from (the
 * host, or the etcd image — mounted read-only in a temporary folder, looked into and unmounted; nothing is copied), or
 * exits 1 saying why there is none.
 */
export function etcdutlAvailableCommand(): RemoteCommand {
  return sh`sh -c ${[
    'if command -v etcdutl >/dev/null 2>&1; then echo "etcdutl on the host"; exit 0; fi',
    ...ETCD_IMAGE,
    'mnt=$(mktemp -d) || exit 1',
    'if ! ctr -n k8s.io images mount "$img" "$mnt" >/dev/null 2>&1; then rmdir "$mnt"; echo "no etcdutl on the host, and containerd cannot mount the etcd image $img" >&2; exit 1; fi',
    'if [ -x "$mnt/usr/local/bin/etcdutl" ]; then found=1; else found=; fi',
    'ctr -n k8s.io images unmount --rm "$mnt" >/dev/null 2>&1; rmdir "$mnt" 2>/dev/null',
    'if [ -z "$found" ]; then echo "no etcdutl on the host, and the etcd image $img has none in /usr/local/bin" >&2; exit 1; fi',
    'echo "etcdutl from the etcd image $img"',
  ].join('\n')}`;
}
