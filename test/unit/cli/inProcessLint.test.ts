import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { InProcessLintRunner } from '../../../src/engine/inProcessLint';
import { LintRunner } from '../../../src/engine/lintRunner';

const inventory = readFileSync(join(__dirname, '../../../examples/labs-k8s/inventory.yaml'), 'utf8');
const haproxy = readFileSync(join(__dirname, '../../../examples/labs-k8s/haproxy.cfg'), 'utf8');

test("the command line's runner answers on its own thread as the worker does, stops a slow file, and then hands the rest to a fresh worker", async () => {
  const runner = new InProcessLintRunner({ timeoutMs: 5000, timeoutSeverity: 'error' });
  const worker = new LintRunner({ timeoutMs: 5000, timeoutSeverity: 'error' });
  try {
    runner.warmUp();
    const broken = haproxy.replace(/timeout client .*\n/, '');
    for (const file of [{ path: 'haproxy.cfg', text: broken }, { path: 'inventory.yaml', text: inventory }, { path: 'notes.txt', text: 'hello' }]) {
      const [here, there] = await Promise.all([runner.lint(file), worker.lint(file)]);
      assert.deepEqual([here.status, here.kind, here.findings], [there.status, there.kind, there.findings], file.path);
      if (file.path === 'haproxy.cfg') assert.ok(here.findings.some((f) => f.rule.startsWith('haproxy/')), 'the broken haproxy.cfg has findings to compare');
    }
    assert.equal(await runner.detect({ path: 'lb/haproxy.cfg', text: haproxy }), 'haproxy');
    assert.equal((await runner.parseInventory({ path: 'inventory.yaml', text: inventory })).inventory?.hosts.length, (await worker.parseInventory({ path: 'inventory.yaml', text: inventory })).inventory?.hosts.length);
    assert.equal(runner.workersStarted, 0, 'no worker until a file is stopped');

    // under the inventory's size limit (a larger file is refused unparsed, in no time): parsing takes far more than 1 ms
    const big = 'hosts:\n' + '  - { name: a, address: 10.0.0.1, roles: [worker] }\n'.repeat(4_800);
    const slow = await runner.lint({ path: 'inventory.yaml', text: big }, {}, { timeoutMs: 1 });
    assert.equal(slow.status, 'timeout');
    assert.deepEqual(slow.findings.map((f) => [f.rule, f.severity, f.range.start.line, f.message]), [['lint/timeout', 'error', 0, 'lint stopped after 1 ms: the file is too large or too complex to check within the time limit']]);

    const after = await runner.lint({ path: 'inventory.yaml', text: inventory.replace('address: 10.3.60.53', 'address: 10.3.60.52') });
    assert.ok(after.findings.some((f) => f.rule === 'inventory/duplicate-address'));
    assert.equal(runner.workersStarted, 1, 'after a stopped file the rest go to a fresh worker');
  } finally {
    runner.dispose();
    worker.dispose();
  }
});
