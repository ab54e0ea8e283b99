/**
 * The last step of a bring-up: the cluster asked, as `status` judges it, until it is healthy — each change of what is
 * still converging said once, and past the bound a failure that names what is not well.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { waitUntilHealthy } from '../../../src/engine/clusterHealthy';
import type { Inventory } from '../../../src/core/inventory/types';

const inventory = {} as Inventory;

test('healthy at once: one line, no wait', async () => {
  const said: string[] = [];
  const t0 = Date.now();
  await waitUntilHealthy({ inventory, kubeconfig: 'k', say: (l) => said.push(l), readOnce: async () => [] });
  assert.deepEqual(said, ['healthy']);
  assert.ok(Date.now() - t0 < 1000);
});

test('converging, then healthy: what it waits for is named once per change, then how long it took', async () => {
  const answers = [['kube-apiserver-m03: Running, ready 0/1'], ['kube-apiserver-m03: Running, ready 0/1'], []];
  const said: string[] = [];
  await waitUntilHealthy({ inventory, kubeconfig: 'k', say: (l) => said.push(l), readOnce: async () => answers.shift()!, timeoutMs: 60_000, everyMs: 20 });
  assert.equal(said.length, 2, said.join('\n'));
  assert.match(said[0]!, /^still converging \(0\.\d s\): kube-apiserver-m03: Running, ready 0\/1$/);
  assert.match(said[1]!, /^healthy after \d+\.\d s$/);
});

test('past the bound: the step fails naming what is still not well; an unanswering API counts as not healthy', async () => {
  let n = 0;
  const read = async () => {
    if (n++ === 0) throw new Error('connect ECONNREFUSED 10.3.60.100:6443');
    return ['etcd member labs-k8s-m03 is not healthy'];
  };
  await assert.rejects(
    waitUntilHealthy({ inventory, kubeconfig: 'k', say: () => undefined, readOnce: read, timeoutMs: 1000, everyMs: 50 }),
    /^Error: not healthy 1 s after the last step: etcd member labs-k8s-m03 is not healthy$/,
  );
  assert.ok(n >= 3, `read ${n} times`);
});

test('a cancel ends the wait', async () => {
  const abort = new AbortController();
  const p = waitUntilHealthy({ inventory, kubeconfig: 'k', say: () => undefined, signal: abort.signal, readOnce: async () => ['CoreDNS 0/2 ready'], timeoutMs: 60_000 });
  setTimeout(() => abort.abort(), 100);
  await assert.rejects(p, /cancelled/);
});
