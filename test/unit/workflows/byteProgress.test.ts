/**
 * The restore's progress bars: the snapshot hashed, and sent to every member under one bar that advances with the
 * bytes (Ui.progress increments adding up to the whole), opens at the first bytes, says the amount and the rate at
 * most every two seconds, and closes when every member has it — or when the run ends without it.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { SendProgress } from '../../../src/engine/workflows/byteProgress';
import { ScriptedUi } from './scriptedUi';

const MiB = 1024 * 1024;

test('one bar for the snapshot to three members: increments add up to 100 %, a message at the start and the end', async () => {
  const ui = new ScriptedUi();
  const p = new SendProgress(ui, 'labs-k8s');
  p.expect(3, 400 * MiB);
  for (let sent = 0; sent <= 400 * MiB; sent += 4 * MiB) for (const h of ['m01', 'm02', 'm03']) p.update(h, sent);
  const title = 'Sending snapshot.db (400 MiB) to 3 members of labs-k8s…';
  assert.deepEqual(ui.transcript, [`progress: ${title}`], 'one bar, opened once');
  const increments = ui.progressIncrements.get(title)!;
  assert.ok(Math.abs(increments.reduce((a, b) => a + b, 0) - 100) < 1e-9, `${increments.reduce((a, b) => a + b, 0)} %`);
  assert.ok(increments.length >= 100 && increments.length <= 300, `${increments.length} updates: every half per cent at most, not every chunk`);
  assert.match(ui.progressMessages.at(-1)!, /^ {3}snapshot\.db to 3 members: 1\.17 GiB of 1\.17 GiB \(100 %, \d+ MiB\/s\)$/);
  assert.ok(ui.progressMessages.length <= 3, 'a message every two seconds at most (a terminal prints each)');
});

test('a run that ends before every member has it closes the bar; nothing is opened when nothing is sent', async () => {
  const ui = new ScriptedUi();
  const closed: string[] = [];
  const progress = ui.progress.bind(ui);
  ui.progress = (request, task) => progress(request, task).finally(() => closed.push(request.title));
  const p = new SendProgress(ui, 'labs-k8s');
  p.expect(3, 10 * MiB);
  p.update('m01', 5 * MiB);
  await new Promise((r) => setImmediate(r));
  assert.deepEqual(closed, [], 'open while bytes are still to come');
  p.end();
  await new Promise((r) => setImmediate(r));
  assert.deepEqual(closed, ['Sending snapshot.db (10 MiB) to 3 members of labs-k8s…']);
  const idle = new ScriptedUi();
  const q = new SendProgress(idle, 'labs-k8s');
  q.expect(3, 10 * MiB);
  q.end();
  assert.deepEqual(idle.transcript, []);
});
