/**
 * The pacing and retry policy of the SSH pool, on a fake clock: how many handshakes run at once, how far
 * apart they start, how long a refused handshake waits before the next attempt, and which failures are
 * never retried (host key, login, timeout). The real-sshd test of the same path is in poolRetry.test.ts.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { backoffMs, DEFAULT_CONNECT_POLICY, HandshakePacer, isRetryableHandshake, type ConnectPolicy } from '../../../src/core/ssh/connectPolicy';

/** Lets queued work and the fake clock's sleeps run. */
async function settle(): Promise<void> {
  for (let i = 0; i < 20; i++) await new Promise((r) => setImmediate(r));
}

test('pacer: never more handshakes in flight than allowed, started in arrival order and spaced', async () => {
  let now = 0;
  const sleeps: number[] = [];
  const pacer = new HandshakePacer({ maxHandshakes: 3, minStartGapMs: 10 }, () => now, async (ms) => {
    sleeps.push(ms);
    // Time passes after what is already queued has run (as with a real timer).
    await new Promise((r) => setImmediate(r));
    now += ms;
  });
  const order: number[] = [];
  const starts: number[] = [];
  const releases: (() => void)[] = [];
  const all = Array.from({ length: 8 }, (_, i) =>
    pacer.start().then((release) => {
      order.push(i);
      starts.push(now);
      releases.push(release);
    }),
  );
  await settle();
  assert.equal(pacer.active, 3);
  assert.equal(pacer.waiting, 5);
  assert.deepEqual(order, [0, 1, 2]);
  while (order.length < 8) {
    releases.shift()!();
    await settle();
    assert.ok(pacer.active <= 3, `at most 3 in flight, saw ${pacer.active}`);
  }
  await Promise.all(all);
  assert.deepEqual(order, [0, 1, 2, 3, 4, 5, 6, 7]);
  for (let i = 1; i < starts.length; i++) assert.ok(starts[i]! - starts[i - 1]! >= 10, `starts ${starts[i - 1]} → ${starts[i]} are 10 ms apart`);
  assert.equal(pacer.peak, 3);
  assert.ok(sleeps.every((ms) => ms <= 10));
  // Releasing twice frees one slot only.
  const r = releases[0]!;
  r();
  r();
  assert.ok(pacer.active >= 0);
});

test('pacer: one server gets at most its own share at once, and waiting for it holds up no other server', async () => {
  let now = 0;
  const pacer = new HandshakePacer({ maxHandshakes: 10, maxHandshakesPerServer: 2, minStartGapMs: 0 }, () => now, async (ms) => void (now += ms));
  const started: string[] = [];
  const releases = new Map<string, (() => void)[]>();
  const ask = (server: string, n: number) =>
    Array.from({ length: n }, (_, i) =>
      pacer.start(server).then((release) => {
        started.push(`${server}#${i}`);
        releases.set(server, [...(releases.get(server) ?? []), release]);
      }),
    );
  // Six handshakes to one server queued first, then two to another.
  const all = [...ask('10.0.0.1:22', 6), ...ask('10.0.0.2:22', 2)];
  await settle();
  assert.deepEqual(started, ['10.0.0.1:22#0', '10.0.0.1:22#1', '10.0.0.2:22#0', '10.0.0.2:22#1'], 'the second server is not held up behind the first one\'s queue');
  assert.equal(pacer.activeFor('10.0.0.1:22'), 2);
  assert.equal(pacer.waiting, 4, 'room overall, but none for the first server');
  releases.get('10.0.0.2:22')!.shift()!();
  await settle();
  assert.equal(started.length, 4, 'a slot of another server frees nothing for this one');
  while (started.length < 8) {
    releases.get('10.0.0.1:22')!.shift()!();
    await settle();
    assert.ok(pacer.activeFor('10.0.0.1:22') <= 2, `at most 2 to one server, saw ${pacer.activeFor('10.0.0.1:22')}`);
  }
  await Promise.all(all);
  assert.equal(pacer.peak, 4);
});

test('the default policy stays below sshd\'s MaxStartups per server and lets many servers shake hands at once', () => {
  assert.ok(DEFAULT_CONNECT_POLICY.maxHandshakesPerServer < 10, 'Debian\'s MaxStartups starts dropping at 10 unauthenticated connections');
  assert.ok(DEFAULT_CONNECT_POLICY.maxHandshakes > DEFAULT_CONNECT_POLICY.maxHandshakesPerServer);
});

test('pacer: a congested handshake halves how many start together (not below 4); successes let them back one by one', async () => {
  const pacer = new HandshakePacer({ maxHandshakes: 32, maxHandshakesPerServer: 8, minStartGapMs: 0 }, () => 0, async () => undefined);
  const releases: (() => void)[] = [];
  const all = Array.from({ length: 40 }, (_, i) => pacer.start(`10.0.0.${i}:22`).then((r) => void releases.push(r)));
  await settle();
  assert.equal(pacer.active, 32);
  pacer.congested();
  pacer.congested();
  assert.equal(pacer.limit, 8);
  for (const r of releases.splice(0, 30)) r();
  await settle();
  assert.equal(pacer.active, 8, 'after two congestions, 8 at once: the 2 still running and 6 of the waiting');
  for (let i = 0; i < 10; i++) pacer.congested();
  assert.equal(pacer.limit, 4, 'never below 4');
  pacer.eased();
  pacer.eased();
  assert.equal(pacer.limit, 6);
  for (let i = 0; i < 100; i++) pacer.eased();
  assert.equal(pacer.limit, 32, 'never above maxHandshakes');
  await settle();
  for (const r of releases.splice(0)) r();
  await Promise.all(all);
});

test('backoff doubles per attempt up to the cap, jittered to 50–100 %', () => {
  const p: ConnectPolicy = { ...DEFAULT_CONNECT_POLICY, baseBackoffMs: 100, maxBackoffMs: 1000 };
  assert.deepEqual([1, 2, 3, 4, 5, 6].map((a) => backoffMs(p, a, 0.999999)), [100, 200, 400, 800, 1000, 1000]);
  assert.deepEqual([1, 2, 3].map((a) => backoffMs(p, a, 0)), [50, 100, 200]);
});

test('only a handshake refused or reset before the host key is retried', () => {
  const base = { kind: 'network' as const, timedOut: false };
  assert.equal(isRetryableHandshake({ ...base, stage: 'connect', code: 'ECONNREFUSED' }), true);
  assert.equal(isRetryableHandshake({ ...base, stage: 'connect', code: 'ECONNRESET' }), true);
  // sshd past MaxStartups closes before its banner: ssh2 reports "Connection lost before handshake" without a code.
  assert.equal(isRetryableHandshake({ ...base, stage: 'connect' }), true);
  assert.equal(isRetryableHandshake({ ...base, stage: 'connect', code: 'ENOTFOUND' }), false, 'a name that does not resolve stays unresolved');
  assert.equal(isRetryableHandshake({ ...base, stage: 'connect', timedOut: true }, 1), true, 'a timeout (a busy host or a busy us) is tried once more');
  assert.equal(isRetryableHandshake({ ...base, stage: 'auth', timedOut: true }, 1), true, 'a timeout is never a key or login refusal');
  assert.equal(isRetryableHandshake({ ...base, stage: 'connect', timedOut: true }, 2), false, 'but only once: a dead host fails after two timeouts');
  assert.equal(isRetryableHandshake({ kind: 'host-key', stage: 'host-key', timedOut: false }), false, 'a host key mismatch is never retried');
  assert.equal(isRetryableHandshake({ ...base, stage: 'host-key' }), false, 'a drop after the host key was shown is not a refusal');
  assert.equal(isRetryableHandshake({ kind: 'auth', stage: 'auth', timedOut: false }), false);
  assert.equal(isRetryableHandshake({ ...base, stage: 'auth', code: 'ECONNRESET' }), false);
});
