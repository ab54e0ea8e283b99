/**
 * An etcd backup: which member to take it from, how to check the file that arrived, and the manifest that
 * goes next to it (what a restore needs to know: cluster, members, etcd version, revision, time).
 *
 * A snapshot streamed by etcd's Maintenance.Snapshot (what `etcdctl snapshot save` writes) ends with the
 * SHA-256 of the database before it: the file is a bbolt database (a multiple of its 4 KiB pages, so of
 * 512) plus those 32 bytes. `etcdutl snapshot restore` checks that trailer; we check it on the copy that
 * arrived, so a truncated or corrupted transfer is caught here and not during a disaster.
 */
import { createHash, type Hash } from 'node:crypto';
import type { Inventory } from '../inventory/types';
import type { EtcdMember, EtcdModel } from '../live/etcd';
import { t } from '../l10n';

export const TRAILER_BYTES = 32;

/** Streams a snapshot's bytes; answers the file's SHA-256 and whether its trailer matches its body. */
export class SnapshotChecksum {
  private readonly whole: Hash = createHash('sha256');
  private readonly body: Hash = createHash('sha256');
  /** The last 32 bytes seen so far (the trailer candidate): held back from `body`. */
  private tail = Buffer.alloc(0);
  size = 0;

  update(chunk: Buffer): void {
    this.whole.update(chunk);
    this.size += chunk.length;
    const joined = Buffer.concat([this.tail, chunk]);
    const keep = Math.min(TRAILER_BYTES, joined.length);
    this.body.update(joined.subarray(0, joined.length - keep));
    this.tail = Buffer.from(joined.subarray(joined.length - keep));
  }

  digest(): { size: number; sha256: string; trailer: 'verified' | 'mismatch' | 'absent' } {
    const sha256 = this.whole.digest('hex');
    if (this.size % 512 !== TRAILER_BYTES || this.tail.length !== TRAILER_BYTES) return { size: this.size, sha256, trailer: 'absent' };
    return { size: this.size, sha256, trailer: this.body.digest().equals(this.tail) ? 'verified' : 'mismatch' };
  }
}

/** `etcdutl snapshot status -w json`: `{"hash":…,"revision":…,"totalKey":…,"totalSize":…,"version":"3.6.0"}`. */
export interface SnapshotStatus {
  hash: number;
  revision: number;
  totalKey: number;
  totalSize: number;
  version?: string;
}

export function parseSnapshotStatus(text: string): SnapshotStatus | undefined {
  const line = text
    .split('\n')
    .map((l) => l.trim())
    .find((l) => l.startsWith('{') && l.includes('"revision"'));
  if (!line) return undefined;
  try {
    const o = JSON.parse(line) as Record<string, unknown>;
    const n = (k: string) => (typeof o[k] === 'number' ? (o[k] as number) : undefined);
    const [hash, revision, totalKey, totalSize] = [n('hash'), n('revision'), n('totalKey'), n('totalSize')];
    if (hash === undefined || revision === undefined || totalKey === undefined || totalSize === undefined) return undefined;
    return { hash, revision, totalKey, totalSize, ...(typeof o.version === 'string' && o.version !== '' ? { version: o.version } : {}) };
  } catch {
    return undefined;
  }
}

export type SnapshotSource = { ok: true; member: EtcdMember; host: string; why: string } | { ok: false; reasons: string[] };

/**
 * A healthy follower when there is one (a snapshot reads the whole database: the leader keeps serving
 * the cluster's writes undisturbed), else the healthy leader. Only members that map to an inventory
 * control-plane host qualify: the snapshot is taken over SSH on that host.
 */
export function chooseSnapshotSource(etcd: EtcdModel, inv: Inventory): SnapshotSource {
  const cps = new Set(inv.hosts.filter((h) => h.roles.includes('control-plane')).map((h) => h.name));
  const usable = etcd.members.filter((m) => m.healthy && m.reachable && !m.isLearner && m.host && cps.has(m.host));
  const follower = usable.find((m) => !m.isLeader);
  if (follower) return { ok: true, member: follower, host: follower.host!, why: t('a healthy follower (the leader {0} keeps serving writes undisturbed)', etcd.members.find((m) => m.isLeader)?.name ?? '?') };
  const leader = usable.find((m) => m.isLeader);
  if (leader) return { ok: true, member: leader, host: leader.host!, why: t('the leader: no healthy follower answers') };
  const reasons = [t('no healthy etcd member on an inventory control-plane host answers; nothing to take a consistent snapshot from')];
  if (etcd.tolerates < 0) reasons.push(t('quorum is lost ({0})', etcd.quorumLine));
  return { ok: false, reasons };
}

export interface BackupManifest {
  kind: 'kubeadm-workbench/etcd-backup';
  version: 1;
  cluster: string;
  controlPlaneEndpoint: string;
  /** ISO time the snapshot was taken. */
  takenAt: string;
  durationMs: number;
  host: string;
  member: { id: string; name: string; wasLeader: boolean };
  clusterId?: string;
  etcdVersion?: string;
  members: { id: string; name: string; host?: string; peerURLs: string[]; clientURLs: string[]; isLearner: boolean }[];
  /** From `etcdutl snapshot status` (absent when no etcdutl was found; `revisionAtSave` still says where it stood). */
  status?: SnapshotStatus;
  statusFrom: string;
  revisionAtSave?: number;
  snapshot: { file: string; size: number; sha256: string; trailer: 'verified' | 'absent' };
  /** Other files of the backup (etcd CA certificate, kubeadm ClusterConfiguration). */
  files: string[];
  warnings: string[];
}

/** `<cluster>-20261130T120501Z`: sortable, and only [A-Za-z0-9._-] whatever the cluster's name. */
export function backupDirName(cluster: string, at: Date): string {
  const safe = cluster.replace(/[^A-Za-z0-9._-]+/g, '-').replace(/^[.-]+/, '').slice(0, 60) || 'cluster';
  return `${safe}-${at.toISOString().replace(/[-:]/g, '').replace(/\.\d+Z$/, 'Z')}`;
}

export function membersOf(etcd: EtcdModel): BackupManifest['members'] {
  return etcd.members.map((m) => ({ id: m.id, name: m.name, ...(m.host ? { host: m.host } : {}), peerURLs: m.peerURLs, clientURLs: m.clientURLs, isLearner: m.isLearner }));
}
