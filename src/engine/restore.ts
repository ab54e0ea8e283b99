/**
 * `restore`: checks before anything stops — the snapshot file (a regular file, hashed as a stream: etcd's own
 * SHA-256 trailer), its manifest (read through its schema, then held against the snapshot's size and SHA-256 and
 * against the inventory: core/backup/manifest.ts), etcdutl and room on every control-plane host, and the refusal
 * while etcd still has a healthy quorum (a restore throws away every write since the snapshot) unless forced —
 * then the plan of src/core/backup/restorePlan.ts with its gates bound to this cluster. The members are always
 * the inventory's control-plane hosts; the snapshot goes to each as a stream, never whole in memory.
 */
import { createHash } from 'node:crypto';
import { basename, dirname, join } from 'node:path';
import { lookAt } from '../adapters/fs/safeFile';
import { compareManifest, inventoryMembers } from '../core/backup/manifest';
import { buildRestorePlan, restorePreflightCommand, type RestoreMember } from '../core/backup/restorePlan';
import type { BackupManifest } from '../core/backup/snapshot';
import { asRoot } from '../core/drill/commands';
import { abortableSleep } from '../core/sleep';
import { splitEndpoint, type Inventory } from '../core/inventory/types';
import type { Plan } from '../core/plan/types';
import type { SudoOptions } from '../core/ssh/command';
import { ANY_EXIT_CODE, type SshTransport } from '../core/ssh/transport';
import { readEtcdOverSsh } from './backup';
import { readyz as readyzOver } from '../adapters/kube/readyz';
import { errorMessage } from '../core/errors';
import { t } from '../core/l10n';
import { hashSnapshot, readManifestFile, reopenSnapshot, type SnapshotDigest } from './backupFiles';

export interface RestoreDeps {
  inventory: Inventory;
  ssh: SshTransport;
  become: (host: string) => SudoOptions | undefined;
  readyz?: (address: string, port: number) => Promise<boolean>;
  say?: (line: string) => void;
  /** How long the API may take to answer after the restore (default 300 s). */
  apiWaitMs?: number;
  now?: () => Date;
  /** Told the bytes read while the snapshot is hashed, and sent to each member while it is sent (progress bars). */
  onHashProgress?: (read: number, size: number) => void;
  onSendProgress?: (host: string, sent: number) => void;
}

export interface RestorePreparation {
  plan: Plan;
  members: RestoreMember[];
  manifest?: BackupManifest;
  /** The snapshot's bytes (0 when it could not be read). */
  snapshotSize: number;
  /** etcd still had a healthy quorum when we looked. */
  quorumHealthy: boolean;
  /**
   * That quorum in words (`etcd still has a healthy quorum (…): a restore throws away …`), when it was healthy: a
   * forced preparation carries it among `warnings` as `<line>; forced`. Match this field, not the words.
   */
  healthyQuorumLine?: string;
  refusals: string[];
  warnings: string[];
}

/** The members to recreate: the inventory's control-plane hosts, named after their nodes as kubeadm names them. */
export function restoreMembers(inv: Inventory): RestoreMember[] {
  return inventoryMembers(inv);
}

/** The snapshot and its manifest against each other and the inventory; nothing is asked of a host here. */
async function checkBackupFiles(inv: Inventory, snapshotPath: string, onBytes?: (read: number, size: number) => void): Promise<{ digest?: SnapshotDigest; manifest?: BackupManifest; refusals: string[]; warnings: string[] }> {
  const refusals: string[] = [];
  const warnings: string[] = [];
  let digest: SnapshotDigest;
  try {
    digest = await hashSnapshot(snapshotPath, onBytes);
  } catch (e) {
    return { refusals: [errorMessage(e)], warnings };
  }
  if (digest.trailer !== 'verified') refusals.push(`${snapshotPath}: ${digest.trailer === 'mismatch' ? t("etcd's SHA-256 trailer does not match: the file is corrupt") : t('no SHA-256 trailer: not a snapshot taken by etcdctl snapshot save')}`);
  const manifestPath = join(dirname(snapshotPath), 'manifest.json');
  const present = (await lookAt(manifestPath)) !== undefined;
  if (!present) {
    warnings.push(t("no manifest.json next to {0}: nothing to hold the snapshot against but etcd's own checksum", snapshotPath));
    return { digest, refusals, warnings };
  }
  const read = await readManifestFile(manifestPath);
  if (!read.ok) return { digest, refusals: [...refusals, t('{0}. Restore from a backup folder whose manifest.json the backup wrote', read.problem)], warnings };
  const compared = compareManifest(read.manifest, { name: basename(snapshotPath), size: digest.size, sha256: digest.sha256 }, inv);
  // The file named once, then what differs.
  if (compared.refusals.length) refusals.push(`${manifestPath}: ${compared.refusals.join('; ')}`);
  warnings.push(...compared.warnings);
  return { digest, manifest: read.manifest, refusals, warnings };
}

export async function prepareRestore(deps: RestoreDeps, snapshotPath: string, force: boolean): Promise<RestorePreparation> {
  const inv = deps.inventory;
  const members = restoreMembers(inv);
  const files = await checkBackupFiles(inv, snapshotPath, deps.onHashProgress);
  const { manifest, refusals, warnings, digest } = files;
  // A snapshot that cannot be restored is refused before any host is asked anything.
  if (refusals.length || !digest) return { plan: { fingerprint: '', phases: [] }, members, ...(manifest ? { manifest } : {}), snapshotSize: digest?.size ?? 0, quorumHealthy: false, refusals, warnings };

  let quorumHealthy = false;
  let healthyQuorumLine: string | undefined;
  try {
    const etcd = await readEtcdOverSsh(deps);
    quorumHealthy = etcd.healthyVoting >= etcd.quorum;
    if (quorumHealthy) {
      // English while engine/workflows/restoreWorkflow.ts finds this warning by its words ("healthy quorum"); it is
      // to match healthyQuorumLine instead, and then this line is worded with t() like the refusal below.
      const line = `etcd still has a healthy quorum (${etcd.quorumLine}): a restore throws away every write since the snapshot${manifest ? ` (taken ${manifest.takenAt})` : ''}`;
      healthyQuorumLine = line;
      if (force) warnings.push(`${line}; forced`);
      else
        refusals.push(
          manifest
            ? t('etcd still has a healthy quorum ({0}): a restore throws away every write since the snapshot (taken {1}). Refused; pass --force to restore anyway', etcd.quorumLine, manifest.takenAt)
            : t('etcd still has a healthy quorum ({0}): a restore throws away every write since the snapshot. Refused; pass --force to restore anyway', etcd.quorumLine),
        );
    }
  } catch (e) {
    warnings.push(t('etcd does not answer ({0}): restoring is what this is for', errorMessage(e).split('\n')[0]));
  }
  // The snapshot waits on the node beside the new data dir etcdutl writes (about the snapshot's size again).
  const room = Math.ceil(digest.size * 2.1) + 64 * 1024 ** 2;
  await Promise.all(
    members.map(async (m) => {
      const r = await deps.ssh.exec(m.host, asRoot(restorePreflightCommand(), deps.become(m.host)), { okCodes: [...ANY_EXIT_CODE], timeoutMs: 20_000 }).catch((e: Error) => ({ code: -1, stdout: '', stderr: e.message }));
      if (r.code !== 0) return void refusals.push(t("{0}: {1} (put etcdutl of the cluster's etcd version into /usr/local/bin there)", m.host, r.stderr.trim().split('\n').pop() || t('no etcdutl on the host or in its etcd image')));
      const avail = Number(r.stdout.trim().split('\n').at(-1));
      if (Number.isFinite(avail) && avail < room) refusals.push(t('{0}: {1} MiB free in /var/lib, the restore needs {2} MiB there (the snapshot and the data dir restored from it): free some space first', m.host, (avail / 1024 ** 2).toFixed(0), (room / 1024 ** 2).toFixed(0)));
    }),
  );

  const readyz = deps.readyz ?? readyzOver;
  const addressOf = (host: string) => inv.hosts.find((h) => h.name === host)?.address ?? host;
  const ep = splitEndpoint(inv.cluster.controlPlaneEndpoint);
  const say = deps.say ?? (() => undefined);
  const stamp = (deps.now ?? (() => new Date()))().toISOString().replace(/\D/g, '').slice(0, 14);
  const plan = buildRestorePlan(
    {
      members,
      snapshot: { size: digest.size, open: () => reopenSnapshot(snapshotPath, digest), ...(deps.onSendProgress ? { onProgress: deps.onSendProgress } : {}) },
      sha256: digest.sha256,
      stamp,
      fingerprint: createHash('sha256').update(JSON.stringify({ inv, members, sha: digest.sha256 })).digest('hex').slice(0, 16),
    },
    {
      checkMembers: async () => {
        const etcd = await readEtcdOverSsh(deps);
        const problems: string[] = [];
        if (etcd.voting !== members.length) problems.push(t('{0} voting members, expected {1}', etcd.voting, members.length));
        if (!etcd.leaderId) problems.push(t('no leader'));
        if (etcd.healthyVoting !== etcd.voting) problems.push(t('{0} member(s) unhealthy', etcd.voting - etcd.healthyVoting));
        const names = etcd.members.map((m) => m.name).sort();
        if (JSON.stringify(names) !== JSON.stringify(members.map((m) => m.name).sort())) problems.push(t('members {0}', names.join(', ')));
        if (problems.length) throw new Error(t('etcd after the restore: {0}', problems.join('; ')));
        say(t('etcd: {0}; leader {1}', etcd.quorumLine, etcd.members.find((m) => m.isLeader)?.name));
      },
      apiBack: async (host, signal) => {
        const t0 = Date.now();
        const limit = deps.apiWaitMs ?? 300_000;
        const targets: [string, number][] = [[addressOf(host), 6443], ...(ep ? [[ep.host, ep.port] as [string, number]] : [])];
        for (const [a, p] of targets) {
          while (!(await readyz(a, p))) {
            if (Date.now() - t0 > limit) throw new Error(t('{0}:{1} did not answer /readyz within {2} s', a, p, limit / 1000));
            await abortableSleep(1000, signal); // removes its abort listener when it wakes: a long wait adds none
            if (signal?.aborted) throw new Error('cancelled');
          }
        }
        say(t('{0}: API server ready (and the endpoint) after {1} s', host, ((Date.now() - t0) / 1000).toFixed(1)));
      },
    },
  );
  return { plan, members, ...(manifest ? { manifest } : {}), snapshotSize: digest.size, quorumHealthy, ...(healthyQuorumLine ? { healthyQuorumLine } : {}), refusals, warnings };
}
