/**
 * V8's compile cache for the command line, where Node has it (`module.enableCompileCache`, Node ≥ 22.1): the compiled
 * code of each file the CLI loads is kept between runs (Node checks each entry against the file's contents), and the
 * lint worker gets it too. Measured on Node 24: lint of a 10,000-line haproxy.cfg and of the example workspace, 6-7 %
 * less CPU. Node 20 has no such cache; a hand-made one (vm.Script with cachedData) saved as little there and was left
 * out.
 *
 * Compiled code from a file someone else could write would run as ours: the folder is per user, outside any
 * repository ($XDG_CACHE_HOME or ~/.cache, then kubeadm-workbench/compile-cache), and used only when it and the two
 * folders above it are ours (or root's) and writable by nobody else; otherwise the CLI runs without the cache.
 */
import { lstatSync } from 'node:fs';
import * as nodeModule from 'node:module';
import { ensureRealFolder } from '../adapters/fs/safeFile';
import { homedir } from 'node:os';
import { dirname, join } from 'node:path';

let enabledDir: string | undefined;

/** Where the cache goes for this user: `<cache home>/kubeadm-workbench/compile-cache`. */
export function compileCachePath(env: NodeJS.ProcessEnv = process.env, home = homedir()): string {
  const cacheHome = env.XDG_CACHE_HOME && env.XDG_CACHE_HOME.startsWith('/') ? env.XDG_CACHE_HOME : join(home, '.cache');
  return join(cacheHome, 'kubeadm-workbench', 'compile-cache');
}

/**
 * Why `dir` may not hold code we run (undefined when it may): it, its parent and its grandparent must be real
 * folders (no symlink) owned by `uid` or root, and none writable by group or others.
 */
export function unsafeCacheDir(dir: string, uid: number): string | undefined {
  for (const d of [dir, dirname(dir), dirname(dirname(dir))]) {
    let st;
    try {
      st = lstatSync(d);
    } catch {
      return `${d} is missing`;
    }
    if (!st.isDirectory()) return `${d} is not a folder`;
    if (st.uid !== uid && st.uid !== 0) return `${d} belongs to another user`;
    if (st.mode & 0o022) return `${d} is writable by others`;
  }
  return undefined;
}

/** Turns the cache on for this process when Node has it and the folder is safe; resolves to the folder, else undefined. */
export async function enableCompileCache(): Promise<string | undefined> {
  const enable = (nodeModule as { enableCompileCache?: (dir: string) => { status: number; directory?: string } }).enableCompileCache;
  const uid = process.getuid?.();
  if (!enable || uid === undefined) return undefined;
  const dir = compileCachePath();
  try {
    await ensureRealFolder(dir, { mode: 0o700, recursive: true, mine: true });
  } catch {
    return undefined;
  }
  if (unsafeCacheDir(dir, uid)) return undefined;
  const result = enable(dir);
  // module.constants.compileCacheStatus: ENABLED 1, ALREADY_ENABLED 2; FAILED 0 and DISABLED 3 leave it off.
  enabledDir = result.status === 1 || result.status === 2 ? dir : undefined;
  return enabledDir;
}

/** The folder enableCompileCache() turned on, for the lint worker (undefined: none). */
export function compileCacheDir(): string | undefined {
  return enabledDir;
}
