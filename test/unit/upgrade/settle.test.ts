/**
 * The preflight's etcd read: a member that does not answer may be restarting (its static pod replaced by an
 * interrupted `kubeadm upgrade node`), so it is read again for a while; but with no control-plane node answering over
 * SSH at all nothing is restarting, and the preflight judges at once instead of two minutes later.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { gatherUpgradeFacts } from '../../../src/engine/upgrade';
import type { SshTransport } from '../../../src/core/ssh/transport';
import { lab } from './fixtures';

test('no node answers over SSH: the facts say so at once, etcd unread, without waiting for a restart', async () => {
  const refused: SshTransport = {
    exec: async (host) => { throw new Error(`${host}: connect ECONNREFUSED`); },
    close: async () => {},
  };
  const lines: string[] = [];
  const t0 = Date.now();
  const { facts } = await gatherUpgradeFacts({ inventory: lab(), ssh: refused, become: () => undefined, say: (l) => lines.push(l) }, { major: 1, minor: 34, patch: 12 });
  assert.ok(Date.now() - t0 < 5_000, `judged after ${Date.now() - t0} ms`);
  assert.ok(facts.nodes.every((n) => n.unreachable?.includes('ECONNREFUSED')), JSON.stringify(facts.nodes));
  assert.match(facts.etcdError ?? '', /cannot read etcd on any control-plane host/);
  assert.ok(!lines.some((l) => /reading it again/.test(l)), lines.join('\n'));
});
