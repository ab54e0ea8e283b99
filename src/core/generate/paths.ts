/**
 * Paths built from inventory values (a registry name becomes a folder under /etc/containerd/certs.d):
 * each part must be one plain path segment, and the joined path must stay under its root — checked
 * after normalising, so no value can climb out with `..` or a slash.
 */
import { posix } from 'node:path';

export class PathEscapeError extends Error {}

export function confinedPath(root: string, ...parts: string[]): string {
  for (const p of parts) {
    if (!p || p === '.' || p === '..' || /[/\\\u0000-\u001f]/.test(p)) throw new PathEscapeError(`${JSON.stringify(p)} is not a single path segment under ${root}`);
  }
  const joined = posix.join(root, ...parts);
  if (!joined.startsWith(posix.normalize(root).replace(/\/$/, '') + '/')) throw new PathEscapeError(`${joined} is not under ${root}`);
  return joined;
}
