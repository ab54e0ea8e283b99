/**
 * Files the inventory names on this machine (cniManifest, kubeadmExtraConfig) are read only from inside the
 * inventory's folder — by real path, so neither `..` nor a symlink pointing out of it reaches /etc/passwd or
 * a colleague's secrets, which would otherwise be uploaded to the first control-plane node. The file read is the
 * resolved one, opened without following a link (one swapped in after the check is refused) and only when it is a
 * regular file (a FIFO there would hang the plan) of at most WORKSPACE_FILE_BYTES.
 */
import { promises as fs } from 'node:fs';
import { readRegularText } from '../adapters/fs/safeFile';
import { isAbsolute, relative, resolve, sep } from 'node:path';
import { workspaceRelativePath } from '../core/inventory/fields';
import { errorMessage } from '../core/errors';
import { t } from '../core/l10n';

export class OutsideWorkspaceError extends Error {}

/** A CNI manifest or a kubeadm config is kilobytes; 16 MiB is far beyond any. */
export const WORKSPACE_FILE_BYTES = 16 * 1024 * 1024;

/** A file of the workspace as the plan reads it: a regular file, at most WORKSPACE_FILE_BYTES. */
export function readLocalText(path: string): Promise<string> {
  return readRegularText(path, { maxBytes: WORKSPACE_FILE_BYTES, noFollow: true });
}

export async function readWorkspaceFile(root: string, ref: string, readFile: (path: string) => Promise<string>, field: string): Promise<string> {
  const bad = workspaceRelativePath(ref);
  if (bad) throw new OutsideWorkspaceError(t('{0} {1} {2}; nothing was read', field, JSON.stringify(ref), bad));
  const realRoot = await fs.realpath(root);
  let target: string;
  try {
    target = await fs.realpath(resolve(realRoot, ref));
  } catch (e) {
    throw new Error(t('{0} {1}: cannot read it in the inventory folder ({2})', field, ref, (e as NodeJS.ErrnoException).code ?? errorMessage(e)));
  }
  const rel = relative(realRoot, target);
  if (!rel || rel === '..' || rel.startsWith(`..${sep}`) || isAbsolute(rel)) {
    throw new OutsideWorkspaceError(t('{0} {1} leads outside the inventory folder (to {2}); only files inside it are read', field, ref, target));
  }
  return readFile(target);
}
