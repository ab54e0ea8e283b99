/**
 * The Backups and Certificates views' rows as plain data, built without VS Code (views/backupRows.ts,
 * views/certificateRows.ts): what each row says, its icon and colour by state, a host or node that was not read
 * muted with its cause and the log one click away — and the same rows in Russian when the catalogue speaks it.
 */
import { after, test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { useMessages } from '../../../src/core/l10n';
import type { BackupManifest } from '../../../src/core/backup/snapshot';
import type { CertReport } from '../../../src/core/certs/report';
import type { LocalBackup } from '../../../src/editor/etcdBackups';
import type { LiveNode } from '../../../src/editor/treeNodes';
import { buildBackupsTree } from '../../../src/views/backupRows';
import { buildCertificateTree } from '../../../src/views/certificateRows';
import { ERR, MUTED, OK, WARN } from '../../../src/views/rowLook';
import { ROOT } from '../haproxy/helpers';

after(() => useMessages('en', undefined));

const NOW = Date.parse('2026-12-05T12:00:00Z');
const DAY = 86_400;

function backup(trailer: 'verified' | 'absent', takenAgoSeconds: number): LocalBackup {
  const manifest: BackupManifest = {
    kind: 'kubeadm-workbench/etcd-backup', version: 1, cluster: 'labs-k8s', controlPlaneEndpoint: '10.3.60.100:6443',
    takenAt: new Date(NOW - takenAgoSeconds * 1000).toISOString(), durationMs: 640, host: 'm01',
    member: { id: '8e9e05c52164694d', name: 'm01', wasLeader: true },
    members: ['m01', 'm02', 'm03'].map((name, i) => ({ id: `${i + 1}`, name, peerURLs: [], clientURLs: [], isLearner: false })),
    statusFrom: 'etcdutl', revisionAtSave: 4242,
    snapshot: { file: 'snapshot.db', size: 1_462_304, sha256: 'a'.repeat(64), trailer },
    files: [], warnings: [],
  };
  return { dir: `/backups/labs-k8s-${takenAgoSeconds}`, manifest };
}

const byId = (nodes: readonly LiveNode[], id: string): LiveNode => {
  const found = nodes.flatMap((n) => [n, ...(n.children ?? [])]).find((n) => n.id === id);
  assert.ok(found, `row ${id}`);
  return found;
};

test('backups: local backups with their age, revision and size; a snapshot without its trailer in the warning colour', () => {
  const [local, nodes] = buildBackupsTree('/backups', [backup('verified', 300), backup('absent', 2 * DAY)], undefined, NOW);
  assert.equal(local!.label, 'Local backups');
  assert.equal(local!.description, '/backups · 2');
  const [fresh, old] = local!.children!;
  assert.match(fresh!.description!, /^labs-k8s · 5 ?min ago · rev 4242 · 1\.5 MB$/);
  assert.equal(fresh!.color, undefined, 'a verified snapshot is not coloured');
  assert.equal(old!.color, WARN, 'no trailer: the warning colour');
  assert.equal(fresh!.contextValue, 'etcd-backup', 'its Restore / Open Folder menu');
  assert.match((fresh!.tooltip as { markdown: string }).markdown, /sha256 `a{64}` · trailer verified/);
  assert.match(nodes!.description!, /not read: Refresh reads them over SSH/);
  const none = buildBackupsTree('/empty', [], undefined, NOW)[0]!.children!;
  assert.deepEqual(none.map((n) => n.label), ['No backup in this folder yet']);
});

test('scheduled snapshots: healthy, overdue and not read — the node not read is muted, with its cause and the log', () => {
  const schedules = [
    { host: 'm01', timerActive: true, installed: true, intervalSeconds: 3600, snapshots: [{ name: 'etcd-1.db', bytes: 1_000_000, takenAt: NOW - 600_000 }], newestAgeSeconds: 600 },
    { host: 'm02', timerActive: true, installed: true, intervalSeconds: 3600, snapshots: [{ name: 'etcd-0.db', bytes: 1_000_000, takenAt: NOW - 3 * 3_600_000 }], newestAgeSeconds: 3 * 3600 },
    { host: 'm03', error: 'no route to host' },
  ];
  const nodes = buildBackupsTree('/backups', [], schedules, NOW, NOW)[1]!;
  assert.equal(nodes.description, '2 of 3 control-plane node(s) read · 1 not read');
  assert.equal(nodes.color, ERR, 'the worst node decides: more than two intervals old');
  const m01 = byId([nodes], 'schedule:m01');
  assert.equal(m01.color, OK);
  assert.equal(m01.icon, 'history');
  assert.equal(byId([nodes], 'schedule:m02').color, ERR);
  const m03 = byId([nodes], 'schedule:m03');
  assert.equal(m03.color, MUTED, 'not read is not a finding');
  assert.equal(m03.description, 'not read: no route to host');
  assert.equal(m03.command?.command, 'kubeadm.showLog');
});

const report = (): CertReport => ({
  cluster: 'labs-k8s', at: new Date(NOW).toISOString(), thresholds: { warningDays: 30, errorDays: 7 } as CertReport['thresholds'],
  hosts: [
    { host: 'w01', address: '10.3.60.54', controlPlane: false, entries: [], error: 'host key not trusted' },
    {
      host: 'm01', address: '10.3.60.51', controlPlane: true,
      entries: [
        { host: 'm01', id: 'apiserver', path: '/etc/kubernetes/pki/apiserver.crt', role: 'serving', daysLeft: 20, expiry: 'warning', problems: [], notes: [], facts: { subject: 'CN=kube-apiserver', issuer: 'CN=kubernetes', notBefore: '2025-12-25T00:00:00Z', notAfter: '2026-12-25T00:00:00Z', dnsNames: ['kubernetes'], ipAddresses: ['10.3.60.100'] } as never },
        { host: 'm01', id: 'ca', path: '/etc/kubernetes/pki/ca.crt', role: 'ca', daysLeft: 3000, expiry: 'ok', problems: [], notes: [], facts: { subject: 'CN=kubernetes', issuer: 'CN=kubernetes', notBefore: '2025-01-01T00:00:00Z', notAfter: '2035-01-01T00:00:00Z', dnsNames: [], ipAddresses: [] } as never },
      ],
    },
  ],
  served: [], local: [],
} as CertReport);

test('certificates: the control plane first, sorted by days left, coloured by threshold; a host not read is muted', () => {
  const [m01, w01] = buildCertificateTree(report());
  assert.equal(m01!.label, 'm01', 'control-plane hosts first');
  assert.equal(m01!.description, '2 certificates · soonest 20d');
  assert.equal(m01!.color, WARN, 'the worst certificate decides');
  assert.deepEqual(m01!.children!.map((c) => [c.label, c.color]), [['apiserver', WARN], ['ca', OK]]);
  assert.match(m01!.children![0]!.description!, /^20d left · 2026-12-25$/);
  assert.match((m01!.children![0]!.tooltip as { markdown: string }).markdown, /SANs: kubernetes, 10\.3\.60\.100/);
  assert.equal(w01!.color, MUTED);
  assert.equal(w01!.description, 'not read: host key not trusted');
  assert.equal(w01!.command?.command, 'kubeadm.showLog');
});

test('the same rows in Russian when the catalogue speaks it (the bundle the editor hands over)', () => {
  const bundle = JSON.parse(readFileSync(join(ROOT, 'l10n/bundle.l10n.ru.json'), 'utf8')) as Record<string, string>;
  assert.deepEqual(useMessages('ru', bundle), []);
  try {
    const [local] = buildBackupsTree('/backups', [], undefined, NOW);
    assert.equal(local!.label, bundle['Local backups']);
    assert.equal(local!.children![0]!.label, bundle['No backup in this folder yet']);
    const [, w01] = buildCertificateTree(report());
    assert.equal(w01!.description, bundle['not read: {0}']!.replace('{0}', 'host key not trusted'));
    assert.notEqual(w01!.description, 'not read: host key not trusted');
  } finally {
    useMessages('en', undefined);
  }
});
