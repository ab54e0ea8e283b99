/**
 * Issue 34: a backup folder is untrusted input. The manifest is read through its schema (odd types, truncated
 * JSON, members it does not know, URLs that are not etcd's, each named with the file), then held against the
 * snapshot beside it and the inventory; --initial-cluster is built from the inventory only. Each named regression
 * failed on the code before: the attacker's member reached --initial-cluster, a corrupt manifest said
 * "Unexpected end of JSON input" without the file's name, `backup --list` threw a TypeError, a FIFO hung the restore.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { mkdirSync, renameSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { compareManifest, readManifest } from '../../../src/core/backup/manifest';
import type { BackupManifest } from '../../../src/core/backup/snapshot';
import { prepareRestore } from '../../../src/engine/restore';
import { main } from '../../../src/cli/main';
import { memoryIo } from '../cli/memoryIo';
import { EtcdHosts, inv, snapshotBytes } from './etcdHosts';
import { backupFolder, manifestOf } from './manifests';
import { tempDir } from '../../tempDir';

const described = manifestOf(snapshotBytes(2));
/** A fresh copy of one manifest (one snapshot described). */
const valid = (): BackupManifest => structuredClone(described);
const problems = (value: unknown): string[] => {
  const r = readManifest(typeof value === 'string' ? value : JSON.stringify(value));
  return r.ok ? [] : r.problems;
};
const withEtcdutl = () => new EtcdHosts({ downMembers: ['m01', 'm02', 'm03'], extra: (_h, t) => (t.includes('command -v etcdutl') ? { code: 0, signal: null, stdout: '/usr/local/bin/etcdutl\n53687091200\n', stderr: '' } : undefined) });
const prepare = (snapshot: string) => prepareRestore({ inventory: inv, ssh: withEtcdutl(), become: () => undefined }, snapshot, false);

test('the schema: a manifest the backup wrote passes; odd types are named by their path, never thrown', () => {
  assert.deepEqual(problems(valid()), []);
  const odd = (edit: (m: Record<string, unknown>) => void) => {
    const m = valid() as unknown as Record<string, unknown>;
    edit(m);
    return problems(m);
  };
  assert.deepEqual(odd((m) => (m.takenAt = 5)), ['takenAt is the number 5, not a string']);
  assert.deepEqual(odd((m) => (m.members = 'm01')), ['members is the string "m01", not a list']);
  assert.deepEqual(odd((m) => ((m.snapshot as Record<string, unknown>).size = '1024')), ['snapshot.size is the string "1024", not a whole number from 32']);
  assert.deepEqual(odd((m) => (m.snapshot = null)), ['snapshot is null, not an object']);
  assert.deepEqual(odd((m) => ((m.members as Record<string, unknown>[])[1]!.isLearner = 'no')), ['members[1].isLearner is the string "no", not true or false']);
  assert.deepEqual(odd((m) => delete m.cluster), ['cluster is missing']);
  assert.deepEqual(odd((m) => (m.kind = 'something-else')), ['kind is the string "something-else", not "kubeadm-workbench/etcd-backup"']);
  assert.deepEqual(odd((m) => (m.takenAt = '30/11/2026')), ['takenAt "30/11/2026" is not an ISO time like 2026-11-30T12:05:01.000Z']);
  assert.deepEqual(odd((m) => ((m.snapshot as Record<string, unknown>).sha256 = 'abc')), ['snapshot.sha256 "abc" is not a SHA-256 (64 hex digits)']);
  assert.deepEqual(odd((m) => ((m.snapshot as Record<string, unknown>).file = '../../etc/shadow')), ['snapshot.file is the string "../../etc/shadow", not "snapshot.db"']);
  assert.deepEqual(problems('[]'), ['the manifest is a list, not an object']);
  assert.deepEqual(problems('null'), ['the manifest is null, not an object']);
});

test('the schema: truncated or empty JSON, extra members, wrong URLs and names with control characters are refused', () => {
  const text = JSON.stringify(valid(), null, 2);
  assert.match(problems(text.slice(0, 200))[0]!, /^it is not valid JSON \(.*\)$/);
  assert.match(problems('')[0]!, /not valid JSON .*: the file is empty/);
  const extra = { ...valid(), initialCluster: 'evil=https://203.0.113.9:2380' };
  assert.deepEqual(problems(extra), ['"initialCluster" is not a member of a backup manifest']);
  const memberExtra = valid();
  (memberExtra.members[0] as Record<string, unknown>).initialAdvertisePeerUrls = 'x';
  assert.deepEqual(problems(memberExtra), ['members[0]."initialAdvertisePeerUrls" is not a member of a backup manifest']);
  for (const url of ['https://10.3.60.51:2380,evil=https://203.0.113.9:2380', 'https://10.3.60.51:2380 --data-dir=/', 'file:///etc/passwd', 'https://10.3.60.51']) {
    const m = valid();
    m.members[0]!.peerURLs = [url];
    assert.match(problems(m).join(), /^members\[0\]\.peerURLs\[0\] .* is not an etcd URL like https:\/\/10\.3\.60\.51:2380$/, url);
  }
  const named = valid();
  named.members[2]!.name = 'm03\u001b]0;owned\u0007';
  assert.match(problems(named).join(), /^members\[2\]\.name .* is not a host or member name$/);
  const many = valid();
  many.members = Array.from({ length: 300 }, () => many.members[0]!);
  assert.deepEqual(problems(many), ['members has 300 entries (at most 255)']);
});

test('against the snapshot and the inventory: what differs, with no member ever taken from the manifest', () => {
  const m = valid();
  const snap = { name: 'snapshot.db', size: m.snapshot.size, sha256: m.snapshot.sha256 };
  assert.deepEqual(compareManifest(m, snap, inv), { refusals: [], warnings: [] });
  assert.deepEqual(compareManifest(m, { ...snap, size: 5 }, inv).refusals, [`it gives the snapshot ${m.snapshot.size} bytes; snapshot.db has 5`]);
  assert.deepEqual(compareManifest(m, { ...snap, sha256: 'f'.repeat(64) }, inv).refusals, [`it gives the snapshot the sha256 ${m.snapshot.sha256}; snapshot.db has ${'f'.repeat(64)}`]);
  assert.deepEqual(compareManifest(m, { ...snap, name: 'other.db' }, inv).refusals, ['it describes snapshot.db, not other.db']);
  const moved = valid();
  moved.members[1]!.peerURLs = ['https://203.0.113.9:2380'];
  assert.deepEqual(compareManifest(moved, snap, inv).refusals, ["member m02 has the peer URL https://203.0.113.9:2380; the inventory's m02 is https://10.3.60.52:2380"]);
  const added = valid();
  added.members.push({ id: '1', name: 'evil', peerURLs: ['https://203.0.113.9:2380'], clientURLs: [], isLearner: false });
  assert.match(compareManifest(added, snap, inv).refusals.join(), /^member evil \(https:\/\/203\.0\.113\.9:2380\) is not a control-plane host of the inventory \(m01, m02, m03\)/);
  const fewer = valid();
  fewer.members.pop();
  assert.deepEqual(compareManifest(fewer, snap, inv), { refusals: [], warnings: ['m03 was not an etcd member when the backup was taken (2026-11-30T12:00:00.000Z); it is restored as one'] });
});

test('regression: a member added to manifest.json at an address of the attacker never reaches --initial-cluster; the restore is refused naming the file', async () => {
  const snapshot = backupFolder({ manifest: (m) => void m.members.push({ id: '1', name: 'evil', peerURLs: ['https://203.0.113.9:2380'], clientURLs: [], isLearner: false }) });
  const p = await prepare(snapshot);
  assert.equal(p.plan.phases.length, 0, 'no plan');
  assert.match(p.refusals.join('\n'), new RegExp(`^${join(dirname(snapshot), 'manifest.json').replace(/[.]/g, '\\.')}: member evil \\(https://203\\.0\\.113\\.9:2380\\) is not a control-plane host`, 'm'));
  // And a manifest that renames every member after hosts of its own choosing changes nothing either: refused.
  const renamed = await prepare(backupFolder({ manifest: (m) => void m.members.forEach((x, i) => (x.peerURLs = [`https://203.0.113.${i + 1}:2380`])) }));
  // One refusal naming the file once, with each of the three members' differing peer URL.
  assert.equal(renamed.refusals.length, 1);
  assert.equal(renamed.refusals[0]!.match(/has the peer URL https:\/\/203\.0\.113\.\d:2380/g)?.length, 3, renamed.refusals[0]);
});

test('regression: a truncated manifest is refused naming the file, not "Unexpected end of JSON input" alone', async () => {
  const snapshot = backupFolder({ manifest: (m) => JSON.stringify(m).slice(0, 120) });
  const p = await prepare(snapshot);
  assert.equal(p.refusals.length, 1);
  assert.match(p.refusals[0]!, /manifest\.json: it is not valid JSON \(.*\)\. Restore from a backup folder whose manifest\.json the backup wrote$/);
  assert.ok(p.refusals[0]!.startsWith(join(dirname(snapshot), 'manifest.json')));
});

test('regression: a snapshot that is not the one its manifest describes is refused with both digests', async () => {
  const snapshot = backupFolder({ corrupt: true });
  const p = await prepare(snapshot);
  assert.match(p.refusals.join('\n'), /trailer does not match: the file is corrupt/);
  assert.match(p.refusals.join('\n'), /manifest\.json: it gives the snapshot the sha256 [0-9a-f]{64}; snapshot\.db has [0-9a-f]{64}$/m);
});

test('regression: a FIFO or a folder named snapshot.db or manifest.json is refused at once, never read (a FIFO hung the restore)', async () => {
  const dir = tempDir('kw-restore-special-');
  const fifo = join(dir, 'snapshot.db');
  assert.equal(spawnSync('mkfifo', [fifo]).status, 0);
  const t0 = Date.now();
  const p = await prepare(fifo);
  assert.ok(Date.now() - t0 < 5000);
  assert.deepEqual(p.refusals, [`${fifo} is a FIFO, not a regular file: refused unread`]);
  // A real snapshot beside a FIFO named manifest.json.
  const snapshot = backupFolder();
  rmSync(join(dirname(snapshot), 'manifest.json'));
  assert.equal(spawnSync('mkfifo', [join(dirname(snapshot), 'manifest.json')]).status, 0);
  assert.match((await prepare(snapshot)).refusals.join(), /manifest\.json is a FIFO, not a regular file: refused unread/);
  const folder = join(tempDir('kw-restore-special-'), 'snapshot.db');
  mkdirSync(folder);
  assert.deepEqual((await prepare(folder)).refusals, [`${folder} is a folder, not a regular file: refused unread`]);
  // A manifest.json planted as a link (to a manifest that would pass) is not followed.
  const linked = backupFolder();
  const real = join(dirname(linked), 'manifest.real.json');
  renameSync(join(dirname(linked), 'manifest.json'), real);
  symlinkSync(real, join(dirname(linked), 'manifest.json'));
  assert.match((await prepare(linked)).refusals.join(), /manifest\.json is a symlink: not followed/);
});

test('regression: backup --list lists the readable backups and names each folder whose manifest fails its schema (was a TypeError)', async () => {
  const out = tempDir('kw-list-');
  const good = dirname(backupFolder());
  const write = (name: string, text: string) => {
    mkdirSync(join(out, name));
    writeFileSync(join(out, name, 'manifest.json'), text);
  };
  mkdirSync(join(out, 'labs-k8s-20261130T120000Z'));
  for (const f of ['snapshot.db', 'manifest.json']) writeFileSync(join(out, 'labs-k8s-20261130T120000Z', f), spawnSync('cat', [join(good, f)]).stdout);
  write('odd-types', JSON.stringify({ ...valid(), takenAt: 5, snapshot: 'big' }));
  write('truncated', '{"kind": "kubeadm-workbench/etcd-backup", "cluster": ');
  mkdirSync(join(out, 'not-a-backup'));
  const io = memoryIo();
  assert.equal(await main(['backup', '--out', out, '--list'], io), 0, io.err);
  assert.match(io.out, /^2026-11-30T12:00:00\.000Z {2}labs-k8s {2}revision 4321 {2}\d+ bytes {2}from m02 {2}\S+labs-k8s-20261130T120000Z\n$/);
  assert.match(io.err, /skipped \S+odd-types\/manifest\.json: takenAt is the number 5, not a string; snapshot is the string "big", not an object\n/);
  assert.match(io.err, /skipped \S+truncated\/manifest\.json: it is not valid JSON/);
  assert.doesNotMatch(io.err, /not-a-backup|TypeError/);
});
