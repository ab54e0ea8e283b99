/** `kubeadm-workbench upgrade`: usage mistakes exit 2 before anything is read or asked; the verb is listed. */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { main } from '../../../src/cli/main';
import { memoryIo } from '../cli/memoryIo';

const INVENTORY = join(__dirname, '../../../examples/labs-k8s/inventory.yaml');
const OUT = mkdtempSync(join(tmpdir(), 'kw-upgrade-cli-'));

test('upgrade: usage mistakes exit 2 naming the flag, before any host is asked', async () => {
  const cases: [string[], RegExp][] = [
    [['upgrade', '--to', '1.34.12', '--backup-dir', OUT], /--inventory is required/],
    [['upgrade', '--inventory', INVENTORY, '--backup-dir', OUT], /--to VERSION is required/],
    [['upgrade', '--inventory', INVENTORY, '--to', '1.34', '--backup-dir', OUT], /--to 1\.34 is not a Kubernetes version/],
    [['upgrade', '--inventory', INVENTORY, '--to', 'latest', '--backup-dir', OUT], /--to latest is not a Kubernetes version/],
    [['upgrade', '--inventory', INVENTORY, '--to', '1.34.12'], /--backup-dir DIR is required/],
    [['upgrade', '--inventory', INVENTORY, '--to', '1.34.12', '--backup-dir', join(__dirname, 'snapshots')], /is inside the git work tree .*: a snapshot holds every Secret/],
    [['upgrade', '--inventory', INVENTORY, '--to', '1.34.12', '--backup-dir', OUT, '--max-unavailable', '0'], /--max-unavailable must be a whole number of workers, 1 or more/],
    [['upgrade', '--inventory', INVENTORY, '--to', '1.34.12', '--backup-dir', OUT, '--max-unavailable', '2x'], /--max-unavailable must be a whole number/],
    [['upgrade', '--inventory', INVENTORY, '--to', '1.34.12', '--backup-dir', OUT, '--drain-timeout', '0'], /--drain-timeout must be finite/],
    [['upgrade', '--inventory', INVENTORY, '--to', '1.34.12', '--backup-dir', OUT, 'extra'], /unexpected argument extra/],
  ];
  for (const [argv, message] of cases) {
    const io = memoryIo();
    assert.equal(await main(argv, io), 2, `${argv.join(' ')}: ${io.err}`);
    assert.match(io.err, message);
    assert.match(io.err, /usage: kubeadm-workbench upgrade --inventory FILE --to VERSION --backup-dir DIR/);
    assert.match(io.err, /--delete-emptydir-data: the drains evict pods with emptyDir volumes and that data is lost/);
  }
});

test('the verb list names upgrade with its flags', async () => {
  const io = memoryIo();
  await main(['--help'], io);
  assert.match(io.err, /upgrade --inventory F --to VERSION --backup-dir DIR \[--plan\] \[--yes\] \[--max-unavailable N\] \[--delete-emptydir-data\]/);
});

test('upgrade without a reachable API is refused before any host is asked: the drains need it', async () => {
  const io = memoryIo();
  const t0 = Date.now();
  const code = await main(['upgrade', '--inventory', INVENTORY, '--to', '1.34.12', '--backup-dir', OUT, '--yes', '--kubeconfig', join(OUT, 'no-such-kubeconfig')], io);
  assert.equal(code, 1, io.err);
  assert.match(io.err, /upgrade refused; nothing was done: the drains go through the Kubernetes API, which this machine cannot reach: .*no kubeconfig file found.* \(--kubeconfig F, --context N\)/);
  assert.ok(Date.now() - t0 < 10_000);
});
