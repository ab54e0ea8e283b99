/**
 * `restore` below SSH: what it refuses before anything stops (a healthy quorum without --force, a corrupt
 * or foreign snapshot, a host without etcdutl), the members it recreates, and the plan's order and
 * commands. The lab test restores the lab cluster from a backup for real.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { initialCluster, restoreMemberCommand } from '../../../src/core/backup/restorePlan';
import { prepareRestore, restoreMembers } from '../../../src/engine/restore';
import { EtcdHosts, inv, type FakeOptions } from './etcdHosts';
import { backupFolder } from './manifests';

const ok = (stdout: string) => ({ code: 0, signal: null, stdout, stderr: '' });
const fail = { code: 1, signal: null, stdout: '', stderr: '' };
const backupDir = (opts: { corrupt?: boolean; cluster?: string; manifest?: boolean } = {}) => backupFolder({ ...opts, manifest: opts.manifest === false ? false : undefined });

const hosts = (o: FakeOptions & { noEtcdutl?: string[]; freeBytes?: number } = {}) =>
  new EtcdHosts({ ...o, extra: (host, text) => (text.includes('command -v etcdutl') ? (o.noEtcdutl?.includes(host) ? fail : ok(`/usr/local/bin/etcdutl\n${o.freeBytes ?? 50 * 1024 ** 3}\n`)) : undefined) });

test('restore is refused while etcd has a healthy quorum, unless forced', async () => {
  const refused = await prepareRestore({ inventory: inv, ssh: hosts(), become: () => undefined }, backupDir(), false);
  assert.equal(refused.quorumHealthy, true);
  assert.match(refused.refusals.join('\n'), /etcd still has a healthy quorum \(3 members · quorum 2 · tolerates 1 failure\).*taken 2026-11-30T12:00:00.000Z.*Refused; pass --force/);
  const forced = await prepareRestore({ inventory: inv, ssh: hosts(), become: () => undefined }, backupDir(), true);
  assert.deepEqual(forced.refusals, []);
  assert.match(forced.warnings.join(), /forced/);
  // Quorum lost (two members down): no --force needed.
  const lost = await prepareRestore({ inventory: inv, ssh: hosts({ downMembers: ['m02', 'm03'] }), become: () => undefined }, backupDir(), false);
  assert.equal(lost.quorumHealthy, false);
  assert.deepEqual(lost.refusals, []);
});

test('restore refuses a corrupt or foreign snapshot and hosts without etcdutl', async () => {
  const down = { downMembers: ['m01', 'm02', 'm03'] };
  const corrupt = await prepareRestore({ inventory: inv, ssh: hosts(down), become: () => undefined }, backupDir({ corrupt: true }), false);
  assert.match(corrupt.refusals.join(), /trailer does not match: the file is corrupt/);
  const foreign = await prepareRestore({ inventory: inv, ssh: hosts(down), become: () => undefined }, backupDir({ cluster: 'other' }), false);
  assert.match(foreign.refusals.join(), /the backup is of cluster "other"/);
  const noUtl = await prepareRestore({ inventory: inv, ssh: hosts({ ...down, noEtcdutl: ['m02'] }), become: () => undefined }, backupDir(), false);
  assert.match(noUtl.refusals.join(), /m02: no etcdutl on the host/);
});

test('members: always the inventory\'s control-plane hosts, named after their nodes; without a manifest too', async () => {
  const p = await prepareRestore({ inventory: inv, ssh: hosts({ downMembers: ['m01', 'm02', 'm03'] }), become: () => undefined }, backupDir(), false);
  assert.deepEqual(p.refusals, []);
  assert.deepEqual(p.members.map((m) => `${m.host}:${m.name}=${m.peerURL}`), ['m01:m01=https://10.3.60.51:2380', 'm02:m02=https://10.3.60.52:2380', 'm03:m03=https://10.3.60.53:2380']);
  assert.deepEqual(restoreMembers(inv).map((m) => m.name), ['m01', 'm02', 'm03']);
  const bare = await prepareRestore({ inventory: inv, ssh: hosts({ downMembers: ['m01', 'm02', 'm03'] }), become: () => undefined }, backupDir({ manifest: false }), false);
  assert.match(bare.warnings.join(), /no manifest\.json/);
  assert.deepEqual(bare.refusals, []);
});

test('a node without room for the snapshot and the data dir restored from it is refused before anything stops', async () => {
  const p = await prepareRestore({ inventory: inv, ssh: hosts({ downMembers: ['m01', 'm02', 'm03'], freeBytes: 10_000 }), become: () => undefined }, backupDir(), false);
  assert.match(p.refusals.join('\n'), /^m01: 0 MiB free in \/var\/lib, the restore needs 64 MiB there \(the snapshot and the data dir restored from it\): free some space first$/m);
});

test('the plan: send to every member → stop everywhere → restore each member → etcd together → members → API servers → Nodes Ready', async () => {
  const p = await prepareRestore({ inventory: inv, ssh: hosts({ downMembers: ['m01', 'm02', 'm03'] }), become: () => undefined, now: () => new Date('2026-11-30T13:00:00Z') }, backupDir(), false);
  assert.deepEqual(
    p.plan.phases.map((ph) => `${ph.order}:${ph.steps.map((s) => s.id.split('/').slice(1).join('/')).join(',')}`),
    [
      'parallel:m01/send,m02/send,m03/send',
      'parallel:m01/stop,m02/stop,m03/stop',
      'parallel:m01/restore,m02/restore,m03/restore',
      'parallel:m01/etcd,m02/etcd,m03/etcd',
      'parallel:m01/members',
      'parallel:m01/apiserver,m02/apiserver,m03/apiserver',
      'parallel:m01/nodes',
    ],
  );
  const send = p.plan.phases[0]!.steps[1]!;
  assert.equal(send.stream!.path, '/var/lib/kw-restore/snapshot.db');
  assert.equal(send.stream!.mode, 0o600);
  assert.equal(send.stream!.size, p.snapshotSize);
  assert.match(send.check!.display, /sha256sum -c --status/, 'a node that has it already is skipped');
  assert.equal(send.files, undefined, 'nothing of the snapshot in memory: no file content');
  const restore = p.plan.phases[2]!.steps[1]!;
  const cmd = (restore.run as { display: string }).display;
  assert.match(cmd, /echo "\$1  snapshot\.db" \| sha256sum -c --status - \|\| \{ echo "snapshot\.db on this node is not the snapshot sent/, 'checked on the node before use');
  // etcdutl: the host's, else copied out of the cluster's own etcd image (nothing for the user to install)
  assert.match(cmd, /if command -v etcdutl >\/dev\/null 2>&1; then etcdutl=etcdutl;[^]*ctr -n k8s\.io images mount "\$img" "\$mnt"[^]*cp "\$mnt\/usr\/local\/bin\/etcdutl"/);
  assert.match(cmd, /"\$etcdutl" snapshot restore snapshot\.db --name "\$3" --initial-cluster "\$4" --initial-advertise-peer-urls "\$5" --initial-cluster-token "\$6" --data-dir "\$new" \$bump/);
  assert.match(cmd, /--bump-revision 1000000000 --mark-compacted/);
  assert.match(cmd, / kw [0-9a-f]{64} 20261130130000 m02 m01=https:\/\/10\.3\.60\.51:2380,m02=https:\/\/10\.3\.60\.52:2380,m03=https:\/\/10\.3\.60\.53:2380 https:\/\/10\.3\.60\.52:2380 kw-restore-20261130130000$/);
  assert.match(cmd, /mv "\$d" "\$d\.kw-before-restore-\$2"/, 'the old data dir is kept aside');
  assert.equal(restore.files, undefined);
  assert.throws(() => restoreMemberCommand(p.members[0]!, p.members, 'nothex', '20261130130000'), /bad sha256/);
  assert.equal(initialCluster([{ host: 'a', name: 'a', peerURL: 'https://1.2.3.4:2380' }]), 'a=https://1.2.3.4:2380');
});
