/**
 * Live-view details a user compares with kubectl and etcdctl: a control-plane pod's age is kubectl's AGE (from the
 * pod object's creationTimestamp — a mirror pod is created after its static pod started, 17–19 s later on the lab),
 * and etcd is read through one pod that stays the reader while it is ready and answers, instead of the fastest of
 * three on every refresh (which flipped between nodes and once read through a pod still "ready 0/1").
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { componentPod } from '../../../src/core/live/controlPlane';
import { etcdReadOrder, readThroughFirst, type EtcdPodCandidate } from '../../../src/core/live/etcdReader';
import { formatAge } from '../../../src/core/live/format';
import type { Pod } from '../../../src/core/live/types';

test("a mirror pod's age counts from its creationTimestamp, as kubectl's AGE does, not from the static pod's start", () => {
  const now = Date.parse('2026-12-04T12:00:00Z');
  const pod: Pod = {
    metadata: { name: 'kube-apiserver-m01', namespace: 'kube-system', creationTimestamp: new Date(now - 120_000).toISOString(), annotations: { 'kubernetes.io/config.mirror': 'h' } },
    spec: { nodeName: 'm01', containers: [{ name: 'kube-apiserver' }] },
    status: { phase: 'Running', startTime: new Date(now - 138_000).toISOString(), containerStatuses: [{ name: 'kube-apiserver', ready: true, restartCount: 0, state: { running: {} } }] },
  };
  const c = componentPod('kube-apiserver', pod, now);
  assert.equal(c.ageMs, 120_000);
  assert.equal(formatAge(c.ageMs), '2m', 'what kubectl get pods prints: 2m, not the 2m18s of the start time');
  const noCreation = componentPod('kube-apiserver', { ...pod, metadata: { ...pod.metadata, creationTimestamp: undefined } } as Pod, now);
  assert.equal(noCreation.ageMs, 138_000, 'the start time only when the object has no creation time');
});

const pod = (name: string, podReady = true, nodeReady = true): EtcdPodCandidate => ({ name, node: name.replace('etcd-', ''), podReady, nodeReady });

test('the reader stays on the pod read last while it is ready; a pod "ready 0/1" is never chosen beside a ready one', () => {
  const pods = [pod('etcd-m03'), pod('etcd-m01'), pod('etcd-m02')];
  assert.deepEqual(etcdReadOrder(pods, undefined).map((p) => p.name), ['etcd-m01', 'etcd-m02', 'etcd-m03'], 'stable by name with no reader yet');
  assert.deepEqual(etcdReadOrder(pods, 'etcd-m02').map((p) => p.name), ['etcd-m02', 'etcd-m01', 'etcd-m03'], 'the last reader first');
  const m02NotReady = [pod('etcd-m01'), pod('etcd-m02', false), pod('etcd-m03')];
  assert.deepEqual(etcdReadOrder(m02NotReady, 'etcd-m02').map((p) => p.name), ['etcd-m01', 'etcd-m03'], 'a pod 0/1 leaves the order while ready ones exist');
  assert.deepEqual(etcdReadOrder([pod('etcd-m01', false), pod('etcd-m02', true, false)], undefined).map((p) => p.name), ['etcd-m01'], 'on a Ready node before a NotReady one');
  assert.deepEqual(etcdReadOrder([], 'etcd-m01'), []);
});

test('read through the first pod; the others only after it failed or was slow; all failing rejects', async () => {
  const asked: string[] = [];
  const failed: string[] = [];
  const answers: Record<string, { ms: number; ok: boolean }> = { 'etcd-m01': { ms: 5, ok: true }, 'etcd-m02': { ms: 5, ok: true }, 'etcd-m03': { ms: 5, ok: true } };
  const read = (p: EtcdPodCandidate) => {
    asked.push(p.name);
    const a = answers[p.name]!;
    return new Promise<string>((resolve, reject) => setTimeout(() => (a.ok ? resolve(p.name) : reject(new Error(`${p.name} down`))), a.ms));
  };
  const order = [pod('etcd-m01'), pod('etcd-m02'), pod('etcd-m03')];
  const opts = { hedgeAfterMs: 200, failed: (p: EtcdPodCandidate) => failed.push(p.name) };
  // Ten refreshes in a row: one exec each, always the same pod (the old race asked three and flipped).
  for (let i = 0; i < 10; i++) assert.equal((await readThroughFirst(order, read, opts)).via.name, 'etcd-m01');
  assert.deepEqual(asked, Array(10).fill('etcd-m01'));
  // The reader fails: the others are asked at once and the first answer wins.
  asked.length = 0;
  answers['etcd-m01'] = { ms: 5, ok: false };
  answers['etcd-m02'] = { ms: 60, ok: true };
  const t0 = Date.now();
  const r = await readThroughFirst(order, read, opts);
  assert.equal(r.via.name, 'etcd-m03');
  assert.ok(Date.now() - t0 < 150, `no wait for the hedge after a failure (${Date.now() - t0} ms)`);
  assert.deepEqual(asked, ['etcd-m01', 'etcd-m02', 'etcd-m03']);
  assert.deepEqual(failed, ['etcd-m01']);
  // The reader hangs (its node just died, the exec fails only at its timeout): the others start after the hedge.
  asked.length = 0;
  answers['etcd-m01'] = { ms: 2_000, ok: false };
  answers['etcd-m02'] = { ms: 5, ok: true };
  const t1 = Date.now();
  const slow = await readThroughFirst(order, read, opts);
  const took = Date.now() - t1;
  assert.equal(slow.via.name, 'etcd-m02');
  assert.ok(took >= 195 && took < 1_000, `answered after the ${opts.hedgeAfterMs} ms hedge, not the 2 s timeout (${took} ms)`);
  // Every pod fails.
  for (const k of Object.keys(answers)) answers[k] = { ms: 5, ok: false };
  await assert.rejects(readThroughFirst(order, read, opts), /every etcd pod failed/);
  await assert.rejects(readThroughFirst([], read, opts), /no etcd pod/);
});

test('while nothing answers, the read tries again through new execs (the balancer still sends some to a dead API server); bounded', async () => {
  // The lab's case: m03 powered off. Its pod's exec hangs; HAProxy still routes a third of new connections to m03's
  // API server until its check marks it down, and the first two execs happened to go there.
  let attempt = 0;
  const asked: string[] = [];
  const read = (p: EtcdPodCandidate) => {
    const n = ++attempt;
    asked.push(p.name);
    const hangs = p.name === 'etcd-m03' || n <= 2;
    return new Promise<string>((resolve, reject) => setTimeout(() => (hangs ? reject(new Error('timeout')) : resolve(p.name)), hangs ? 1_500 : 5));
  };
  const order = [pod('etcd-m01'), pod('etcd-m02'), pod('etcd-m03')];
  const t0 = Date.now();
  const r = await readThroughFirst(order, read, { hedgeAfterMs: 200, retryEveryMs: 100, maxAttempts: 6 });
  const took = Date.now() - t0;
  assert.equal(r.via.name, 'etcd-m01', 'the fourth attempt, through m01 again on a new connection');
  assert.deepEqual(asked, ['etcd-m01', 'etcd-m02', 'etcd-m03', 'etcd-m01']);
  assert.ok(took >= 295 && took < 1_000, `answered one retry after the hedge (${took} ms), not at the 1.5 s timeouts`);
  // Everything hangs: at most maxAttempts execs, then the read rejects once all of them failed.
  attempt = 100;
  asked.length = 0;
  const allHang = (p: EtcdPodCandidate) => {
    asked.push(p.name);
    return new Promise<string>((_, reject) => setTimeout(() => reject(new Error('timeout')), 300));
  };
  await assert.rejects(readThroughFirst(order, allHang, { hedgeAfterMs: 50, retryEveryMs: 20, maxAttempts: 6 }), /every etcd pod failed/);
  assert.deepEqual(asked, ['etcd-m01', 'etcd-m02', 'etcd-m03', 'etcd-m01', 'etcd-m02', 'etcd-m03'], 'six attempts in all, through the order twice');
  // One pod only: it is asked again after the hedge.
  asked.length = 0;
  let once = true;
  const single = (p: EtcdPodCandidate) => {
    asked.push(p.name);
    const hang = once;
    once = false;
    return new Promise<string>((resolve, reject) => setTimeout(() => (hang ? reject(new Error('timeout')) : resolve(p.name)), hang ? 1_000 : 5));
  };
  assert.equal((await readThroughFirst([pod('etcd-m01')], single, { hedgeAfterMs: 50, maxAttempts: 2 })).via.name, 'etcd-m01');
  assert.deepEqual(asked, ['etcd-m01', 'etcd-m01']);
});
