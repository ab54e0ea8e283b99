import { test } from 'node:test';
import assert from 'node:assert/strict';
import { chmodSync, chownSync, mkdirSync, symlinkSync } from 'node:fs';
import { join } from 'node:path';
import { compileCachePath, unsafeCacheDir } from '../../../src/cli/compileCache';
import { tempDir } from '../../tempDir';

const uid = process.getuid!();

/** <root>/cache/kubeadm-workbench/compile-cache, every folder 0700 like the CLI makes it. */
function cacheTree(): { root: string; dir: string } {
  const root = tempDir('kw-ccache-');
  chmodSync(root, 0o700);
  const dir = compileCachePath({ XDG_CACHE_HOME: join(root, 'cache') }, '/nonexistent');
  mkdirSync(dir, { recursive: true, mode: 0o700 });
  return { root, dir };
}

test('the compile cache lives in the user cache home, never in a relative XDG_CACHE_HOME (the current folder: a repository)', () => {
  assert.equal(compileCachePath({ XDG_CACHE_HOME: '/home/u/.cache' }, '/home/u'), '/home/u/.cache/kubeadm-workbench/compile-cache');
  assert.equal(compileCachePath({ XDG_CACHE_HOME: 'cache' }, '/home/u'), '/home/u/.cache/kubeadm-workbench/compile-cache');
  assert.equal(compileCachePath({}, '/home/u'), '/home/u/.cache/kubeadm-workbench/compile-cache');
});

test('a private cache folder is used; one that others could write, or a symlink, is not', () => {
  const ok = cacheTree();
  assert.equal(unsafeCacheDir(ok.dir, uid), undefined);

  const leaf = cacheTree();
  chmodSync(leaf.dir, 0o777);
  assert.match(unsafeCacheDir(leaf.dir, uid) ?? '', /compile-cache is writable by others$/);

  // Whoever may write the folder above can swap the cache folder for their own.
  const parent = cacheTree();
  chmodSync(join(parent.dir, '..'), 0o770);
  assert.match(unsafeCacheDir(parent.dir, uid) ?? '', /kubeadm-workbench is writable by others$/);

  const linked = cacheTree();
  const elsewhere = join(linked.root, 'elsewhere');
  mkdirSync(elsewhere, { mode: 0o700 });
  const link = join(linked.dir, '..', 'linked');
  symlinkSync(elsewhere, link);
  assert.match(unsafeCacheDir(link, uid) ?? '', /linked is not a folder$/);

  assert.match(unsafeCacheDir(join(ok.root, 'missing', 'a', 'b'), uid) ?? '', /is missing$/);
  // A folder of another user (root's are accepted: root could write anywhere anyway).
  const foreign = cacheTree();
  if (uid === 0) chownSync(foreign.dir, 4242, 4242);
  assert.match(unsafeCacheDir(foreign.dir, uid === 0 ? 0 : uid + 1) ?? '', /compile-cache belongs to another user$/);
});
