/**
 * The one way the product opens a file on this machine. A workspace is untrusted input (a colleague's repository,
 * an unpacked archive), so every file is opened as what it must be:
 *
 * - **Reads** see a regular file only. The path is looked at first, so a FIFO, a device or a socket is refused without
 *   being opened (opening some devices does something); the open itself is non-blocking (a FIFO swapped in meanwhile
 *   cannot hang us) and the final word is `fstat` on the descriptor we read from — no window between check and read.
 *   The size limit is in bytes, from that `fstat`, before anything is read, and reading stops one byte past it anyway
 *   (a file can grow while we read, and /proc files say 0).
 * - **Writes** never go through a link: a new file is created with O_EXCL | O_NOFOLLOW (a planted link or file at its
 *   name makes the create fail instead of writing elsewhere); a file replaced is written to a unique temp file beside
 *   it and renamed over it (a reader never sees half a file; a rename replaces a link, never its target), and the file
 *   replaced must be a regular file of this user; an append opens with O_NOFOLLOW and checks the descriptor (regular,
 *   this user's, one link) before writing.
 *
 * Everything else in src/ calls these; test/unit/state/writeSites.test.ts lists every fs call of the source and fails
 * on a read or write that bypasses this module.
 */
import { randomBytes } from 'node:crypto';
import { constants, createWriteStream, lstatSync, statSync, closeSync, fstatSync, openSync, readSync, promises as fs, type Stats, type WriteStream } from 'node:fs';
import type { FileHandle } from 'node:fs/promises';
import { basename, dirname, join } from 'node:path';
import { shownPath } from '../../core/text/terminal';
import { toError } from '../../core/errors';
import { t } from '../../core/l10n';

/**
 * What kind of refusal it is, for code that acts on it (the reason is words in the display language):
 * `other-user` another user's file or folder, `too-large` over the read limit, `grew` past it while it was read, `symlink` a link
 * not followed, `not-regular` a FIFO, device, folder or socket, `shared` group or others may read or write it,
 * `hard-links` more than one name, `content` what is in it is not what it should be.
 */
export type RefusalKind = 'other-user' | 'too-large' | 'grew' | 'symlink' | 'not-regular' | 'shared' | 'hard-links' | 'content';

/** Why a file was not opened: the path and the reason in plain words (the message names both). */
export class FileRefused extends Error {
  constructor(
    readonly path: string,
    readonly reason: string,
    readonly kind: RefusalKind = 'content',
  ) {
    super(`${shownPath(path)} ${reason}`);
    this.name = 'FileRefused';
  }
}

export interface ReadPolicy {
  /** The largest file read, in bytes; a larger one is refused unread. */
  maxBytes: number;
  /** The path itself must not be a symlink (state files). By default a link to a regular file is followed. */
  noFollow?: boolean;
  /** The file must belong to this user (state files, keys). */
  mine?: boolean;
  /** No permission for group or others (secrets). */
  private?: boolean;
}

const myUid = (): number | undefined => process.getuid?.();

/** "a FIFO", "a symlink", … — what a non-regular file is, for messages (in the display language). */
export function kindOf(st: Stats): string {
  if (st.isSymbolicLink()) return t('a symlink');
  if (st.isFIFO()) return t('a FIFO');
  if (st.isSocket()) return t('a socket');
  if (st.isCharacterDevice()) return t('a character device');
  if (st.isBlockDevice()) return t('a block device');
  if (st.isDirectory()) return t('a folder');
  return st.isFile() ? t('a regular file') : t('not a regular file');
}

export function formatBytes(n: number): string {
  if (n < 1024) return `${n} bytes`;
  const units = ['KiB', 'MiB', 'GiB', 'TiB'];
  let v = n / 1024;
  let i = 0;
  while (v >= 1024 && i < units.length - 1) {
    v /= 1024;
    i++;
  }
  return `${v >= 10 ? Math.round(v) : v.toFixed(1)} ${units[i]}`;
}

/** The policy's refusal of what `st` describes, or undefined when it may be read. */
function refusal(path: string, st: Stats, policy: ReadPolicy): FileRefused | undefined {
  if (!st.isFile()) return new FileRefused(path, t('is {0}, not a regular file: refused unread', kindOf(st)), 'not-regular');
  const uid = myUid();
  if (policy.mine && uid !== undefined && st.uid !== uid) return new FileRefused(path, t('belongs to another user (uid {0}): refused unread', st.uid), 'other-user');
  if (policy.private && (st.mode & 0o077) !== 0) return new FileRefused(path, t('can be read or written by other users (mode {0}, expected 0600): not one this tool wrote; refused', (st.mode & 0o777).toString(8).padStart(4, '0')), 'shared');
  if (policy.noFollow && st.nlink > 1) return new FileRefused(path, t('has {0} hard links: not one this tool wrote; refused', st.nlink), 'hard-links');
  if (st.size > policy.maxBytes) return new FileRefused(path, t('is {0}; at most {1} is read: refused unread', formatBytes(st.size), formatBytes(policy.maxBytes)), 'too-large');
  return undefined;
}

const notFollowed = (path: string) => new FileRefused(path, t('is a symlink: not followed'), 'symlink');
const grewPast = (path: string, maxBytes: number) => new FileRefused(path, t('grew past {0} while it was read: refused', formatBytes(maxBytes)), 'grew');

function linkRefusal(e: unknown, path: string): Error {
  const code = (e as NodeJS.ErrnoException).code;
  if (code === 'ELOOP') return notFollowed(path);
  if (code === 'ENXIO') return new FileRefused(path, t('is a FIFO or a socket, not a regular file: refused'), 'not-regular');
  return toError(e);
}

const READ_FLAGS = constants.O_RDONLY | constants.O_NONBLOCK | constants.O_NOCTTY;

/**
 * Opens a regular file for reading (see the module comment); the caller reads and closes. For streaming a large
 * file (a snapshot) with `handle.createReadStream()`.
 */
export async function openRegular(path: string, policy: ReadPolicy): Promise<{ handle: FileHandle; size: number }> {
  const pre = await (policy.noFollow ? fs.lstat(path) : fs.stat(path));
  if (policy.noFollow && pre.isSymbolicLink()) throw notFollowed(path);
  const early = refusal(path, pre, policy);
  if (early) throw early;
  let handle: FileHandle;
  try {
    handle = await fs.open(path, READ_FLAGS | (policy.noFollow ? constants.O_NOFOLLOW : 0));
  } catch (e) {
    throw linkRefusal(e, path);
  }
  try {
    const st = await handle.stat();
    const late = refusal(path, st, policy);
    if (late) throw late;
    return { handle, size: st.size };
  } catch (e) {
    await handle.close();
    throw e;
  }
}

/** The bytes of a regular file of at most `policy.maxBytes`. */
export async function readRegular(path: string, policy: ReadPolicy): Promise<Buffer> {
  const { handle } = await openRegular(path, policy);
  try {
    const chunks: Buffer[] = [];
    let total = 0;
    for (;;) {
      const want = Math.min(64 * 1024, policy.maxBytes + 1 - total);
      const buf = Buffer.allocUnsafe(Math.max(1, want));
      const { bytesRead } = await handle.read(buf, 0, buf.length, null);
      if (bytesRead === 0) break;
      chunks.push(buf.subarray(0, bytesRead));
      total += bytesRead;
      if (total > policy.maxBytes) throw grewPast(path, policy.maxBytes);
    }
    return Buffer.concat(chunks, total);
  } finally {
    await handle.close();
  }
}

/** The UTF-8 text of a regular file of at most `policy.maxBytes` bytes. */
export async function readRegularText(path: string, policy: ReadPolicy): Promise<string> {
  return (await readRegular(path, policy)).toString('utf8');
}

/** The same, synchronously (the SSH config reader is synchronous). */
export function readRegularSync(path: string, policy: ReadPolicy): Buffer {
  const pre = policy.noFollow ? lstatSync(path) : statSync(path);
  if (policy.noFollow && pre.isSymbolicLink()) throw notFollowed(path);
  const early = refusal(path, pre, policy);
  if (early) throw early;
  let fd: number;
  try {
    fd = openSync(path, READ_FLAGS | (policy.noFollow ? constants.O_NOFOLLOW : 0));
  } catch (e) {
    throw linkRefusal(e, path);
  }
  try {
    const late = refusal(path, fstatSync(fd), policy);
    if (late) throw late;
    const chunks: Buffer[] = [];
    let total = 0;
    for (;;) {
      const buf = Buffer.allocUnsafe(Math.max(1, Math.min(64 * 1024, policy.maxBytes + 1 - total)));
      const n = readSync(fd, buf, 0, buf.length, null);
      if (n === 0) break;
      chunks.push(buf.subarray(0, n));
      total += n;
      if (total > policy.maxBytes) throw grewPast(path, policy.maxBytes);
    }
    return Buffer.concat(chunks, total);
  } finally {
    closeSync(fd);
  }
}

/** What is at `path` without following a link, or undefined when nothing is. */
export async function lookAt(path: string): Promise<Stats | undefined> {
  try {
    return await fs.lstat(path);
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code === 'ENOENT' || (e as NodeJS.ErrnoException).code === 'ENOTDIR') return undefined;
    throw e;
  }
}

export interface ReplacePolicy {
  /** The new file's mode; 'keep' keeps the replaced file's (default 0644 for a new one). */
  mode: number | 'keep';
  /** Replace a symlink at the path by the file (the link, never its target). By default a link is refused. */
  replaceLink?: boolean;
}

/**
 * Writes `data` as the file at `path`: a unique temp file beside it (O_EXCL, O_NOFOLLOW, 0600 while it is written),
 * then the mode, then a rename over the path. A file already there must be a regular file of this user (a link only
 * with `replaceLink`); a folder, FIFO or device there is refused.
 */
export async function replaceFile(path: string, data: string | Uint8Array, policy: ReplacePolicy): Promise<void> {
  const existing = await lookAt(path);
  if (existing) {
    const link = existing.isSymbolicLink();
    if (link && !policy.replaceLink) throw new FileRefused(path, t('is a symlink: not writing through it (write to the file it points to, or remove the link)'), 'symlink');
    if (!link && !existing.isFile()) throw new FileRefused(path, t('is {0}: not replaced', kindOf(existing)), 'not-regular');
    const uid = myUid();
    if (!link && uid !== undefined && existing.uid !== uid) throw new FileRefused(path, t('belongs to another user (uid {0}): not replaced', existing.uid), 'other-user');
  }
  const mode = policy.mode === 'keep' ? (existing && existing.isFile() ? existing.mode & 0o7777 : 0o644) : policy.mode;
  const tmp = join(dirname(path), `.${basename(path)}.${randomBytes(6).toString('hex')}.kw-tmp`);
  const handle = await fs.open(tmp, constants.O_WRONLY | constants.O_CREAT | constants.O_EXCL | constants.O_NOFOLLOW, 0o600);
  try {
    try {
      await handle.writeFile(data);
      if (mode !== 0o600) await handle.chmod(mode); // created 0600: a secret is never readable by others, not even for a moment
    } finally {
      await handle.close();
    }
    await fs.rename(tmp, path);
  } catch (e) {
    await fs.rm(tmp, { force: true });
    throw e;
  }
}

/** Creates a new file (O_EXCL, O_NOFOLLOW): anything at the path — a file, a link — fails with EEXIST. */
export async function createNewFile(path: string, data: string | Uint8Array, mode: number): Promise<void> {
  let handle: FileHandle;
  try {
    handle = await fs.open(path, constants.O_WRONLY | constants.O_CREAT | constants.O_EXCL | constants.O_NOFOLLOW, mode);
  } catch (e) {
    throw linkRefusal(e, path);
  }
  try {
    await handle.writeFile(data);
    if (mode !== 0o600) await handle.chmod(mode); // the umask may have taken bits the caller asked for
  } finally {
    await handle.close();
  }
}

export function alreadyThere(e: unknown): boolean {
  return (e as NodeJS.ErrnoException | undefined)?.code === 'EEXIST';
}

/** A write stream into a new file (O_EXCL, O_NOFOLLOW). */
export async function createNewStream(path: string, mode: number): Promise<WriteStream> {
  const handle = await fs.open(path, constants.O_WRONLY | constants.O_CREAT | constants.O_EXCL | constants.O_NOFOLLOW, mode).catch((e: unknown) => {
    throw linkRefusal(e, path);
  });
  await handle.chmod(mode);
  return createWriteStream('', { fd: handle });
}

/** Opens for appending (created when absent): never through a link, only a regular file of this user with one link. */
async function openAppend(path: string, mode: number): Promise<FileHandle> {
  let handle: FileHandle;
  try {
    handle = await fs.open(path, constants.O_WRONLY | constants.O_APPEND | constants.O_CREAT | constants.O_NOFOLLOW | constants.O_NONBLOCK | constants.O_NOCTTY, mode);
  } catch (e) {
    throw linkRefusal(e, path);
  }
  const st = await handle.stat();
  const uid = myUid();
  const refused = !st.isFile() ? new FileRefused(path, t('is {0}, not a regular file: not appended to', kindOf(st)), 'not-regular')
    : uid !== undefined && st.uid !== uid ? new FileRefused(path, t('belongs to another user (uid {0}): not appended to', st.uid), 'other-user')
    : st.nlink > 1 ? new FileRefused(path, t('has {0} hard links: not appended to', st.nlink), 'hard-links')
    : undefined;
  if (refused) {
    await handle.close();
    throw refused;
  }
  return handle;
}

/** Appends text to a file (see openAppend). */
export async function appendToFile(path: string, text: string, mode: number): Promise<void> {
  const handle = await openAppend(path, mode);
  try {
    await handle.writeFile(text);
  } finally {
    await handle.close();
  }
}

/** A stream appending to a file (see openAppend): a run log that a resumed run continues. */
export async function appendStream(path: string, mode: number): Promise<WriteStream> {
  return createWriteStream('', { fd: await openAppend(path, mode) });
}

export interface FolderPolicy {
  mode: number;
  /** Create the missing folders above it too. */
  recursive?: boolean;
  /** It must be this user's, and its mode is set to `mode` (a private state folder). */
  mine?: boolean;
  /** A link to a folder is fine (a backup folder the user names); by default a link is refused. */
  allowLink?: boolean;
}

/**
 * Makes a folder when absent and checks that what is at the path is a real folder (a link to one is refused). With
 * `mine` it must be this user's, and its mode is set through a descriptor opened without following links.
 */
export async function ensureRealFolder(path: string, policy: FolderPolicy): Promise<void> {
  const look = () => (policy.allowLink ? fs.stat(path) : fs.lstat(path));
  let st = await look().catch(() => undefined);
  if (!st) {
    try {
      await fs.mkdir(path, { recursive: policy.recursive ?? false, mode: policy.mode });
    } catch (e) {
      if ((e as NodeJS.ErrnoException).code !== 'EEXIST') throw e;
    }
    st = await look();
  }
  if (!st.isDirectory()) throw new FileRefused(path, t('is {0}, not a folder: nothing is written through it', kindOf(st)), 'not-regular');
  if (!policy.mine) return;
  const uid = myUid();
  if (uid !== undefined && st.uid !== uid) throw new FileRefused(path, t('belongs to another user (uid {0}): nothing is written into it', st.uid), 'other-user');
  if ((st.mode & 0o777) !== policy.mode) {
    const dir = await fs.open(path, constants.O_RDONLY | constants.O_DIRECTORY | constants.O_NOFOLLOW);
    try {
      await dir.chmod(policy.mode);
    } finally {
      await dir.close();
    }
  }
}

/** Makes a new folder; one already there fails with EEXIST (never mix two backups). */
export async function createNewFolder(path: string, mode: number): Promise<void> {
  await fs.mkdir(path, { mode });
}

/** Removes a file or a link (never what a link points to); absent is fine. */
export async function removeFile(path: string): Promise<void> {
  await fs.rm(path, { force: true });
}

/** Removes a folder this run created, with what is in it (links inside are removed, not followed). */
export async function removeCreatedFolder(path: string): Promise<void> {
  await fs.rm(path, { recursive: true, force: true });
}
