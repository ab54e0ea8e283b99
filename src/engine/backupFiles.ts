/**
 * The files of a backup folder as input: each opened through src/adapters/fs/safeFile.ts (non-blocking, so a FIFO
 * named snapshot.db cannot hang us) and checked with fstat on that open file — a regular file of a sane byte size —
 * before a byte is read; the snapshot is then hashed as a stream from that same descriptor, and opened again for each member it is sent to
 * only when it is still the same file (device, inode, size). Errors name the file and what is wrong with it.
 */
import type { Stats } from 'node:fs';
import type { FileHandle } from 'node:fs/promises';
import { FileRefused, openRegular as openRegularFile } from '../adapters/fs/safeFile';
import { MAX_MANIFEST_BYTES, readManifest } from '../core/backup/manifest';
import { SnapshotChecksum, type BackupManifest } from '../core/backup/snapshot';
import { errorMessage } from '../core/errors';
import { t } from '../core/l10n';

/** etcd's quota goes to 8 GiB (its documented maximum); twice that leaves room and still refuses a stray disk image. */
export const MAX_SNAPSHOT_BYTES = 16 * 1024 ** 3;

export class BackupFileError extends Error {}

/**
 * Opens `path` through the safe-file helper (regular file only, non-blocking, fstat on the descriptor, at most
 * `maxBytes`; with `noFollow` the path itself may not be a link) and hands back the descriptor's stat for the
 * device/inode check of a later open. The caller closes the handle.
 */
export async function openRegular(path: string, maxBytes: number, noFollow = false): Promise<{ handle: FileHandle; stat: Stats }> {
  let opened: { handle: FileHandle };
  try {
    opened = await openRegularFile(path, { maxBytes, noFollow });
  } catch (e) {
    if (e instanceof FileRefused) throw new BackupFileError(e.message);
    const code = (e as NodeJS.ErrnoException).code;
    throw new BackupFileError(`${path}: ${code === 'ENOENT' ? t('no such file') : code === 'EACCES' ? t('not readable (permission denied)') : errorMessage(e)}`);
  }
  try {
    return { handle: opened.handle, stat: await opened.handle.stat() };
  } catch (e) {
    await opened.handle.close();
    throw e;
  }
}

/** manifest.json, read and checked (core/backup/manifest.ts): the manifest, or every problem with the file's name. */
export async function readManifestFile(path: string): Promise<{ ok: true; manifest: BackupManifest } | { ok: false; problem: string }> {
  let opened: Awaited<ReturnType<typeof openRegular>>;
  try {
    opened = await openRegular(path, MAX_MANIFEST_BYTES, true); // a manifest planted as a link is not followed
  } catch (e) {
    return { ok: false, problem: errorMessage(e) };
  }
  try {
    const buf = Buffer.alloc(opened.stat.size + 1);
    const { bytesRead } = await opened.handle.read(buf, 0, buf.length, 0);
    if (bytesRead > opened.stat.size) return { ok: false, problem: t('{0} grew while it was read', path) };
    let text: string;
    try {
      text = new TextDecoder('utf-8', { fatal: true }).decode(buf.subarray(0, bytesRead));
    } catch {
      return { ok: false, problem: t('{0} is not UTF-8 text', path) };
    }
    const r = readManifest(text);
    return r.ok ? r : { ok: false, problem: `${path}: ${r.problems.join('; ')}` };
  } finally {
    await opened.handle.close();
  }
}

export interface SnapshotDigest {
  size: number;
  sha256: string;
  trailer: 'verified' | 'mismatch' | 'absent';
  /** The file that was hashed: a later open must find the same one. */
  dev: number;
  ino: number;
}

const CHUNK = 1024 * 1024;

/** The snapshot's size, SHA-256 and etcd trailer, read as a stream (memory: a chunk, whatever the file's size). */
export async function hashSnapshot(path: string, onBytes?: (read: number, size: number) => void): Promise<SnapshotDigest> {
  const { handle, stat } = await openRegular(path, MAX_SNAPSHOT_BYTES);
  const sum = new SnapshotChecksum();
  const stream = handle.createReadStream({ autoClose: false, highWaterMark: CHUNK });
  try {
    for await (const chunk of stream) {
      sum.update(chunk as Buffer);
      onBytes?.(sum.size, stat.size);
    }
  } finally {
    stream.destroy();
    await handle.close();
  }
  const got = sum.digest();
  if (got.size !== stat.size) throw new BackupFileError(t('{0} changed while it was read ({1} bytes at the start, {2} read)', path, stat.size, got.size));
  return { ...got, dev: stat.dev, ino: stat.ino };
}

/** The snapshot as a stream again (for one member), only when it is still the file that was hashed. */
export async function reopenSnapshot(path: string, digest: SnapshotDigest): Promise<NodeJS.ReadableStream> {
  const { handle, stat } = await openRegular(path, MAX_SNAPSHOT_BYTES);
  if (stat.dev !== digest.dev || stat.ino !== digest.ino || stat.size !== digest.size) {
    await handle.close();
    throw new BackupFileError(t('{0} is no longer the snapshot that was checked (it was replaced or changed): run the restore again', path));
  }
  return handle.createReadStream({ highWaterMark: 256 * 1024 });
}
