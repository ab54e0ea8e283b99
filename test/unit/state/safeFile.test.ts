/**
 * The safe-file helper (src/adapters/fs/safeFile.ts) on real special files, and the guards built on real paths:
 * the backup's "outside any git tree" (asked of git itself) and the inventory folder's confinement. Each test failed
 * on the code before: FIFOs hung reads, a symlink into a repository's sub-folder and a work tree found through
 * GIT_DIR and core.worktree passed the git guard.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { chownSync, mkdirSync, readFileSync, statSync, symlinkSync, truncateSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { join } from 'node:path';
import { appendToFile, createNewFile, FileRefused, readRegularText, replaceFile } from '../../../src/adapters/fs/safeFile';
import { gitTreeHolding } from '../../../src/adapters/fs/gitTree';
import { backupEtcd, BackupRefused } from '../../../src/engine/backup';
import { readWorkspaceFile } from '../../../src/engine/workspaceFiles';
import { saveAdminKubeconfig } from '../../../src/engine/kubeconfig';
import { parseInventory, unreadInventory } from '../../../src/core/inventory/parse';
import type { SshTransport } from '../../../src/core/ssh/transport';
import { tempDir } from '../../tempDir';

const within = <T>(ms: number, p: Promise<T>): Promise<T> =>
  Promise.race([p, new Promise<never>((_, rej) => setTimeout(() => rej(new Error(`still waiting after ${ms} ms: it hangs`)), ms).unref())]);

test('reads see regular files only: a FIFO, a device and a socket are refused at once, the size in bytes before reading', async () => {
  const dir = tempDir('kw-safe-');
  const fifo = join(dir, 'fifo');
  execFileSync('mkfifo', [fifo]);
  await assert.rejects(within(5000, readRegularText(fifo, { maxBytes: 1024 })), /is a FIFO, not a regular file: refused unread/);
  await assert.rejects(within(5000, readRegularText('/dev/zero', { maxBytes: 1024 })), /is a character device, not a regular file/);
  const sock = join(dir, 'sock');
  const server = createServer().listen(sock);
  await new Promise((r) => server.once('listening', r));
  try {
    await assert.rejects(within(5000, readRegularText(sock, { maxBytes: 1024 })), /is a socket, not a regular file/);
  } finally {
    server.close();
  }
  const big = join(dir, 'big');
  writeFileSync(big, '');
  truncateSync(big, 10 * 1024 ** 3); // sparse: nothing is read, or this test would take minutes
  await assert.rejects(within(5000, readRegularText(big, { maxBytes: 256 * 1024 })), /is 10 GiB; at most 256 KiB is read: refused unread/);
  const cjk = join(dir, 'cjk');
  writeFileSync(cjk, '漢'.repeat(1000)); // 1000 UTF-16 units, 3000 bytes
  await assert.rejects(readRegularText(cjk, { maxBytes: 2048 }), /is 2\.9 KiB; at most 2\.0 KiB is read/);
  const link = join(dir, 'link');
  symlinkSync(cjk, link);
  await assert.rejects(readRegularText(link, { maxBytes: 10_000, noFollow: true }), /is a symlink: not followed/);
  assert.equal((await readRegularText(link, { maxBytes: 10_000 })).length, 1000, 'a link to a regular file is read where links are allowed');
  chownSync(cjk, 65534, 65534);
  await assert.rejects(readRegularText(cjk, { maxBytes: 10_000, mine: true }), /belongs to another user/);
});

test('writes never go through a link: replace refuses a link, a FIFO or another user\'s file; create and append refuse what is there', async () => {
  const dir = tempDir('kw-safe-');
  const outside = join(tempDir('kw-safe-outside-'), 'victim');
  writeFileSync(outside, 'untouched\n');
  symlinkSync(outside, join(dir, 'link'));
  await assert.rejects(replaceFile(join(dir, 'link'), 'x', { mode: 0o644 }), /is a symlink: not writing through it/);
  await assert.rejects(createNewFile(join(dir, 'link'), 'x', 0o600), /EEXIST/);
  await assert.rejects(appendToFile(join(dir, 'link'), 'x', 0o600), /is a symlink: not followed/);
  execFileSync('mkfifo', [join(dir, 'fifo')]);
  await assert.rejects(within(5000, replaceFile(join(dir, 'fifo'), 'x', { mode: 0o644 })), /is a FIFO: not replaced/);
  await assert.rejects(within(5000, appendToFile(join(dir, 'fifo'), 'x', 0o600)), /FIFO/);
  writeFileSync(join(dir, 'theirs'), 'theirs\n');
  chownSync(join(dir, 'theirs'), 65534, 65534);
  await assert.rejects(replaceFile(join(dir, 'theirs'), 'x', { mode: 0o644 }), /belongs to another user \(uid 65534\): not replaced/);
  assert.equal(readFileSync(outside, 'utf8'), 'untouched\n');

  const kept = join(dir, 'kept');
  writeFileSync(kept, 'a\n', { mode: 0o640 });
  await replaceFile(kept, 'b\n', { mode: 'keep' });
  assert.equal(readFileSync(kept, 'utf8'), 'b\n');
  assert.equal(statSync(kept).mode & 0o777, 0o640, 'the mode is kept');
  await replaceFile(join(dir, 'link'), 'mine\n', { mode: 0o644, replaceLink: true });
  assert.equal(readFileSync(outside, 'utf8'), 'untouched\n', 'a link replaced is the link, never its target');
});

/** A transport that records whether any host was asked anything. */
function noHosts(): SshTransport & { asked: number } {
  const t = {
    asked: 0,
    exec: async () => {
      t.asked++;
      throw new Error('a host was asked');
    },
    close: async () => undefined,
  };
  return t as unknown as SshTransport & { asked: number };
}

test('the backup refuses a folder in a git tree by its real path: --out a link into a repository\'s sub-folder, before any host is asked', async () => {
  const repo = tempDir('kw-git-');
  execFileSync('git', ['init', '-q', repo]);
  mkdirSync(join(repo, 'sub'));
  const link = join(tempDir('kw-git-link-'), 'backups');
  symlinkSync(join(repo, 'sub'), link);
  assert.equal((await gitTreeHolding(link))?.top, repo);
  assert.equal((await gitTreeHolding(join(link, 'not-yet', 'made')))?.top, repo, 'a folder that does not exist yet, under the link');
  assert.equal(await gitTreeHolding(tempDir('kw-git-none-')), undefined);
  const inventory = parseInventory(readFileSync(join(__dirname, '../../../examples/labs-k8s/inventory.yaml'), 'utf8')).inventory!;
  const ssh = noHosts();
  await assert.rejects(backupEtcd({ inventory, ssh, become: () => undefined }, link), (e: Error) => e instanceof BackupRefused && e.message.includes(`inside the git work tree ${repo}`));
  assert.equal(ssh.asked, 0);
});

test('the git guard asks git itself: a work tree found through GIT_DIR and core.worktree, which has no .git of its own', async () => {
  const repo = tempDir('kw-git-');
  const work = tempDir('kw-git-work-');
  execFileSync('git', ['init', '-q', repo]);
  execFileSync('git', ['-C', repo, 'config', 'core.worktree', work]);
  const saved = process.env.GIT_DIR;
  process.env.GIT_DIR = join(repo, '.git');
  try {
    const found = await gitTreeHolding(join(work, 'backups'));
    assert.equal(found?.top, work);
    assert.match(found!.how, /git rev-parse --show-toplevel/);
  } finally {
    if (saved === undefined) delete process.env.GIT_DIR;
    else process.env.GIT_DIR = saved;
  }
  assert.equal(await gitTreeHolding(join(work, 'backups')), undefined, 'without GIT_DIR git does not see it either');
});

test('files the inventory names are read only from inside its folder, by real path, and only when regular (a FIFO is refused at once)', async () => {
  const root = tempDir('kw-confine-');
  const outside = tempDir('kw-confine-outside-');
  writeFileSync(join(outside, 'secret.yaml'), 'secret\n');
  symlinkSync(outside, join(root, 'linked'));
  const read = (p: string) => readRegularText(p, { maxBytes: 1024 * 1024 });
  await assert.rejects(readWorkspaceFile(root, 'linked/secret.yaml', read, 'cluster.cniManifest'), /leads outside the inventory folder/);
  execFileSync('mkfifo', [join(root, 'cni.yaml')]);
  await assert.rejects(within(5000, readWorkspaceFile(root, 'cni.yaml', read, 'cluster.cniManifest')), /is a FIFO, not a regular file/);
  writeFileSync(join(root, 'ok.yaml'), 'kind: List\n');
  assert.equal(await readWorkspaceFile(root, 'ok.yaml', read, 'cluster.cniManifest'), 'kind: List\n');
});

test('the admin kubeconfig is saved through a unique temp file, 0600: a link at the old fixed temp name is not written through', async () => {
  const dir = tempDir('kw-kubeconfig-');
  const path = join(dir, 'config');
  const outside = join(tempDir('kw-kubeconfig-outside-'), 'victim');
  writeFileSync(outside, 'untouched\n');
  symlinkSync(outside, `${path}.kubeadm-workbench.tmp`);
  const admin = 'apiVersion: v1\nkind: Config\nclusters:\n- name: kubernetes\n  cluster: { server: "https://10.3.60.100:6443" }\nusers:\n- name: kubernetes-admin\n  user: { client-key-data: S0VZ }\n';
  assert.equal(await saveAdminKubeconfig(path, admin, 'labs-k8s'), 'labs-k8s-admin@labs-k8s');
  assert.equal(readFileSync(outside, 'utf8'), 'untouched\n');
  assert.equal(statSync(path).mode & 0o777, 0o600);
  assert.match(readFileSync(path, 'utf8'), /client-key-data: S0VZ/);
  const linked = join(dir, 'linked');
  symlinkSync(outside, linked);
  await assert.rejects(saveAdminKubeconfig(linked, admin, 'labs-k8s'), /is a symlink: not followed/);
  assert.equal(readFileSync(outside, 'utf8'), 'untouched\n');
});

test('an inventory refused unread is one finding at its first line: inventory/not-a-file for a FIFO, inventory/too-large by bytes', async () => {
  const fifo = join(tempDir('kw-safe-'), 'inventory.yaml');
  execFileSync('mkfifo', [fifo]);
  const refusal = await readRegularText(fifo, { maxBytes: 256 * 1024 }).catch((e: FileRefused) => e);
  assert.ok(refusal instanceof FileRefused);
  const r = unreadInventory(refusal.reason, false);
  assert.deepEqual(r.findings.map((f) => `${f.rule} ${f.severity} ${f.range.start.line}`), ['inventory/not-a-file error 0']);
  assert.match(r.findings[0]!.message, /^inventory\.yaml is a FIFO, not a regular file: refused unread$/);
  assert.equal(r.inventory, undefined);
  assert.deepEqual(unreadInventory('is 1.0 GiB; at most 256 KiB is read: refused unread', true).findings.map((f) => f.rule), ['inventory/too-large']);
  const cjk = parseInventory(`${readFileSync(join(__dirname, '../../../examples/labs-k8s/inventory.yaml'), 'utf8')}# ${'漢'.repeat(100_000)}\n`);
  assert.deepEqual(cjk.findings.map((f) => f.rule), ['inventory/too-large'], 'the editor\'s parse counts bytes too');
});
