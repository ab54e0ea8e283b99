/**
 * Files the inventory names on this machine (cniManifest, kubeadmExtraConfig) are read only from inside the
 * inventory's folder — by real path, so neither `..` nor a symlink pointing out of it reaches /etc/passwd or
 * a colleague's secrets, which would otherwise be uploaded to the first control-plane node.
 */
import { promises as fs } from 'node:fs';
import { isAbsolute, relative, resolve, sep } from 'node:path';
import { workspaceRelativePath } from '../core/inventory/fields';
import { errorMessage } from '../core/errors';

export class OutsideWorkspaceError extends Error {}

export async function readWorkspaceFile(root: string, ref: string, readFile: (path: string) => Promise<string>, field: string): Promise<string> {
  const bad = workspaceRelativePath(ref);
  if (bad) throw new OutsideWorkspaceError(`${field} ${JSON.stringify(ref)} ${bad}; nothing was read`);
  const realRoot = await fs.realpath(root);
  let target: string;
  try {
    target = await fs.realpath(resolve(realRoot, ref));
  } catch (e) {
    throw new Error(`${field} ${ref}: cannot read it in the inventory folder (${(e as NodeJS.ErrnoException).code ?? errorMessage(e)})`);
  }
  const rel = relative(realRoot, target);
  if (!rel || rel === '..' || rel.startsWith(`..${sep}`) || isAbsolute(rel)) {
    throw new OutsideWorkspaceError(`${field} ${ref} leads outside the inventory folder (to ${target}); only files inside it are read`);
  }
  return readFile(target);
}
