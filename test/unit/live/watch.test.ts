import { test } from 'node:test';
import assert from 'node:assert/strict';
import { ApiError } from '../../../src/core/live/errors';
import { Reflector, type Change } from '../../../src/core/live/watch';
import { Coalescer } from '../../../src/core/live/coalesce';
import { FakeTransport, ManualClock, flush, gone, lease } from './fakes';

const spec = { key: 'nodeLeases', path: '/apis/coordination.k8s.io/v1/namespaces/kube-node-lease/leases', labelSelector: 'a=b' };

function setup(opts = {}) {
  const clock = new ManualClock();
  const t = new FakeTransport();
  const changes: Change[][] = [];
  const r = new Reflector(t, spec, (c) => changes.push(c), { clock, timeoutSeconds: 300, ...opts });
  return { clock, t, changes, r };
}

test('list then watch from the list resourceVersion with bookmarks, selectors and a server timeout', async () => {
  const { t, r, changes } = setup();
  t.data.set(spec.path, [lease('n1', '2026-01-01T00:00:00Z', '90')]);
  r.start();
  await flush();
  assert.equal(t.lists.length, 1);
  assert.equal(t.lists[0]!.params.labelSelector, 'a=b');
  assert.equal(t.watches.length, 1);
  assert.equal(t.current.params.resourceVersion, '100');
  assert.equal(t.current.params.allowWatchBookmarks, 'true');
  assert.equal(t.current.params.labelSelector, 'a=b');
  assert.ok(Number(t.current.params.timeoutSeconds) >= 300 && Number(t.current.params.timeoutSeconds) < 600);
  assert.equal(changes[0]![0]!.type, 'added');
  assert.equal(r.store.size, 1);
  assert.ok(r.synced);
});

test('events update the store and resourceVersion; bookmarks only move the resourceVersion', async () => {
  const { t, r, changes } = setup();
  r.start();
  await flush();
  t.current.emit({ type: 'ADDED', object: lease('n2', 'x', '101') });
  t.current.emit({ type: 'MODIFIED', object: lease('n2', 'y', '102') });
  t.current.emit({ type: 'BOOKMARK', object: { metadata: { name: '', resourceVersion: '150' } } });
  assert.equal(r.resourceVersion, '150');
  assert.equal(r.stats.bookmarks, 1);
  assert.deepEqual(changes.slice(1).map((c) => c[0]!.type), ['added', 'modified']);
  t.current.emit({ type: 'DELETED', object: lease('n2', 'y', '151') });
  assert.equal(r.store.size, 0);
});

test('a normal end of the watch (server timeout) re-watches from the last resourceVersion without a list', async () => {
  const { t, r } = setup();
  r.start();
  await flush();
  t.current.emit({ type: 'BOOKMARK', object: { metadata: { name: '', resourceVersion: '120' } } });
  t.current.close();
  await flush();
  assert.equal(t.lists.length, 1);
  assert.equal(t.watches.length, 2);
  assert.equal(t.current.params.resourceVersion, '120');
});

test('410 Gone as an ERROR event triggers exactly one re-list, then a watch from the new resourceVersion', async () => {
  const { t, r } = setup();
  r.start();
  await flush();
  t.rv = 500;
  t.current.emit({ type: 'ERROR', object: { kind: 'Status', code: 410, reason: 'Expired', message: 'too old resource version: 1 (400)' } });
  await flush();
  assert.equal(t.lists.length, 2);
  assert.equal(r.stats.relistsAfterGone, 1);
  assert.equal(t.watches[0]!.aborted, true);
  assert.equal(t.current.params.resourceVersion, '500');
  // A late close callback of the aborted watch must not cause another list.
  t.watches[0]!.close(gone());
  await flush();
  assert.equal(t.lists.length, 2);
});

test('410 Gone as an HTTP status of the watch request also re-lists exactly once', async () => {
  const { t, r } = setup();
  r.start();
  await flush();
  t.current.close(gone());
  await flush();
  assert.equal(t.lists.length, 2);
  assert.equal(r.stats.relistsAfterGone, 1);
  assert.equal(t.watches.length, 2);
});

test('errors back off exponentially with jitter and re-watch from the kept resourceVersion', async () => {
  const { t, r, clock } = setup({ backoffBaseMs: 1000, backoffMaxMs: 8000 });
  r.start();
  await flush();
  t.current.close(new ApiError('refused', 'https://vip:6443', 'ECONNREFUSED'));
  assert.equal(r.state, 'backoff');
  await clock.advance(700); // random 0.5 → 500 + 250 = 750 ms
  assert.equal(t.watches.length, 1);
  await clock.advance(100);
  assert.equal(t.watches.length, 2);
  assert.equal(t.current.params.resourceVersion, '100');
  assert.equal(t.lists.length, 1);
  t.current.close(new ApiError('timeout', 'x', 'timeout'));
  await clock.advance(1400); // second failure: ceiling 2000 → 1500
  assert.equal(t.watches.length, 2);
  await clock.advance(200);
  assert.equal(t.watches.length, 3);
  // A successful event resets the failure count.
  t.current.emit({ type: 'MODIFIED', object: lease('n1', 'z', '130') });
  t.current.close(new ApiError('timeout', 'x', 'timeout'));
  await clock.advance(800);
  assert.equal(t.watches.length, 4);
});

test('a failing first list backs off and lists again', async () => {
  const { t, r, clock } = setup();
  t.failNextList = new ApiError('dns', 'https://nope:6443', 'ENOTFOUND');
  r.start();
  await flush();
  assert.equal(r.state, 'backoff');
  assert.equal(r.lastError?.kind, 'dns');
  await clock.advance(1000);
  assert.equal(t.lists.length, 2);
  assert.equal(r.state, 'watching');
});

test('a stalled watch (no event, no bookmark) is detected and restarted from the resourceVersion', async () => {
  const { t, r, clock } = setup({ idleStallMs: 60_000, stallCheckMs: 5_000 });
  r.start();
  await flush();
  await clock.advance(55_000);
  t.current.emit({ type: 'BOOKMARK', object: { metadata: { name: '', resourceVersion: '110' } } });
  await clock.advance(55_000);
  assert.equal(t.watches.length, 1, 'activity keeps it alive');
  await clock.advance(10_000);
  assert.equal(t.watches.length, 2);
  assert.equal(r.stats.stallRestarts, 1);
  assert.equal(t.watches[0]!.aborted, true);
  assert.equal(t.current.params.resourceVersion, '110');
  assert.equal(t.lists.length, 1);
});

test('a watch that the server never closes after its timeout is restarted', async () => {
  const { t, r, clock } = setup({ idleStallMs: 10_000_000, stallGraceMs: 30_000 });
  r.start();
  await flush();
  const timeout = Number(t.current.params.timeoutSeconds) * 1000;
  for (let i = 0; i < (timeout + 20_000) / 5000; i++) {
    await clock.advance(5000);
    t.current.emit({ type: 'BOOKMARK', object: { metadata: { name: '', resourceVersion: String(200 + i) } } });
  }
  assert.equal(r.stats.stallRestarts, 0);
  await clock.advance(20_000);
  assert.equal(r.stats.stallRestarts, 1);
});

test('stop aborts the watch and ignores late callbacks; start resumes from the kept resourceVersion', async () => {
  const { t, r } = setup();
  r.start();
  await flush();
  const w = t.current;
  r.stop();
  assert.equal(w.aborted, true);
  assert.equal(r.state, 'stopped');
  w.emit({ type: 'ADDED', object: lease('late', 'x', '300') });
  w.close(new ApiError('refused', 'x', 'x'));
  assert.equal(r.store.has('kube-node-lease/late'), false);
  r.start();
  await flush();
  assert.equal(t.lists.length, 1);
  assert.equal(t.current.params.resourceVersion, '100');
});

test('a re-list reports deletions of objects that vanished meanwhile', async () => {
  const { t, r, changes } = setup();
  t.data.set(spec.path, [lease('a', 'x', '1'), lease('b', 'x', '2')]);
  r.start();
  await flush();
  t.data.set(spec.path, [lease('a', 'x', '1')]);
  t.current.close(gone());
  await flush();
  assert.deepEqual(changes.at(-1), [{ type: 'deleted', key: 'kube-node-lease/b', object: lease('b', 'x', '2') }]);
});

test('the coalescer delivers at most twice per second, each key once', async () => {
  const clock = new ManualClock();
  const deliveries: string[][] = [];
  const c = new Coalescer<string>((k) => deliveries.push([...k].sort()), 500, clock);
  c.mark('a');
  await clock.advance(0);
  assert.deepEqual(deliveries, [['a']]);
  for (let i = 0; i < 100; i++) {
    c.mark(i % 2 ? 'a' : 'b');
    await clock.advance(10);
  }
  // 1000 ms of marks after a delivery at t=0: deliveries at 500 and 1000.
  assert.equal(deliveries.length, 3);
  assert.deepEqual(deliveries[1], ['a', 'b']);
});
