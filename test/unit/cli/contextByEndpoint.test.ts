/**
 * The command line's verbs given an inventory talk to that inventory's cluster: without --context, the context whose
 * server is its controlPlaneEndpoint — never a current-context of another cluster whose nodes may have the same names
 * (a drain of "labs-k8s-w01" in prod). Nothing listens on these loopback ports: each run stops at its first request,
 * and what it printed names the server it chose. (The upgrade, which requires such a context, is in upgrade/cli.test.ts.)
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { main } from '../../../src/cli/main';
import { kubeconfigWith, loopbackInventory } from './loopbackCluster';
import { memoryIo } from './memoryIo';

const INVENTORY = loopbackInventory();

const VERBS: [string, string[]][] = [
  ['drain', ['drain', 'labs-k8s-w01', '--inventory', INVENTORY, '--yes']],
  ['status', ['status', '--inventory', INVENTORY]],
  ['timeline', ['timeline', '--inventory', INVENTORY]],
];

async function run(argv: string[]): Promise<{ code: number; out: string }> {
  const io = memoryIo();
  const code = await main(argv, io);
  return { code, out: `${io.out}\n${io.err}` };
}

for (const [verb, argv] of VERBS) {
  test(`${verb} --inventory without --context: the inventory's cluster, not the current-context of another`, async () => {
    const kc = kubeconfigWith('prod', { prod: 'https://127.0.0.3:1', labs: 'https://127.0.0.100:1' });
    const r = await run([...argv, '--kubeconfig', kc]);
    assert.notEqual(r.code, 0, r.out);
    assert.match(r.out, /127\.0\.0\.100:1/, r.out);
    assert.doesNotMatch(r.out, /127\.0\.0\.3\b/, r.out);
  });

  test(`${verb} --inventory with no context of the inventory's cluster: the current-context, as kubectl would (a kubeconfig may name one control-plane node rather than the VIP)`, async () => {
    const kc = kubeconfigWith('m01', { m01: 'https://127.0.0.51:1' });
    const r = await run([...argv, '--kubeconfig', kc]);
    assert.notEqual(r.code, 0, r.out);
    assert.match(r.out, /127\.0\.0\.51:1/, r.out);
  });

  test(`${verb} --context N is the one used`, async () => {
    const kc = kubeconfigWith('labs', { prod: 'https://127.0.0.3:1', labs: 'https://127.0.0.100:1' });
    const r = await run([...argv, '--kubeconfig', kc, '--context', 'prod']);
    assert.notEqual(r.code, 0, r.out);
    assert.match(r.out, /127\.0\.0\.3:1/, r.out);
  });
}
