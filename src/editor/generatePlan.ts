/**
 * What "Generate cluster configs" will do in a folder: which generated files are new, which differ from
 * what is there and which are unchanged. Editor-free: the command (src/commands/generateClusterConfigs.ts)
 * and `kubeadm-workbench generate` (src/cli/generate.ts) share it.
 */
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
