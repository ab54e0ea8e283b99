/**
 * What "Generate cluster configs" will do in a folder: which generated files are new, which differ from
 * what is there and which are unchanged. Editor-free: the command (src/commands/generateClusterConfigs.ts)
 * and `kubeadm-workbench generate` (src/cli/generate.ts) share it.
 */
import { join, relative, resolve } from 'node:path';
import type { GeneratedFile } from '../core/generate/index';
import { shownPath } from '../core/text/terminal';
import { ensureRealFolder, kindOf, lookAt, readRegularText, replaceFile } from '../adapters/fs/safeFile';
import { t } from '../core/l10n';

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
    if (!isSafeRelativePath(f.path)) throw new Error(t('refusing to write outside the output folder: {0}', f.path));
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

/** The folders from `outDir` down to the file's, and the file: what writing `path` under `outDir` goes through. */
function targetOf(outDir: string, path: string): { root: string; folders: string[]; target: string } {
  if (!isSafeRelativePath(path)) throw new UnsafeOutputError(t('refusing to write outside the output folder: {0}', path));
  const root = resolve(outDir);
  const parts = path.split(/[\\/]/);
  const folders = [root];
  for (const part of parts.slice(0, -1)) folders.push(join(folders[folders.length - 1]!, part));
  return { root, folders, target: join(folders[folders.length - 1]!, parts[parts.length - 1]!) };
}

/** Why `path` under `outDir` cannot be written as it is now (a link or special file on the way), or undefined. */
async function unsafeTarget(outDir: string, path: string): Promise<string | undefined> {
  const { root, folders, target } = targetOf(outDir, path);
  const shown = (p: string) => shownPath(join(outDir, relative(root, p)));
  for (const dir of folders) {
    const st = await lookAt(dir);
    if (!st) break; // made by the write, as a real folder
    if (st.isSymbolicLink()) return t('{0} is a symlink; generate writes only into real folders', shown(dir));
    if (!st.isDirectory()) return t('{0} is not a folder', shown(dir));
  }
  const existing = await lookAt(target);
  if (existing && !existing.isFile()) return t('{0} is {1}; not writing through it (remove it first)', shown(target), kindOf(existing));
  return undefined;
}

/**
 * Writes generated files under `outDir`, all or none: every target is checked first — the output folder and every
 * folder on the way real folders (not links), no link or special file at a file's name — and nothing is written when
 * one is refused. Then each file goes to a new temp file (O_EXCL, O_NOFOLLOW) renamed over its target, so a reader
 * never sees half a file and a planted link can neither redirect a write nor have its target overwritten.
 */
export async function writeGeneratedFiles(outDir: string, files: readonly { path: string; text: string }[]): Promise<string[]> {
  const refusals = (await Promise.all(files.map((f) => unsafeTarget(outDir, f.path)))).filter((r): r is string => Boolean(r));
  if (refusals.length) throw new UnsafeOutputError(t('{0} — nothing was written', refusals.join('; ')));
  const written: string[] = [];
  for (const f of files) {
    const { folders, target } = targetOf(outDir, f.path);
    await ensureRealFolder(folders[0]!, { mode: 0o755, recursive: true });
    for (const dir of folders.slice(1)) await ensureRealFolder(dir, { mode: 0o755 });
    await replaceFile(target, f.text, { mode: 0o644 });
    written.push(target);
  }
  return written;
}

/** The current text of a generated file's target, or undefined when absent; anything but a regular file reads as a marker (and is refused on write). */
export async function readGeneratedTarget(outDir: string, path: string): Promise<string | undefined> {
  const target = join(resolve(outDir), path);
  const st = await lookAt(target);
  if (!st?.isFile()) return st ? '\u0000(not a regular file)' : undefined;
  return readRegularText(target, { maxBytes: 16 * 1024 * 1024 });
}
