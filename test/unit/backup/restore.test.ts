/**
 * `restore` below SSH: what it refuses before anything stops (a healthy quorum without --force, a corrupt
 * or foreign snapshot, a host without etcdutl), the members it recreates, and the plan's order and
 * commands. The lab test restores the lab cluster from a backup for real.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { initialCluster, restoreMemberCommand } from '../../../src/core/backup/restorePlan';
import type { BackupManifest } from '../../../src/core/backup/snapshot';
import { prepareRestore, restoreMembers } from '../../../src/engine/restore';
import { EtcdHosts, inv, snapshotBytes, type FakeOptions } from './etcdHosts';
import { tempDir } from '../../tempDir';

const ok = (stdout: string) => ({ code: 0, signal: null, stdout, stderr: '' });
const fail = { code: 1, signal: null, stdout: '', stderr: '' };

function backupDir(opts: { corrupt?: boolean; cluster?: string; manifest?: boolean } = {}): string {
  const dir = tempDir('kw-restore-');
  const snap = snapshotBytes(5);
  if (opts.corrupt) snap[100] ^= 1;
  writeFileSync(join(dir, 'snapshot.db'), snap);
  if (opts.manifest !== false) {
    const manifest: Partial<BackupManifest> = {
      kind: 'kubeadm-workbench/etcd-backup',
      cluster: opts.cluster ?? 'labs-k8s',
      takenAt: '2026-11-30T12:00:00.000Z',
      members: ['m01', 'm02', 'm03'].map((n, i) => ({ id: String(i), name: `node-${n}`, host: n, peerURLs: [`https://10.3.60.5${i + 1}:2380`], clientURLs: [], isLearner: false })),
    };
    writeFileSync(join(dir, 'manifest.json'), JSON.stringify(manifest));
  }
  return join(dir, 'snapshot.db');
}

const hosts = (o: FakeOptions & { noEtcdutl?: string[] } = {}) =>
  new EtcdHosts({ ...o, extra: (host, text) => (text.includes('command -v etcdutl') ? (o.noEtcdutl?.includes(host) ? fail : ok('/usr/local/bin/etcdutl\n')) : undefined) });

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

test('members: the backup names them; without a manifest, the inventory does', async () => {
  const p = await prepareRestore({ inventory: inv, ssh: hosts({ downMembers: ['m01', 'm02', 'm03'] }), become: () => undefined }, backupDir(), false);
  assert.deepEqual(p.members.map((m) => `${m.host}:${m.name}=${m.peerURL}`), ['m01:node-m01=https://10.3.60.51:2380', 'm02:node-m02=https://10.3.60.52:2380', 'm03:node-m03=https://10.3.60.53:2380']);
  assert.deepEqual(restoreMembers(inv, undefined).map((m) => m.name), ['m01', 'm02', 'm03']);
  const bare = await prepareRestore({ inventory: inv, ssh: hosts({ downMembers: ['m01', 'm02', 'm03'] }), become: () => undefined }, backupDir({ manifest: false }), false);
  assert.match(bare.warnings.join(), /no manifest\.json/);
});

test('the plan: stop everywhere → restore each member → etcd together → members → API servers → Nodes Ready', async () => {
  const p = await prepareRestore({ inventory: inv, ssh: hosts({ downMembers: ['m01', 'm02', 'm03'] }), become: () => undefined, now: () => new Date('2026-11-30T13:00:00Z') }, backupDir(), false);
  assert.deepEqual(
    p.plan.phases.map((ph) => `${ph.order}:${ph.steps.map((s) => s.id.split('/').slice(1).join('/')).join(',')}`),
    [
      'parallel:m01/stop,m02/stop,m03/stop',
      'parallel:m01/restore,m02/restore,m03/restore',
      'parallel:m01/etcd,m02/etcd,m03/etcd',
      'parallel:m01/members',
      'parallel:m01/apiserver,m02/apiserver,m03/apiserver',
      'parallel:m01/nodes',
    ],
  );
  const restore = p.plan.phases[1]!.steps[1]!;
  const cmd = (restore.run as { display: string }).display;
  // etcdutl: the host's, else copied out of the cluster's own etcd image (nothing for the user to install)
  assert.match(cmd, /if command -v etcdutl >\/dev\/null 2>&1; then etcdutl=etcdutl;[^]*ctr -n k8s\.io images mount "\$img" "\$mnt"[^]*cp "\$mnt\/usr\/local\/bin\/etcdutl"/);
  assert.match(cmd, /"\$etcdutl" snapshot restore snapshot\.db --name "\$3" --initial-cluster "\$4" --initial-advertise-peer-urls "\$5" --initial-cluster-token "\$6" --data-dir "\$new" \$bump/);
  assert.match(cmd, /--bump-revision 1000000000 --mark-compacted/);
  assert.match(cmd, / kw [0-9a-f]{64} 20261130130000 node-m02 node-m01=https:\/\/10\.3\.60\.51:2380,node-m02=https:\/\/10\.3\.60\.52:2380,node-m03=https:\/\/10\.3\.60\.53:2380 https:\/\/10\.3\.60\.52:2380 kw-restore-20261130130000$/);
  assert.match(cmd, /mv "\$d" "\$d\.kw-before-restore-\$2"/, 'the old data dir is kept aside');
  assert.equal(restore.files![0]!.secret, true);
  assert.equal(restore.files![0]!.mode, 0o600);
  assert.throws(() => restoreMemberCommand(p.members[0]!, p.members, 'nothex', '20261130130000'), /bad sha256/);
  assert.equal(initialCluster([{ host: 'a', name: 'a', peerURL: 'https://1.2.3.4:2380' }]), 'a=https://1.2.3.4:2380');
});
