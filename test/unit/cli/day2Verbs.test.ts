/** `etcd`, `drift`, `reconfigure`, `certs fix-kubelet-conf`: usage mistakes exit 2 naming what is wrong, before any host is asked; the verbs are listed. */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { main } from '../../../src/cli/main';
import { memoryIo } from './memoryIo';

const INVENTORY = join(__dirname, '../../../examples/labs-k8s/inventory.yaml');

test('day-2 verbs: usage mistakes exit 2 naming the mistake', async () => {
  const cases: [string[], RegExp][] = [
    [['etcd'], /etcd needs a subcommand/],
    [['etcd', 'compact', '--inventory', INVENTORY], /unknown etcd subcommand "compact"/],
    [['etcd', 'status'], /--inventory is required/],
    [['etcd', 'defrag', '--inventory', INVENTORY, '--disarm'], /--disarm belongs to `etcd alarms`/],
    [['drift'], /--inventory is required/],
    [['drift', '--inventory', INVENTORY, 'extra'], /unexpected argument extra/],
    [['reconfigure'], /--inventory is required/],
    [['certs', 'fix-kubelet-conf', '--inventory', INVENTORY], /--host NAME is required/],
  ];
  for (const [argv, message] of cases) {
    const io = memoryIo();
    assert.equal(await main(argv, io), 2, argv.join(' '));
    assert.match(io.err, message, argv.join(' '));
    assert.match(io.err, /usage: kubeadm-workbench/);
    assert.equal(io.out, '');
  }
});

test('the verb list names etcd, drift and reconfigure', async () => {
  const io = memoryIo();
  await main(['--help'], io);
  assert.match(io.err, /etcd status\|defrag\|alarms \[--disarm\]/);
  assert.match(io.err, /drift --inventory F \[--json\]/);
  assert.match(io.err, /reconfigure --inventory F/);
  assert.match(io.err, /certs fix-kubelet-conf --inventory F --host NAME/);
});
