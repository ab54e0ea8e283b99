/**
 * The Backups view in real VS Code: a backup folder of real backups (written by the backup code itself, from etcd
 * hosts played below SSH as in test/unit/backup) is listed newest first with cluster, revision and size, and
 * "Restore from this backup…" on a row runs the restore workflow, which refuses a backup of another cluster before
 * it asks any host anything. (The workspace's inventory names the lab's addresses: this suite contacts no host. The
 * healthy-quorum refusal and its typed confirmation are the workflow's unit test, over the same played etcd hosts.)
 * "Schedule etcd Snapshots…" sits in the view's title bar and runs the schedule workflow over control-plane hosts
 * played below SSH (they take every command), after which the view reads each node's timer again.
 */
import * as assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { existsSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import * as vscode from 'vscode';
import { api, extension, scripted, waitFor } from './helpers';
import { AcceptingHosts } from '../../unit/backup/acceptingHosts';
import { scheduleStatusCommand } from '../../../src/core/backup/schedule';
import { EtcdHosts, inv } from '../../unit/backup/etcdHosts';
import { backupEtcd } from '../../../src/engine/backup';
import type { LiveNode } from '../../../src/editor/treeNodes';
import { tempDir } from '../../tempDir';

suite('Backups view', function () {
  this.timeout(60_000);
  let dir: string;
  const written: string[] = [];

  suiteSetup(async () => {
    dir = tempDir('kw-backups-view-');
    const take = async (cluster: string, at: string) => {
      const r = await backupEtcd({ inventory: { ...inv, cluster: { ...inv.cluster, name: cluster } }, ssh: new EtcdHosts(), become: () => undefined, now: () => new Date(at) }, dir);
      written.push(r.dir);
    };
    await take('labs-k8s', '2026-11-29T06:00:00Z');
    await take('labs-k8s', '2026-11-30T06:00:00Z');
    await take('other', '2026-11-28T06:00:00Z');
    await vscode.workspace.getConfiguration('kubeadmWorkbench').update('backup.folder', dir, vscode.ConfigurationTarget.Global);
  });

  suiteTeardown(async () => {
    await vscode.workspace.getConfiguration('kubeadmWorkbench').update('backup.folder', undefined, vscode.ConfigurationTarget.Global);
    if (dir) rmSync(dir, { recursive: true, force: true });
  });

  const localRows = async (): Promise<LiveNode[]> => (await api()).backupsView.nodes.find((n) => n.id === 'backups:local')?.children ?? [];

  test('lists the folder’s backups from their manifests, newest first, with cluster, revision and size', async () => {
    const rows = await waitFor('three backups in the view', async () => ((await localRows()).length === 3 ? localRows() : undefined));
    assert.deepEqual(rows.map((r) => r.path), [written[1], written[0], written[2]]);
    const size = statSync(join(written[1]!, 'snapshot.db')).size;
    assert.match(rows[0]!.description ?? '', new RegExp(`^labs-k8s · .* ago · rev 4321 · ${(size / 1000).toFixed(1).replace('.', '\\.')} kB$`));
    assert.match(rows[2]!.description ?? '', /^other · /);
    assert.ok(rows.every((r) => r.contextValue === 'etcd-backup'));
    const tooltip = rows[0]!.tooltip as { markdown: string };
    assert.match(tooltip.markdown, /sha256 `[0-9a-f]{64}` · trailer verified/);
    const root = (await api()).backupsView.nodes[0]!;
    assert.match(root.description ?? '', /· 3$/);
    assert.equal(root.path, dir);
  });

  test('Restore from this backup… refuses another cluster’s backup before asking any host', async () => {
    const ui = await scripted({ confirm: (r) => r.actions[0], message: (_l, _t, actions) => actions[0], input: () => 'labs-k8s' });
    try {
      const row = (await localRows()).find((r) => r.path === written[2]);
      await vscode.commands.executeCommand('kubeadm.restoreFromBackup', row);
    } finally {
      ui.restore();
    }
    assert.ok(ui.messages('error').some((m) => /^Restore of labs-k8s refused; nothing was done: \S*manifest\.json: the backup is of cluster "other", the inventory is "labs-k8s"/.test(m) && m.length < 400), ui.transcript.join('\n'));
    assert.equal(ui.confirms.length, 0, 'no plan offered');
    assert.ok(!ui.transcript.some((t) => /^show: restore-/.test(t)), ui.transcript.join('\n'));
  });

  test('a path that is not a backup of the folder is refused', async () => {
    const ui = await scripted({});
    try {
      await vscode.commands.executeCommand('kubeadm.restoreFromBackup', tmpdir());
    } finally {
      ui.restore();
    }
    assert.ok(ui.messages('error').some((m) => m.startsWith(`${tmpdir()} is not a backup in ${dir}`)), ui.transcript.join('\n'));
  });

  test('Schedule etcd Snapshots… is in the Backups title bar; it shows the plan, installs a timer on every control-plane node, and the view reads them back', async () => {
    const pkg = extension().packageJSON as { contributes: { commands: { command: string; title: string }[]; menus: Record<string, { command: string; when?: string }[]> } };
    assert.equal(pkg.contributes.commands.find((c) => c.command === 'kubeadm.scheduleEtcdSnapshots')?.title, 'Schedule etcd Snapshots…');
    assert.ok(pkg.contributes.menus['view/title']!.some((m) => m.command === 'kubeadm.scheduleEtcdSnapshots' && /view == kubeadm\.backups/.test(m.when ?? '')));
    const a = await api();
    assert.ok(a.substituteSsh, 'the test harness runs the extension host with KW_TEST_UI=1');
    const hosts = new AcceptingHosts();
    a.substituteSsh(() => hosts);
    const ui = await scripted({ pick: (_t, items) => items.find((i) => /^Install or update: every 12 h, keep the newest 5/.test(i.label)), confirm: (r) => r.actions[0] });
    try {
      await vscode.commands.executeCommand('kubeadm.scheduleEtcdSnapshots');
    } finally {
      ui.restore();
      a.substituteSsh(undefined);
    }
    const plan = vscode.workspace.textDocuments.find((t) => t.uri.path === '/backup-schedule-labs-k8s-plan.txt')?.getText() ?? '';
    assert.match(plan, /etcd snapshots every 43200 s, keep 5/, ui.transcript.join('\n'));
    assert.ok(ui.runs[0]?.finished?.ok, ui.transcript.join('\n'));
    const enabled = hosts.log.filter((l) => /systemctl enable --now kubeadm-workbench-etcd-snapshot\.timer/.test(l)).map((l) => l.split(':')[0]).sort();
    assert.deepEqual(enabled, ['labs-k8s-m01', 'labs-k8s-m02', 'labs-k8s-m03']);
    const status = scheduleStatusCommand().text;
    assert.deepEqual(hosts.log.filter((l) => l.endsWith(status)).map((l) => l.split(':')[0]).sort(), enabled, 'the view read each node\'s timer after the run');
    const scheduled = a.backupsView.nodes.find((n) => n.id === 'backups:scheduled');
    assert.deepEqual(scheduled?.children?.map((c) => c.id).sort(), ['schedule:labs-k8s-m01', 'schedule:labs-k8s-m02', 'schedule:labs-k8s-m03']);
  });

  test('Open Folder on a backup folder not made yet: says so, Create It makes it 0700; inside a git work tree it is refused and nothing is made', async () => {
    const missing = join(tempDir('kw-backups-missing-'), 'etcd-backups');
    const repo = tempDir('kw-backups-repo-');
    execFileSync('git', ['init', '-q', repo]);
    const inRepo = join(repo, 'etcd-backups');
    const ui = await scripted({ message: (_level, _text, actions) => actions.find((a) => a === 'Create It') });
    try {
      await vscode.commands.executeCommand('kubeadm.openBackupFolder', { path: missing });
      assert.ok(ui.messages('warning').some((m) => m.startsWith(`The backup folder ${missing} does not exist yet`)), ui.transcript.join('\n'));
      assert.equal(statSync(missing).mode & 0o777, 0o700, 'made for snapshots that hold every Secret');
      await vscode.commands.executeCommand('kubeadm.openBackupFolder', { path: inRepo });
      assert.ok(ui.messages('error').some((m) => m.startsWith(`${inRepo} is inside the git work tree`)), ui.transcript.join('\n'));
      assert.ok(!existsSync(inRepo), 'nothing made inside the repository');
    } finally {
      ui.restore();
    }
  });
});
