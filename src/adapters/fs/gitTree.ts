/**
 * "Is this folder inside a git repository?" — asked of the folder's real path and of git itself, because a snapshot
 * or a key written into a work tree is one `git add -A` away from being pushed. The path may not exist yet (a backup
 * folder is made after the question): the nearest folder above it that exists is resolved (links followed, so `--out`
 * naming a link into a repository's sub-folder is seen where it lands) and the rest appended. Then:
 *
 * 1. every folder from there up is looked at for a `.git` (a folder, or a file of a linked work tree or submodule);
 * 2. git is asked from that real folder, with this process's environment — so `GIT_DIR` / `GIT_WORK_TREE` and the
 *    repository's `core.worktree` count as git counts them (a work tree whose repository lives elsewhere has no
 *    `.git` of its own): the folder is inside `rev-parse --show-toplevel`, or inside the repository's own folder.
 *
 * When git is not installed, the first check alone answers.
 */
import { execFile } from 'node:child_process';
import { promises as fs } from 'node:fs';
import { basename, dirname, isAbsolute, join, relative, resolve } from 'node:path';

export interface GitTree {
  /** The top of the work tree (or the repository folder) the path is in. */
  top: string;
  /** How it was found, for the message. */
  how: string;
}

/** The real path of `path`: its nearest existing folder resolved through links, the part that does not exist yet appended. */
export async function realPathOf(path: string): Promise<{ real: string; existing: string }> {
  const rest: string[] = [];
  let at = resolve(path);
  for (;;) {
    try {
      const real = await fs.realpath(at);
      return { real: join(real, ...rest), existing: real };
    } catch (e) {
      const code = (e as NodeJS.ErrnoException).code;
      if (code !== 'ENOENT' && code !== 'ENOTDIR') throw e;
      if (dirname(at) === at) throw e;
      rest.unshift(basename(at));
      at = dirname(at);
    }
  }
}

const inside = (path: string, top: string): boolean => {
  const rel = relative(top, path);
  return rel === '' || (!rel.startsWith('..') && !isAbsolute(rel));
};

function git(args: string[], cwd: string): Promise<string | undefined> {
  return new Promise((res) => {
    execFile('git', args, { cwd, timeout: 10_000, env: process.env, encoding: 'utf8' }, (err, stdout) => res(err ? undefined : stdout.trim()));
  });
}

/** The git work tree or repository that holds `path`, or undefined. */
export async function gitTreeHolding(path: string): Promise<GitTree | undefined> {
  const { real, existing } = await realPathOf(path);
  for (let d = real; ; d = dirname(d)) {
    const found = await fs.lstat(join(d, '.git')).catch(() => undefined);
    if (found) return { top: d, how: `${join(d, '.git')} is there` };
    if (dirname(d) === d) break;
  }
  const realOf = async (p: string | undefined): Promise<string | undefined> => (p ? fs.realpath(resolve(existing, p)).catch(() => resolve(existing, p)) : undefined);
  const top = await realOf(await git(['rev-parse', '--show-toplevel'], existing));
  if (top && inside(real, top)) return { top, how: 'git rev-parse --show-toplevel' };
  const gitDir = await realOf(await git(['rev-parse', '--absolute-git-dir'], existing));
  if (gitDir && inside(real, gitDir)) return { top: gitDir, how: 'git rev-parse --absolute-git-dir' };
  return undefined;
}
