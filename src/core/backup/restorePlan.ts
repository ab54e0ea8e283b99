/**
 * Disaster recovery from an etcd snapshot, as a plan. Every control-plane node at once, because etcd's
 * members must come back together to form a quorum:
 *  0. the snapshot sent to every member as a stream, checked there by its size and SHA-256 (while the API still
 *     answers, if it does: the outage starts at step 1; a re-run skips a node that has it already);
 *  1. stop the API servers and etcd (their static pod manifests moved to manifests.kw-restore/);
 *  2. on every member, its SHA-256 checked again, then `etcdutl snapshot restore` of it with the member's own --name and
 *     --initial-advertise-peer-urls, the full --initial-cluster and a fresh --initial-cluster-token, into
 *     a new data dir that then takes the old one's place (the old one is kept aside, renamed);
 *  3. etcd back on every node, healthy; the member list checked (voting members, one leader);
 *  4. the API servers back, /readyz; then every Node Ready.
 * Steps 1–2 lose nothing on resume: the moved manifests and the kept-aside data dir stay until the end.
 * The members are the inventory's control-plane hosts (core/backup/manifest.ts inventoryMembers), never a manifest's.
 */
import { t } from '../l10n';
import { sh, type RemoteCommand } from '../ssh/command';
import type { Plan, PhasePlan, Step, StreamedFile } from '../plan/types';
import { etcdctlCommand } from '../drill/commands';
import { etcdctlTlsArgs } from '../live/etcdSource';
import { etcdutlAvailableCommand, RESOLVE_ETCDUTL } from './etcdutl';

export interface RestoreMember {
  host: string;
  /** The etcd member name (kubeadm: the node name). */
  name: string;
  peerURL: string;
}

export interface RestoreHooks {
  /** After etcd is back everywhere: the member list has every member voting and one leader (throws otherwise). */
  checkMembers(signal?: AbortSignal): Promise<void>;
  /** After the API servers are back: /readyz on each node and through the endpoint. */
  apiBack(host: string, signal?: AbortSignal): Promise<void>;
}

export interface RestoreInput {
  members: RestoreMember[];
  /** The snapshot: sent to every member as a stream, its SHA-256 checked there before it is used. */
  snapshot: Pick<StreamedFile, 'size' | 'open' | 'onProgress'>;
  sha256: string;
  /** Digits only: names the token, the new and the kept-aside data dirs. */
  stamp: string;
  fingerprint: string;
}

const MOVED = '/etc/kubernetes/manifests.kw-restore';
const WORK = '/var/lib/kw-restore';
/** Where the snapshot waits on each member. */
export const SNAPSHOT_ON_NODE = `${WORK}/snapshot.db`;

/** The data dir from the etcd manifest (wherever it is now), default /var/lib/etcd. Constant script text. */
const DATA_DIR = `d=$(sed -n 's/^[[:space:]]*- --data-dir=//p' /etc/kubernetes/manifests/etcd.yaml ${MOVED}/etcd.yaml 2>/dev/null | head -n1); [ -n "$d" ] || d=/var/lib/etcd`;

export function stopControlPlaneCommand(): RemoteCommand {
  return sh`mkdir -p ${MOVED} && for c in kube-apiserver etcd; do if [ -f /etc/kubernetes/manifests/$c.yaml ]; then mv /etc/kubernetes/manifests/$c.yaml ${MOVED}/; fi; done`;
}

export function stoppedCommand(): RemoteCommand {
  return sh`! crictl ps -q --name '^(kube-apiserver|etcd)$' --state running | grep -q .`;
}

export function initialCluster(members: readonly RestoreMember[]): string {
  return members.map((m) => `${m.name}=${m.peerURL}`).join(',');
}

export function restoreMemberCommand(m: RestoreMember, members: readonly RestoreMember[], sha256: string, stamp: string): RemoteCommand {
  if (!/^\d{8,20}$/.test(stamp)) throw new Error(t('bad stamp {0}', stamp));
  if (!/^[0-9a-f]{64}$/.test(sha256)) throw new Error(t('bad sha256'));
  const token = `kw-restore-${stamp}`;
  return sh`sh -c ${[
    'set -e',
    DATA_DIR,
    `cd ${WORK}`,
    'echo "$1  snapshot.db" | sha256sum -c --status - || { echo "snapshot.db on this node is not the snapshot sent (its sha256 differs): run the restore again to send it anew" >&2; exit 1; }',
    'new="$d.kw-restore-$2"; rm -rf "$new"',
    // Revisions must not go back for the API servers' and controllers' watches: bump them past anything
    // served before and mark them compacted, so every informer relists (etcdutl >= 3.5.13 / 3.6).
    // etcdutl: the host's, else the cluster's own etcd image's (core/backup/etcdutl.ts): nothing to install.
    RESOLVE_ETCDUTL,
    'echo "etcdutl from $etcdutl_from"',
    'bump=""; if "$etcdutl" snapshot restore --help 2>&1 | grep -q -- --bump-revision; then bump="--bump-revision 1000000000 --mark-compacted"; fi',
    '"$etcdutl" snapshot restore snapshot.db --name "$3" --initial-cluster "$4" --initial-advertise-peer-urls "$5" --initial-cluster-token "$6" --data-dir "$new" $bump',
    'if [ -d "$d" ]; then mv "$d" "$d.kw-before-restore-$2"; fi',
    'mv "$new" "$d"',
    'rm -f snapshot.db',
    'echo "restored into $d; the previous data dir is kept at $d.kw-before-restore-$2"',
  ].join('\n')} kw ${sha256} ${stamp} ${m.name} ${initialCluster(members)} ${m.peerURL} ${token}`;
}

export function startEtcdCommand(): RemoteCommand {
  return sh`if [ -f ${MOVED}/etcd.yaml ]; then mv ${MOVED}/etcd.yaml /etc/kubernetes/manifests/; fi`;
}

export function startApiServerCommand(): RemoteCommand {
  return sh`if [ -f ${MOVED}/kube-apiserver.yaml ]; then mv ${MOVED}/kube-apiserver.yaml /etc/kubernetes/manifests/; fi; rmdir ${MOVED} 2>/dev/null || true`;
}

export function nodesReadyCommand(): RemoteCommand {
  return sh`kubectl --kubeconfig=/etc/kubernetes/admin.conf get nodes --no-headers --request-timeout=5s | awk 'BEGIN {n=0} {n++} $2 !~ /^Ready/ {bad=1} END {exit (bad || n == 0)}'`;
}

/**
 * What the restore needs on a member, before anything is asked or changed: etcdutl — the host's, or the one in the
 * cluster's etcd image (core/backup/etcdutl.ts; its first line says which) — and, on the last line, the free bytes
 * where the snapshot and the new data dir go. Exits 1 saying why when there is no etcdutl.
 */
export function restorePreflightCommand(): RemoteCommand {
  return sh`${etcdutlAvailableCommand()} && df -B1 --output=avail /var/lib | tail -n1`;
}

/** The snapshot is on the node already, as sent (a resumed run does not send gigabytes again). */
export function snapshotOnNodeCommand(sha256: string): RemoteCommand {
  if (!/^[0-9a-f]{64}$/.test(sha256)) throw new Error(t('bad sha256'));
  return sh`test -f ${SNAPSHOT_ON_NODE} && echo ${`${sha256}  ${SNAPSHOT_ON_NODE}`} | sha256sum -c --status -`;
}

export function buildRestorePlan(input: RestoreInput, hooks: RestoreHooks): Plan {
  const { members } = input;
  const phase = (title: string, steps: Step[], warnings: string[] = []): PhasePlan => ({ phase: 'restore-etcd', title, order: 'parallel', steps, warnings });
  const first = members[0]!.host;
  return {
    fingerprint: input.fingerprint,
    phases: [
      phase(
        t('Send the snapshot to every member (a stream, checked there by its size and SHA-256)'),
        members.map((m) => ({
          id: `restore-etcd/${m.host}/send`,
          phase: 'restore-etcd',
          host: m.host,
          title: t('snapshot.db to {0} ({1} bytes)', SNAPSHOT_ON_NODE, input.snapshot.size),
          check: snapshotOnNodeCommand(input.sha256),
          stream: { ...input.snapshot, path: SNAPSHOT_ON_NODE, mode: 0o600, sha256: input.sha256, label: t('snapshot.db of the backup') },
          timeoutMs: 60 * 60_000,
        })),
        [t('The cluster keeps running while the snapshot is sent; nothing stops before every member has it.')],
      ),
      phase(
        t('Stop the API servers and etcd on every control-plane node (manifests moved aside)'),
        members.map((m) => ({ id: `restore-etcd/${m.host}/stop`, phase: 'restore-etcd', host: m.host, title: t('stop kube-apiserver and etcd'), run: stopControlPlaneCommand(), verify: stoppedCommand(), verifyTimeoutMs: 120_000 })),
        [t('The API is unavailable from here until the API servers come back; the workloads keep running.')],
      ),
      phase(
        t('Restore the snapshot on every member (new data dir; the old one kept aside)'),
        members.map((m) => ({
          id: `restore-etcd/${m.host}/restore`,
          phase: 'restore-etcd',
          host: m.host,
          title: t('etcdutl snapshot restore as {0} ({1})', m.name, m.peerURL),
          run: restoreMemberCommand(m, members, input.sha256, input.stamp),
          timeoutMs: 10 * 60_000,
        })),
      ),
      phase(
        t('Start etcd on every node together (a lone member cannot elect a leader)'),
        members.map((m) => ({ id: `restore-etcd/${m.host}/etcd`, phase: 'restore-etcd', host: m.host, title: t('etcd back, healthy'), run: startEtcdCommand(), verify: etcdctlCommand([...etcdctlTlsArgs(), 'endpoint', 'health']), verifyTimeoutMs: 240_000 })),
      ),
      phase(t('Check the members'), [
        { id: `restore-etcd/${first}/members`, phase: 'restore-etcd', host: first, title: t('every member voting, one leader'), planDisplay: 'etcdctl member list + endpoint status --cluster', action: (_v, s) => hooks.checkMembers(s) },
      ]),
      phase(
        t('Start the API servers'),
        members.map((m) => ({ id: `restore-etcd/${m.host}/apiserver`, phase: 'restore-etcd', host: m.host, title: t('kube-apiserver back, /readyz'), run: startApiServerCommand(), planDisplay: t('then GET https://<node>:6443/readyz until ok'), action: (_v, s) => hooks.apiBack(m.host, s) })),
      ),
      phase(t('Verify'), [{ id: `restore-etcd/${first}/nodes`, phase: 'restore-etcd', host: first, title: t('every Node Ready'), run: sh`true`, verify: nodesReadyCommand(), verifyTimeoutMs: 300_000 }]),
    ],
  };
}
