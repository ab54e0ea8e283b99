/**
 * The schedule workflow (the editor's "Schedule etcd Snapshots…" and the CLI's `backup schedule`) answered from a
 * script, over control-plane hosts that take every command (what the units do on a node is the lab tier's): the plan
 * with each node's timer is shown before the question, nothing runs without a yes, the run installs the timer on
 * every control-plane node under the ledger name both front-ends share, and the CLI's --plan prints the same plan.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { main } from '../../../src/cli/main';
import type { Inventory } from '../../../src/core/inventory/types';
import { scheduleWorkflow, type ScheduleAction } from '../../../src/engine/workflows/scheduleWorkflow';
import { AcceptingHosts } from '../backup/acceptingHosts';
import { inv } from '../backup/etcdHosts';
import { memoryIo } from '../cli/memoryIo';
import { ScriptedUi, type Script } from './scriptedUi';
import { tempDir } from '../../tempDir';

async function schedule(script: Script, action: ScheduleAction, inventory: Inventory = inv) {
  const ui = new ScriptedUi(script);
  const ssh = new AcceptingHosts();
  const stateDir = join(tempDir('kw-schedule-wf-'), 'state');
  const outcome = await scheduleWorkflow(ui, { inventory, action, run: { stateDir, ssh, maxParallelHosts: 4, again: { resume: 'r', startOver: 's' } } });
  return { ui, ssh, outcome, stateDir };
}

const enabled = (ssh: AcceptingHosts) => ssh.log.filter((l) => /systemctl enable --now kubeadm-workbench-etcd-snapshot\.timer/.test(l)).map((l) => l.split(':')[0]);

test('install: the plan names every control-plane node\'s timer; declined, nothing runs; approved, each node gets it', async () => {
  const declined = await schedule({}, { kind: 'install', schedule: { intervalSeconds: 1800, keep: 3 } });
  assert.equal(declined.outcome.kind, 'not-confirmed');
  const plan = declined.ui.documents.get('backup-schedule-labs-k8s-plan.txt') ?? '';
  for (const h of ['m01', 'm02', 'm03']) assert.match(plan, new RegExp(`${h}.*\\n?.*etcd snapshots every 1800 s, keep 3`));
  assert.match(declined.ui.confirms[0]!.message, /^Run 3 steps on 3 hosts of labs-k8s\?$/);
  assert.match(declined.ui.confirms[0]!.detail ?? '', /Scheduled etcd snapshots on labs-k8s \(every 30 min, keep 3\)/);
  assert.deepEqual(declined.ssh.log, [], 'no host was asked anything');

  const ran = await schedule({ confirm: (r) => r.actions[0] }, { kind: 'install', schedule: { intervalSeconds: 1800, keep: 3 } });
  assert.equal(ran.outcome.kind, 'ran');
  assert.ok(ran.outcome.kind === 'ran' && ran.outcome.result.ok, ran.ui.transcript.join('\n'));
  assert.deepEqual(enabled(ran.ssh).sort(), ['m01', 'm02', 'm03']);
  assert.match(ran.outcome.kind === 'ran' ? ran.outcome.logPath : '', /-backup-schedule\.log$/, 'the ledger name the CLI uses: a run resumes from either');
});

test('remove: the timers taken away on every node; an inventory without a control-plane host is refused', async () => {
  const removed = await schedule({ confirm: (r) => r.actions[0] }, { kind: 'remove' });
  assert.ok(removed.outcome.kind === 'ran' && removed.outcome.result.ok);
  assert.equal(removed.ssh.log.filter((l) => /systemctl disable --now kubeadm-workbench-etcd-snapshot\.timer/.test(l)).length, 3);
  const none = await schedule({ confirm: (r) => r.actions[0] }, { kind: 'remove' }, { ...inv, hosts: [] });
  assert.equal(none.outcome.kind, 'refused');
  assert.match(none.ui.messages('error')[0]!, /no control-plane host/);
  assert.deepEqual(none.ssh.log, []);
});

test('the CLI\'s backup schedule --plan prints the workflow\'s plan (nothing is asked of any host)', async () => {
  const io = memoryIo();
  const code = await main(['backup', 'schedule', '--inventory', join(__dirname, '../../../examples/labs-k8s/inventory.yaml'), '--interval', '30m', '--keep', '3', '--plan'], io);
  assert.equal(code, 0, io.err);
  for (const h of ['labs-k8s-m01', 'labs-k8s-m02', 'labs-k8s-m03']) assert.match(io.out, new RegExp(h));
  assert.match(io.out, /etcd snapshots every 1800 s, keep 3/);
  assert.doesNotMatch(io.out, /labs-k8s-w01/);
});
