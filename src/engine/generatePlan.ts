/**
 * What "Generate cluster configs" will do in a folder: which generated files are new, which differ from
 * what is there and which are unchanged. Editor-free: the command (src/commands/generateClusterConfigs.ts)
 * and `kubeadm-workbench generate` (src/cli/generate.ts) share it.
 */
import { randomBytes } from 'node:crypto';
import { constants, promises as fs } from 'node:fs';
import { join, relative, resolve } from 'node:path';
import type { GeneratedFile } from '../core/generate/index';

export type WriteStatus = 'new' | 'changed' | 'unchanged';

export interface PlannedWrite extends GeneratedFile {
  status: WriteStatus;
}

/** A generated path must stay inside the output folder: relative, no `..`, no drive or scheme. */
export function isSafeRelativePath(path: string): boolean {
  if (!path || path.startsWith('/') || path.startsWith('\\') || /^[a-z][a-z0-9+.-]*:/i.test(path)) return false;
  return path.split(/[\\/]/).every((seg) => seg !== '..' && seg !== '');
}

/** `existing(path)` returns the current text of a file in the output folder, or undefined when absent. */
export async function planWrites(files: readonly GeneratedFile[], existing: (path: string) => Promise<string | undefined>): Promise<PlannedWrite[]> {
  const out: PlannedWrite[] = [];
  for (const f of files) {
    if (!isSafeRelativePath(f.path)) throw new Error(`refusing to write outside the output folder: ${f.path}`);
    const current = await existing(f.path);
    out.push({ ...f, status: current === undefined ? 'new' : current === f.text ? 'unchanged' : 'changed' });
  }
  return out;
}

/** containerd 2.x reads the `version = 3` layout; 1.6/1.7 the `version = 2` one. */
export function containerdLayoutFor(version: string | undefined): 2 | 3 | undefined {
  if (!version) return undefined;
  const major = Number(/^v?(\d+)/.exec(version.trim())?.[1]);
  if (!Number.isFinite(major)) return undefined;
  return major >= 2 ? 3 : 2;
}

export class UnsafeOutputError extends Error {}

/**
 * Writes one generated file under `outDir`, never through a link: the output folder and every folder on the
 * way must be real folders (not symlinks), an existing file at the target must not be a symlink, and the
 * text goes to a new temp file (O_EXCL, O_NOFOLLOW) that is renamed over the target — so a reader never
 * sees half a file and a planted link can neither redirect the write nor have its target overwritten.
 */
export async function writeGeneratedFile(outDir: string, path: string, text: string): Promise<string> {
  if (!isSafeRelativePath(path)) throw new UnsafeOutputError(`refusing to write outside the output folder: ${path}`);
  const root = resolve(outDir);
  await fs.mkdir(root, { recursive: true });
  await realFolder(root, outDir);
  const parts = path.split(/[\\/]/);
  let dir = root;
  for (const part of parts.slice(0, -1)) {
    dir = join(dir, part);
    try {
      await fs.mkdir(dir);
    } catch (e) {
      if ((e as NodeJS.ErrnoException).code !== 'EEXIST') throw e;
    }
    await realFolder(dir, join(outDir, relative(root, dir)));
  }
  const target = join(dir, parts[parts.length - 1]!);
  const existing = await fs.lstat(target).catch(() => undefined);
  if (existing && !existing.isFile()) throw new UnsafeOutputError(`${join(outDir, path)} is a ${existing.isSymbolicLink() ? 'symlink' : 'special file'}; not writing through it (remove it first)`);
  const tmp = `${target}.${randomBytes(6).toString('hex')}.tmp`;
  const handle = await fs.open(tmp, constants.O_WRONLY | constants.O_CREAT | constants.O_EXCL | constants.O_NOFOLLOW, 0o644);
  try {
    await handle.writeFile(text, 'utf8');
  } finally {
    await handle.close();
  }
  try {
    await fs.rename(tmp, target);
  } catch (e) {
    await fs.rm(tmp, { force: true });
    throw e;
  }
  return target;
}

async function realFolder(path: string, shown: string): Promise<void> {
  const st = await fs.lstat(path);
  if (st.isSymbolicLink()) throw new UnsafeOutputError(`${shown} is a symlink; generate writes only into real folders`);
  if (!st.isDirectory()) throw new UnsafeOutputError(`${shown} is not a folder`);
}

/** The current text of a generated file's target, or undefined when absent; a symlink there reads as absent (and is refused on write). */
export async function readGeneratedTarget(outDir: string, path: string): Promise<string | undefined> {
  const target = join(resolve(outDir), path);
  const st = await fs.lstat(target).catch(() => undefined);
  if (!st?.isFile()) return st ? '\u0000(not a regular file)' : undefined;
  return fs.readFile(target, 'utf8');
}
