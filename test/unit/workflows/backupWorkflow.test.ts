/**
 * An etcd backup as the user meets it, front-end aside: the sudo question, the narrated steps, the refusal, the
 * report — the one workflow the editor's "Back Up etcd…" and the CLI's `backup` run, over the engine's real backup
 * against hosts that answer as etcd's do (test/unit/backup/etcdHosts.ts); the lab runs it against its etcd.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { backupWorkflow } from '../../../src/engine/workflows/backupWorkflow';
import { EtcdHosts, inv } from '../backup/etcdHosts';
import { ScriptedUi } from './scriptedUi';
import { tempDir } from '../../tempDir';

const outside = () => tempDir('kw-backup-workflow-');

test('root logins: no question; the steps narrated; the report names the backup and lists the folder', async () => {
  const out = outside();
  const ui = new ScriptedUi();
  const r = await backupWorkflow(ui, { inventory: inv, ssh: new EtcdHosts({ leader: 'm01' }), loginUser: () => 'root', out });
  assert.equal(r.kind, 'done');
  assert.equal(ui.secrets.length, 0);
  assert.deepEqual(ui.transcript.slice(0, 1), ['progress: Backing up etcd of labs-k8s']);
  const report = ui.documents.get('etcd-backup.md')!;
  assert.match(report, /^# etcd backup of labs-k8s\n\nWritten to `.*labs-k8s-\d{8}T\d{6}Z` \(every file 0600/);
  assert.match(report, /## Steps\n\n- etcd: /);
  assert.match(report, /## Backups in .*\n\n\| taken \| revision \| size \| from \| folder \|\n\| --- \| --- \| --- \| --- \| --- \|\n\| \S+ \| 4321 \| \d+ \| m02 \|/);
});

test('control-plane hosts reached as another user: the password is asked once first; backing out touches no host', async () => {
  const ssh = new EtcdHosts({ leader: 'm01' });
  const ui = new ScriptedUi({ secret: () => undefined });
  const r = await backupWorkflow(ui, { inventory: inv, ssh, loginUser: (h) => (h === 'm01' ? 'root' : 'debian'), out: outside() });
  assert.equal(r.kind, 'cancelled');
  assert.deepEqual(ui.secrets.map((s) => [s.title, [...s.hosts.keys()]]), [['sudo password for debian', ['m02', 'm03']]]);
  assert.equal(ui.transcript.some((t) => t.startsWith('progress:')), false);
});

test('a folder inside a git work tree is refused in one message, before any host is asked', async () => {
  const repo = outside();
  mkdirSync(join(repo, '.git'));
  const ui = new ScriptedUi();
  const r = await backupWorkflow(ui, { inventory: inv, ssh: new EtcdHosts(), loginUser: () => 'root', out: join(repo, 'backups') });
  assert.equal(r.kind, 'refused');
  assert.match(ui.messages('error')[0]!, /^etcd backup refused: .*inside the git work tree .*: a snapshot holds every Secret of the cluster/);
  assert.equal(ui.documents.size, 0);
});
