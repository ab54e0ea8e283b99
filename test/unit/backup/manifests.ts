/** A backup folder as `backup` writes it, for the restore tests: a snapshot-shaped file and a manifest that describes it. */
import { createHash } from 'node:crypto';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { BackupManifest } from '../../../src/core/backup/snapshot';
import { snapshotBytes } from './etcdHosts';
import { tempDir } from '../../tempDir';

/** The manifest `backup` writes for `snapshot` of the three-member cluster of etcdHosts.ts (members m01–m03 at .51–.53). */
export function manifestOf(snapshot: Buffer, cluster = 'labs-k8s'): BackupManifest {
  return {
    kind: 'kubeadm-workbench/etcd-backup',
    version: 1,
    cluster,
    controlPlaneEndpoint: '10.3.60.100:6443',
    takenAt: '2026-11-30T12:00:00.000Z',
    durationMs: 812,
    host: 'm02',
    member: { id: '8211f1d0f64f3269', name: 'm02', wasLeader: false },
    clusterId: 'cdf818194e3a8c32',
    etcdVersion: '3.6.5',
    members: ['m01', 'm02', 'm03'].map((n, i) => ({ id: `8e9e05c52164694${i}`, name: n, host: n, peerURLs: [`https://10.3.60.5${i + 1}:2380`], clientURLs: [`https://10.3.60.5${i + 1}:2379`], isLearner: false })),
    status: { hash: 3928411029, revision: 4321, totalKey: 1104, totalSize: snapshot.length - 32, version: '3.6.0' },
    statusFrom: 'etcdutl in the etcd container',
    revisionAtSave: 4321,
    snapshot: { file: 'snapshot.db', size: snapshot.length, sha256: createHash('sha256').update(snapshot).digest('hex'), trailer: 'verified' },
    files: ['etcd-ca.crt'],
    warnings: [],
  };
}

/**
 * A backup folder: snapshot.db and a manifest.json. `edit` changes the manifest's object (or replaces its text when
 * it returns a string); `corrupt` flips a byte of the snapshot after the manifest described it.
 */
export function backupFolder(opts: { cluster?: string; manifest?: false | ((m: BackupManifest) => BackupManifest | string | void); corrupt?: boolean; pages?: number } = {}): string {
  const dir = tempDir('kw-restore-');
  const snap = snapshotBytes(opts.pages ?? 5);
  const manifest = manifestOf(snap, opts.cluster);
  if (opts.corrupt) snap[100] ^= 1;
  writeFileSync(join(dir, 'snapshot.db'), snap);
  if (opts.manifest !== false) {
    const edited = opts.manifest?.(manifest);
    writeFileSync(join(dir, 'manifest.json'), typeof edited === 'string' ? edited : JSON.stringify(edited ?? manifest, null, 2));
  }
  return join(dir, 'snapshot.db');
}
