/**
 * The restore workflow (the editor's "Restore from this backup…") answered from a script, over the same etcd hosts
 * as the engine's restore test: a healthy quorum refuses before anything runs unless the user forces it and types
 * the cluster's name; then the plan-run workflow shows the plan and asks.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { PassThrough, Readable } from 'node:stream';
import { Prompter } from '../../../src/cli/secretPrompt';
import { TerminalUi } from '../../../src/cli/terminalUi';
import { RESTORE_ANYWAY, restoreWorkflow, type RestoreWorkflowInput } from '../../../src/engine/workflows/restoreWorkflow';
import type { Ui } from '../../../src/engine/workflows/ui';
import { EtcdHosts, inv, type FakeOptions } from '../backup/etcdHosts';
import { backupFolder } from '../backup/manifests';
import { ScriptedUi, type Script } from './scriptedUi';
import { tempDir } from '../../tempDir';

const snapshot = (cluster = 'labs-k8s'): string => backupFolder({ cluster });

const hosts = (o: FakeOptions = {}) => new EtcdHosts({ ...o, extra: (_h, t) => (t.includes('command -v etcdutl') ? { code: 0, signal: null, stdout: '/usr/local/bin/etcdutl\n', stderr: '' } : undefined) });

async function restore(script: Script, o: FakeOptions = {}, cluster?: string, extra: Partial<RestoreWorkflowInput> = {}, terminal?: Ui) {
  const ui = new ScriptedUi(script, terminal);
  const ssh = hosts(o);
  const outcome = await restoreWorkflow(terminal ?? ui, {
    deps: { inventory: inv, ssh, readyz: async () => true },
    loginUser: () => 'root',
    snapshot: snapshot(cluster),
    run: { stateDir: join(tempDir('kw-restore-wf-'), 'state'), ssh: Object.assign(ssh, { loginUser: () => 'root' }), maxParallelHosts: 1, again: { resume: 'r', startOver: 's' } },
    ...extra,
  });
  return { ui, ssh, outcome };
}

// A command that moves a static pod manifest (the restore's stop): reading a manifest (the etcdutl precheck reads the
// etcd image's name from it) changes nothing.
const stopped = (ssh: EtcdHosts) => ssh.log.filter((l) => /\bmv /.test(l.display));

test('a healthy quorum refuses the restore before anything stops; the refusal offers to force it', async () => {
  const { ui, ssh, outcome } = await restore({});
  assert.equal(outcome.kind, 'refused');
  assert.match(ui.messages('warning')[0]!, /^Restore of labs-k8s refused: etcd still has a healthy quorum \(3 members · quorum 2 · tolerates 1 failure\): a restore throws away every write since the snapshot \(taken 2026-11-30T12:00:00\.000Z\)/);
  assert.equal(ui.confirms.length, 0, 'no plan offered');
  assert.deepEqual(stopped(ssh), []);
});

test('forced: a wrong name typed is not a confirmation; the right one reaches the plan and its question', async () => {
  const wrong = await restore({ message: () => RESTORE_ANYWAY, input: () => 'labs' });
  assert.equal(wrong.outcome.kind, 'not-confirmed');
  assert.equal(wrong.ui.confirms.length, 0);
  const right = await restore({ message: () => RESTORE_ANYWAY, input: () => 'labs-k8s' });
  assert.equal(right.outcome.kind, 'not-confirmed', 'the plan-run question was not answered');
  assert.match(right.ui.confirms[0]!.message, /^Run \d+ steps on 3 hosts of labs-k8s\?$/);
  assert.match(right.ui.documents.get('restore-labs-k8s-plan.txt') ?? '', /restore/);
  assert.deepEqual(stopped(right.ssh), []);
});

test('quorum lost: no forcing asked, straight to the plan; a foreign snapshot is refused in one message', async () => {
  const lost = await restore({}, { downMembers: ['m02', 'm03'] });
  assert.equal(lost.outcome.kind, 'not-confirmed');
  assert.equal(lost.ui.messages('warning').length, 0);
  assert.equal(lost.ui.confirms.length, 1);
  const foreign = await restore({}, { downMembers: ['m01', 'm02', 'm03'] }, 'other');
  assert.equal(foreign.outcome.kind, 'refused');
  assert.match(foreign.ui.messages('error')[0]!, /refused; nothing was done: \S+manifest\.json: the backup is of cluster "other"/);
  assert.deepEqual(foreign.ssh.log, [], 'a snapshot that cannot be restored asks no host anything');
});

test('forced by the front-end (CLI --force): no "Restore anyway…" question, the name still typed; --force --yes asks neither', async () => {
  const typedWrong = await restore({ input: () => 'labs' }, {}, undefined, { force: { confirmed: false } });
  assert.equal(typedWrong.outcome.kind, 'not-confirmed');
  assert.equal(typedWrong.ui.messages('warning').filter((m) => /refused/.test(m)).length, 0, 'no refusal to override');
  assert.ok(typedWrong.ui.transcript.includes('input: Restore labs-k8s while etcd is healthy'), typedWrong.ui.transcript.join('\n'));
  const confirmed = await restore({}, {}, undefined, { force: { confirmed: true } });
  assert.equal(confirmed.outcome.kind, 'not-confirmed', 'the run itself is still asked');
  assert.ok(!confirmed.ui.transcript.some((t) => t.startsWith('input:')));
  assert.match(confirmed.ui.confirms[0]!.message, /^Run \d+ steps on 3 hosts of labs-k8s\?$/);
  const planned = await restore({}, {}, undefined, { force: { confirmed: true }, planOnly: true });
  assert.equal(planned.outcome.kind, 'planned');
  assert.equal(planned.ui.confirms.length, 0);
  assert.match(planned.ui.documents.get('restore-labs-k8s-plan.txt') ?? '', /restore/);
  assert.deepEqual(stopped(planned.ssh), []);
});

test('on a terminal (the CLI verb\'s Ui): the healthy-quorum refusal names --force on stderr; forced, the name is read from stdin', async () => {
  const term = (input: string, yes = false) => {
    const out = { stdout: '', stderr: '' };
    const ui = new TerminalUi({ io: { stdout: (t) => void (out.stdout += t), stderr: (t) => void (out.stderr += t), readFile: async () => '', writeFile: async () => undefined }, prompter: new Prompter(Readable.from([input]), new PassThrough()), yes, askBecomePass: false, interactive: false });
    return { ui, out };
  };
  const refused = term('');
  const r = await restore({}, {}, undefined, { forceHow: 'pass --force' }, refused.ui);
  assert.equal(r.outcome.kind, 'refused');
  assert.match(refused.out.stderr, /^Restore of labs-k8s refused: etcd still has a healthy quorum .*To restore anyway, pass --force\.$/m);
  assert.match(refused.out.stdout, /members: m01=https:\/\/10\.3\.60\.51:2380 on m01/);

  const wrong = term('labs\n', true);
  const w = await restore({}, {}, undefined, { force: { confirmed: false } }, wrong.ui);
  assert.equal(w.outcome.kind, 'not-confirmed', '--yes does not type the name');
  assert.match(wrong.out.stderr, /Restore of labs-k8s not confirmed; nothing was done\./);
  assert.deepEqual(stopped(w.ssh), []);
});
