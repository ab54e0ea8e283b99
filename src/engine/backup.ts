/**
 * etcd backup: read the members over SSH, take `etcdctl snapshot save` on a healthy follower, read its
 * `etcdutl snapshot status`, pull it (its raw bytes over the SSH channel, streamed to disk with backpressure: a
 * chunk in memory whatever its size) into a folder of the
 * user's outside any git work tree, check the copy (size, SHA-256 against the host's, etcd's own SHA-256
 * trailer), remove it from the host, and write the manifest, the etcd CA certificate and kubeadm's
 * ClusterConfiguration next to it — every file 0600, the folder 0700: a snapshot holds every Secret of
 * the cluster.
 */
import { promises as fs } from 'node:fs';
import { Writable } from 'node:stream';
import { createNewFile, createNewFolder, createNewStream, ensureRealFolder, lookAt, removeCreatedFolder } from '../adapters/fs/safeFile';
import { gitTreeHolding } from '../adapters/fs/gitTree';
import { readManifest } from '../core/backup/manifest';
import { t } from '../core/l10n';
import { readManifestFile } from './backupFiles';
import { join, resolve } from 'node:path';
import {
  isSnapshotPath,
  markedSections,
  restoreContextCommand,
  snapshotReadCommand,
  snapshotRemoveCommand,
  snapshotSaveCommand,
} from '../core/backup/commands';
import { backupDirName, chooseSnapshotSource, membersOf, parseSnapshotStatus, SnapshotChecksum, type BackupManifest, type SnapshotSource } from '../core/backup/snapshot';
import { asRoot, etcdctlCommand } from '../core/drill/commands';
import { hostsWithRole, type Inventory } from '../core/inventory/types';
import { buildEtcd, parseEndpointStatus, type EtcdModel } from '../core/live/etcd';
import { num } from '../core/live/bigjson';
import { etcdctlTlsArgs, readEtcd } from '../core/live/etcdSource';
import type { RemoteCommand, SudoOptions } from '../core/ssh/command';
import { ANY_EXIT_CODE, type SshTransport } from '../core/ssh/transport';
import { errorMessage } from '../core/errors';

export interface BackupDeps {
  inventory: Inventory;
  ssh: SshTransport;
  become: (host: string) => SudoOptions | undefined;
  /** One line per step, for the terminal or the output channel. */
  say?: (line: string) => void;
  signal?: AbortSignal;
  now?: () => Date;
}

export interface BackupResult {
  dir: string;
  manifest: BackupManifest;
  /** Time from `snapshot save` to the verified copy on disk. */
  durationMs: number;
}

export class BackupRefused extends Error {}

/**
 * The git work tree (or repository) that holds `dir`, by its real path and by git itself — a link into a repository,
 * `GIT_DIR` and `core.worktree` included (src/adapters/fs/gitTree.ts) — if any.
 */
export async function gitWorkTreeOf(dir: string): Promise<string | undefined> {
  const tree = await gitTreeHolding(dir);
  return tree && (tree.how.startsWith('git ') ? `${tree.top} (${tree.how})` : tree.top);
}

/** Reads the etcd members through the first control-plane host that answers (`withAlarms`: `alarm list` too). */
export async function readEtcdOverSsh(deps: Pick<BackupDeps, 'inventory' | 'ssh' | 'become'>, withAlarms = false): Promise<EtcdModel> {
  const errors: string[] = [];
  for (const h of hostsWithRole(deps.inventory, 'control-plane')) {
    const run = async (args: string[]) => {
      const r = await deps.ssh.exec(h.name, asRoot(etcdctlCommand(args), deps.become(h.name)), { okCodes: [...ANY_EXIT_CODE], timeoutMs: 15_000 });
      return { code: r.code ?? -1, stdout: r.stdout, stderr: r.stderr };
    };
    try {
      return buildEtcd(await readEtcd(run, etcdctlTlsArgs(), withAlarms), `ssh ${h.name}`, Date.now(), deps.inventory);
    } catch (e) {
      errors.push(`${h.name}: ${errorMessage(e)}`);
    }
  }
  throw new BackupRefused(t('cannot read etcd on any control-plane host:\n  {0}', errors.join('\n  ')));
}

export async function backupEtcd(deps: BackupDeps, outDir: string): Promise<BackupResult> {
  const say = deps.say ?? (() => undefined);
  const repo = await gitWorkTreeOf(outDir);
  if (repo) throw new BackupRefused(t('{0} is inside the git work tree {1}: a snapshot holds every Secret of the cluster; choose a folder outside it', outDir, repo));
  const etcd = await readEtcdOverSsh(deps);
  say(t('etcd: {0} (read via {1})', etcd.quorumLine, etcd.via));
  const source = chooseSnapshotSource(etcd, deps.inventory);
  if (!source.ok) throw new BackupRefused(source.reasons.join('; '));
  const host = source.host;
  say(t('snapshot from {0} on {1}: {2}', source.member.name, host, source.why));

  const at = (deps.now ?? (() => new Date()))();
  const dir = join(resolve(outDir), backupDirName(deps.inventory.cluster.name, at));
  await ensureRealFolder(resolve(outDir), { mode: 0o700, recursive: true, allowLink: true });
  await createNewFolder(dir, 0o700); // fails if it exists: never mix two backups
  try {
    return await takeSnapshot(deps, etcd, source, at, dir);
  } catch (e) {
    await removeCreatedFolder(dir); // the folder we just created, nothing else
    throw e;
  }
}

async function takeSnapshot(deps: BackupDeps, etcd: EtcdModel, source: Extract<SnapshotSource, { ok: true }>, at: Date, dir: string): Promise<BackupResult> {
  const say = deps.say ?? (() => undefined);
  const host = source.host;
  const exec = (cmd: RemoteCommand, opts: Parameters<SshTransport['exec']>[2] = {}) =>
    deps.ssh.exec(host, asRoot(cmd, deps.become(host)), { ...(deps.signal ? { signal: deps.signal } : {}), ...opts });

  const started = Date.now();
  const stamp = at.toISOString().replace(/\D/g, '').slice(0, 17);
  const saved = markedSections((await exec(snapshotSaveCommand(stamp), { timeoutMs: 15 * 60_000 })).stdout);
  const path = saved.get('path') ?? '';
  if (!isSnapshotPath(path)) throw new Error(t('{0}: the snapshot was not saved where expected (got "{1}")', host, path.slice(0, 200)));
  // written into manifest.json: a file read later, perhaps in another language (and by scripts), so its warnings stay English
  const warnings: string[] = [];
  try {
    const [statusFrom, ...statusText] = (saved.get('status') ?? 'none').split('\n');
    const status = parseSnapshotStatus(statusText.join('\n'));
    if (!status) warnings.push(statusFrom === 'none' ? `no etcdutl on ${host} or in its etcd image: the snapshot was checked by its SHA-256 trailer only` : `${statusFrom}: snapshot status gave no answer: ${statusText.join(' ').slice(0, 200)}`);
    const remoteSize = Number(saved.get('size'));
    const remoteSha = saved.get('sha256') ?? '';
    const revisionAtSave = num(parseEndpointStatus(saved.get('revision') ?? '')[0]?.status?.header?.revision) ?? NaN;
    say(status ? t('saved {0} on {1}: {2} bytes, revision {3}, {4} keys', path, host, remoteSize, status.revision, status.totalKey) : t('saved {0} on {1}: {2} bytes', path, host, remoteSize));

    // Pull: the raw bytes from the channel, hashed and written as they come; a slow disk holds the channel back.
    const file = join(dir, 'snapshot.db');
    const sink = await createNewStream(file, 0o600);
    const sum = new SnapshotChecksum();
    let sinkError: Error | undefined;
    sink.on('error', (e) => (sinkError = e));
    const hashing = new Writable({
      highWaterMark: 1024 * 1024,
      write(chunk: Buffer, _encoding, done) {
        sum.update(chunk);
        if (sinkError) return done(sinkError);
        if (sink.write(chunk)) done();
        else sink.once('drain', () => done());
      },
    });
    try {
      await exec(snapshotReadCommand(path), { stdoutTo: hashing, timeoutMs: 30 * 60_000 });
      await new Promise<void>((res, rej) => hashing.end((e?: Error | null) => (e ? rej(e) : res())));
    } finally {
      await new Promise<void>((res, rej) => sink.end((e?: Error | null) => (e ? rej(e) : res())));
    }
    if (sinkError) throw sinkError;
    const got = sum.digest();
    if (got.size !== remoteSize || got.sha256 !== remoteSha) throw new Error(t('the copy differs from the snapshot on {0} ({1} bytes, sha256 {2}… vs {3} bytes, {4}…)', host, got.size, got.sha256.slice(0, 12), remoteSize, remoteSha.slice(0, 12)));
    if (got.trailer === 'mismatch') throw new Error(t("the snapshot's own SHA-256 trailer does not match its contents: it is corrupt"));
    if (got.trailer === 'absent') warnings.push('the snapshot carries no SHA-256 trailer (restore will need --skip-hash-check)');
    const durationMs = Date.now() - started;
    say(t('pulled to {0}: {1} bytes in {2} ms, sha256 {3}, trailer {4}', file, got.size, durationMs, got.sha256, got.trailer));

    const files: string[] = [];
    const context = markedSections((await exec(restoreContextCommand(), { timeoutMs: 30_000, okCodes: [...ANY_EXIT_CODE] })).stdout);
    const writePrivate = async (name: string, text: string) => {
      await createNewFile(join(dir, name), text, 0o600);
      files.push(name);
    };
    const ca = context.get('etcd-ca') ?? '';
    if (ca.includes('BEGIN CERTIFICATE')) await writePrivate('etcd-ca.crt', ca + '\n');
    else warnings.push(`could not read the etcd CA certificate on ${host}`);
    const cc = context.get('cluster-configuration') ?? '';
    if (cc.trim()) await writePrivate('cluster-configuration.yaml', cc + '\n');
    else warnings.push(`could not read kubeadm's ClusterConfiguration on ${host} (kubectl and admin.conf are needed there)`);

    const manifest: BackupManifest = {
      kind: 'kubeadm-workbench/etcd-backup',
      version: 1,
      cluster: deps.inventory.cluster.name,
      controlPlaneEndpoint: deps.inventory.cluster.controlPlaneEndpoint,
      takenAt: at.toISOString(),
      durationMs,
      host,
      member: { id: source.member.id, name: source.member.name, wasLeader: source.member.isLeader },
      ...(etcd.clusterId ? { clusterId: etcd.clusterId } : {}),
      // etcd 3.5's snapshot status has no storage version (an empty string): the member's server version then.
      ...(status?.version || source.member.version ? { etcdVersion: (status?.version || source.member.version)! } : {}),
      members: membersOf(etcd),
      ...(status ? { status } : {}),
      statusFrom: status ? statusFrom! : 'none',
      ...(Number.isFinite(revisionAtSave) ? { revisionAtSave } : {}),
      snapshot: { file: 'snapshot.db', size: got.size, sha256: got.sha256, trailer: got.trailer === 'verified' ? 'verified' : 'absent' },
      files,
      warnings,
    };
    // What restore will read: held to the same schema now, so a backup never writes a manifest its restore refuses.
    const text = JSON.stringify(manifest, null, 2) + '\n';
    const selfCheck = readManifest(text);
    if (!selfCheck.ok) throw new Error(t('the manifest does not pass its own schema: {0}', selfCheck.problems.join('; ')));
    await writePrivate('manifest.json', text);
    return { dir, manifest, durationMs };
  } finally {
    await deps.ssh.exec(host, asRoot(snapshotRemoveCommand(path), deps.become(host)), { timeoutMs: 30_000, okCodes: [...ANY_EXIT_CODE] }).catch(() => undefined);
  }
}

/** A folder of the backup folder whose manifest.json could not be read, and why (the file named). */
export interface UnreadableBackup {
  dir: string;
  problem: string;
}

/**
 * Backups under `outDir` (newest first), from their manifests, each read through its schema; folders with a
 * manifest.json that fails it are listed in `unreadable` with the reason (folders without one are not backups).
 */
export async function readBackupFolder(outDir: string): Promise<{ backups: { dir: string; manifest: BackupManifest }[]; unreadable: UnreadableBackup[] }> {
  let names: string[];
  try {
    names = await fs.readdir(outDir);
  } catch {
    return { backups: [], unreadable: [] };
  }
  const backups: { dir: string; manifest: BackupManifest }[] = [];
  const unreadable: UnreadableBackup[] = [];
  for (const n of names.sort()) {
    const dir = join(outDir, n);
    const manifestPath = join(dir, 'manifest.json');
    if (!(await lookAt(manifestPath))) continue;
    const r = await readManifestFile(manifestPath);
    if (r.ok) backups.push({ dir, manifest: r.manifest });
    else unreadable.push({ dir, problem: r.problem });
  }
  return { backups: backups.sort((a, b) => b.manifest.takenAt.localeCompare(a.manifest.takenAt)), unreadable };
}

/** The readable backups only (newest first). */
export async function listBackups(outDir: string): Promise<{ dir: string; manifest: BackupManifest }[]> {
  return (await readBackupFolder(outDir)).backups;
}
