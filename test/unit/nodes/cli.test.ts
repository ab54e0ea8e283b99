import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { CliIo } from '../../../src/cli/io';
import { main } from '../../../src/cli/main';
import { parseInventory } from '../../../src/core/inventory/parse';
import { sanAdvice } from '../../../src/engine/nodeSans';

const INVENTORY = join(__dirname, '../../../examples/labs-k8s/inventory.yaml');

function memoryIo(): CliIo & { out: string; err: string; written: string[] } {
  const io = {
    out: '', err: '', written: [] as string[],
    stdout: (t: string) => void (io.out += t),
    stderr: (t: string) => void (io.err += t),
    readFile: async (p: string) => readFileSync(p, 'utf8'),
    writeFile: async (p: string) => void io.written.push(p),
  };
  return io;
}

test('remove, replace and reset: usage mistakes exit 2 before anything is asked', async () => {
  const cases: [string[], RegExp][] = [
    [['remove', '--inventory', INVENTORY], /--host is required/],
    [['replace', '--inventory', INVENTORY, '--host', 'labs-k8s-m01'], /--with NEW is required/],
    [['reset', '--inventory', INVENTORY, '--host', 'labs-k8s-w02', '--force', 'x'], /reset has no --force/],
    [['remove', '--inventory', INVENTORY, '--host', 'labs-k8s-w02', '--with', 'x'], /--with and --address go with replace/],
    [['remove', '--inventory', INVENTORY, '--host', 'labs-k8s-w02', '--drain-timeout', '0'], /must be finite/],
    [['replace', '--inventory', INVENTORY, '--host', 'labs-k8s-m01', '--with', 'labs-k8s-m09'], /labs-k8s-m09 is not in the inventory: give its address with --address/],
  ];
  for (const [argv, message] of cases) {
    const io = memoryIo();
    assert.equal(await main(argv, io), 2, `${argv.join(' ')}: ${io.err}`);
    assert.match(io.err, message);
    assert.deepEqual(io.written, []);
  }
});

test('certSANs that pin the control-plane addresses but not the new one are reported with the renewal', () => {
  const inv = parseInventory(readFileSync(INVENTORY, 'utf8')).inventory!;
  const advice = sanAdvice(['10.3.60.100', '10.3.60.51', '10.3.60.52', '10.3.60.53'], inv, '10.3.60.57');
  assert.match(advice!, /lists the control-plane addresses 10\.3\.60\.51, 10\.3\.60\.52, 10\.3\.60\.53 but not 10\.3\.60\.57/);
  assert.match(advice!, /certs renew/);
  assert.equal(sanAdvice(['10.3.60.100'], inv, '10.3.60.57'), undefined, 'only the endpoint: every node has its own address in its own certificate');
  assert.equal(sanAdvice(['10.3.60.51', '10.3.60.57'], inv, '10.3.60.57'), undefined);
  assert.equal(sanAdvice(undefined, inv, '10.3.60.57'), undefined);
});
