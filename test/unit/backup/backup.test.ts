/**
 * The backup workflow below SSH. The "hosts" answer etcdctl's JSON (member list, endpoint status) and the
 * save script's sections as the real ones do, and stream a snapshot-shaped file (bbolt-sized body + its
 * SHA-256 trailer) as raw bytes in uneven chunks. The lab test (test/lab/day2.test.ts) runs the same path
 * against the lab cluster's etcd.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdirSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { isSnapshotPath, markedSections, snapshotReadCommand, snapshotSaveCommand } from '../../../src/core/backup/commands';
import { backupDirName, chooseSnapshotSource, parseSnapshotStatus, SnapshotChecksum } from '../../../src/core/backup/snapshot';
import { readManifest } from '../../../src/core/backup/manifest';
import { buildEtcd, parseEndpointStatus, parseMemberList } from '../../../src/core/live/etcd';
import { backupEtcd, BackupRefused, listBackups } from '../../../src/engine/backup';
import { EtcdHosts, IDS, inv, memberList, snapshotBytes, statusOf } from './etcdHosts';
import { tempDir } from '../../tempDir';

const outside = () => tempDir('kw-backups-');
const AT = new Date('2026-11-30T12:05:01.123Z');

test('backup of an etcd 3.5 cluster (Kubernetes 1.33): its snapshot status has no storage version, the manifest names the server version and passes its schema', async () => {
  const out = outside();
  const r = await backupEtcd({ inventory: inv, ssh: new EtcdHosts({ leader: 'm01', etcd35: true }), become: () => undefined, now: () => AT }, out);
  assert.equal(r.manifest.etcdVersion, '3.5.24');
  assert.equal(r.manifest.status?.version, undefined);
  assert.equal(readManifest(readFileSync(join(r.dir, 'manifest.json'), 'utf8')).ok, true);
});

test('backup: from a healthy follower, verified, pulled 0600 with its manifest, removed from the host', async () => {
  const ssh = new EtcdHosts({ leader: 'm01' });
  const out = outside();
  const lines: string[] = [];
  const r = await backupEtcd({ inventory: inv, ssh, become: () => undefined, say: (l) => lines.push(l), now: () => AT }, out);
  assert.equal(r.dir, join(out, 'labs-k8s-20261130T120501Z'));
  assert.equal(r.manifest.host, 'm02', 'm01 leads: the first healthy follower is used');
  assert.equal(r.manifest.member.wasLeader, false);
  assert.deepEqual(readdirSync(r.dir).sort(), ['cluster-configuration.yaml', 'etcd-ca.crt', 'manifest.json', 'snapshot.db']);
  assert.ok(readFileSync(join(r.dir, 'snapshot.db')).equals(ssh.snapshot), 'the copy is byte for byte the snapshot');
  for (const f of readdirSync(r.dir)) assert.equal(statSync(join(r.dir, f)).mode & 0o777, 0o600, f);
  assert.equal(statSync(r.dir).mode & 0o777, 0o700);
  const m = JSON.parse(readFileSync(join(r.dir, 'manifest.json'), 'utf8'));
  assert.equal(m.cluster, 'labs-k8s');
  assert.equal(m.status.revision, 4321);
  assert.equal(m.status.totalKey, 1104);
  assert.equal(m.statusFrom, 'etcdutl in the etcd container');
  assert.equal(m.etcdVersion, '3.6.0');
  assert.equal(m.snapshot.trailer, 'verified');
  assert.equal(m.snapshot.size, ssh.snapshot.length);
  assert.deepEqual(m.members.map((x: { name: string; host: string }) => `${x.name}@${x.host}`), ['m01@m01', 'm02@m02', 'm03@m03']);
  assert.ok(ssh.log.some((c) => c.host === 'm02' && /rm -f -- \/var\/lib\/etcd\/kw-snapshot-\d+\.db$/.test(c.display)), 'the snapshot is removed from the host');
  assert.ok(lines.some((l) => /snapshot from m02 on m02: a healthy follower/.test(l)));
  assert.deepEqual((await listBackups(out)).map((b) => b.manifest.host), ['m02']);
});

test('backup: a corrupted transfer is refused, the half-written folder removed, the host cleaned up', async () => {
  const ssh = new EtcdHosts({ corrupt: true });
  const out = outside();
  await assert.rejects(backupEtcd({ inventory: inv, ssh, become: () => undefined, now: () => AT }, out), /the copy differs from the snapshot on m01/);
  assert.deepEqual(readdirSync(out), []);
  assert.ok(ssh.log.some((c) => c.display.includes('rm -f -- /var/lib/etcd/kw-snapshot-')));
});

test('backup: refused inside a git work tree, and when no member is healthy', async () => {
  const repo = outside();
  mkdirSync(join(repo, '.git'));
  await assert.rejects(backupEtcd({ inventory: inv, ssh: new EtcdHosts(), become: () => undefined }, join(repo, 'backups')), (e: Error) => e instanceof BackupRefused && /inside the git work tree/.test(e.message));
  const dead = new EtcdHosts({ down: ['m01', 'm02', 'm03'] });
  await assert.rejects(backupEtcd({ inventory: inv, ssh: dead, become: () => undefined }, outside()), /cannot read etcd on any control-plane host/);
});

test('backup: through sudo for non-root logins, and without etcdutl the trailer still vouches for the copy', async () => {
  const ssh = new EtcdHosts({ etcdutl: false, down: ['m01'] });
  const r = await backupEtcd({ inventory: inv, ssh, become: () => ({}), now: () => AT }, outside());
  assert.equal(r.manifest.host, 'm03', 'm01 is down and m02 leads');
  assert.equal(r.manifest.status, undefined);
  assert.equal(r.manifest.revisionAtSave, 4321);
  assert.match(r.manifest.warnings.join(), /checked by its SHA-256 trailer only/);
  assert.ok(ssh.log.filter((c) => c.host === 'm03').every((c) => c.display.startsWith('sudo -n')));
});

test('member choice: follower first, the leader when alone, refused without a healthy member', () => {
  const { members, clusterId } = parseMemberList(memberList);
  const model = (leader: string, down: string[]) => buildEtcd({ members, clusterId, statuses: parseEndpointStatus(`[${Object.keys(IDS).map(statusOf(leader, down)).filter(Boolean).join(',')}]`) }, 'test', 0, inv);
  const a = chooseSnapshotSource(model('m01', []), inv);
  assert.ok(a.ok && a.host === 'm02');
  const b = chooseSnapshotSource(model('m03', ['m01', 'm02']), inv);
  assert.ok(b.ok && b.host === 'm03' && /the leader/.test(b.why));
  const c = chooseSnapshotSource(model('m01', ['m01', 'm02', 'm03']), inv);
  assert.ok(!c.ok);
});

test('snapshot checks: trailer, status JSON, names and paths', () => {
  const snap = snapshotBytes(3);
  const whole = new SnapshotChecksum();
  for (let i = 0; i < snap.length; i += 1000) whole.update(snap.subarray(i, i + 1000));
  assert.equal(whole.digest().trailer, 'verified');
  const bad = Buffer.from(snap);
  bad[10] ^= 1;
  const b = new SnapshotChecksum();
  b.update(bad);
  assert.equal(b.digest().trailer, 'mismatch');
  const cut = new SnapshotChecksum();
  cut.update(snap.subarray(0, snap.length - 100));
  assert.equal(cut.digest().trailer, 'absent');

  assert.deepEqual(parseSnapshotStatus('Deprecated: …\n{"hash":1,"revision":2,"totalKey":3,"totalSize":4,"version":"3.6.0"}\n'), { hash: 1, revision: 2, totalKey: 3, totalSize: 4, version: '3.6.0' });
  assert.equal(parseSnapshotStatus('Error: snapshot file has no trailer'), undefined);
  // etcd 3.5 has no storage version in a snapshot (an empty string): none, so the member's server version names it.
  assert.deepEqual(parseSnapshotStatus('{"hash":1,"revision":2,"totalKey":3,"totalSize":4,"version":""}'), { hash: 1, revision: 2, totalKey: 3, totalSize: 4 });
  assert.equal(backupDirName('../evil name', AT), 'evil-name-20261130T120501Z');
  assert.ok(isSnapshotPath('/var/lib/etcd/kw-snapshot-20261130120501123.db'));
  for (const p of ['/var/lib/etcd/../../etc/shadow/kw-snapshot-1234567890.db', 'var/kw-snapshot-12345678.db', '/x/kw-snapshot-1.db', "/x/kw-snapshot-12345678.db; rm -rf /"]) assert.ok(!isSnapshotPath(p), p);
  assert.throws(() => snapshotReadCommand('/etc/shadow'), /not a snapshot this tool wrote/);
  assert.throws(() => snapshotSaveCommand('1; reboot'), /bad snapshot stamp/);
  assert.deepEqual([...markedSections('junk\n\u001ekw-a 1\n\u001ekw-b\nx\ny\n').entries()], [['a', '1'], ['b', 'x\ny']]);
});
