import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { LintRunner, timeoutFinding } from '../../../src/engine/lintRunner';

const inventory = readFileSync(join(__dirname, '../../../examples/labs-k8s/inventory.yaml'), 'utf8');

test('the runner lints in a worker, stops a slow file and goes on with a fresh worker', async () => {
  const runner = new LintRunner({ timeoutMs: 5000 });
  try {
    const ok = await runner.lint({ path: 'inventory.yaml', text: inventory });
    assert.equal(ok.status, 'ok');
    assert.equal(ok.kind, 'inventory');
    assert.deepEqual(ok.findings, []);
    assert.equal(runner.workersStarted, 1);

    // under the inventory's size limit (a larger file is refused unparsed, in no time)
    const big = 'hosts:\n' + '  - { name: a, address: 10.0.0.1, roles: [worker] }\n'.repeat(4_800);
    const slow = await runner.lint({ path: 'inventory.yaml', text: big }, {}, { timeoutMs: 1 });
    assert.equal(slow.status, 'timeout');
    assert.deepEqual(slow.findings.map((f) => [f.rule, f.severity, f.range.start.line, f.message]), [['lint/timeout', 'warning', 0, 'lint stopped after 1 ms: the file is too large or too complex to check within the time limit']]);

    const broken = await runner.lint({ path: 'inventory.yaml', text: inventory.replace('address: 10.3.60.53', 'address: 10.3.60.52') });
    assert.equal(broken.status, 'ok');
    assert.ok(broken.findings.some((f) => f.rule === 'inventory/duplicate-address'));
    assert.equal(runner.workersStarted, 2, 'the stopped worker was replaced once');

    const unknown = await runner.lint({ path: 'notes.txt', text: 'hello' });
    assert.equal(unknown.status, 'unsupported');
  } finally {
    runner.dispose();
  }
});

test('jobs queue in order and each gets its own result', async () => {
  const runner = new LintRunner();
  try {
    const texts = [inventory, inventory.replace('10.3.60.53', '10.3.60.52'), inventory];
    const outcomes = await Promise.all(texts.map((text) => runner.lint({ path: 'inventory.yaml', text })));
    assert.deepEqual(outcomes.map((o) => o.findings.length > 0), [false, true, false]);
  } finally {
    runner.dispose();
  }
});

test('the timeout finding spans line 1 without its line break', () => {
  assert.deepEqual(timeoutFinding(10, 'error', 'global\r\n    daemon\n').range, { start: { line: 0, character: 0 }, end: { line: 0, character: 6 } });
  assert.deepEqual(timeoutFinding(10, 'error', '').range.end, { line: 0, character: 0 });
});

test('a file that needs more memory than the ceiling is stopped with a clear finding, and the next file is checked', async () => {
  const runner = new LintRunner({ maxMemoryMb: 16, timeoutMs: 20_000 });
  try {
    // just under the inventory's size limit (a larger one is refused before it is parsed)
    const big = 'hosts:\n' + '  - { name: a, address: 10.0.0.1, roles: [worker] }\n'.repeat(4_900);
    const out = await runner.lint({ path: 'inventory.yaml', text: big });
    assert.equal(out.status, 'error');
    assert.match(out.findings[0]!.message, /more than 16 MB/);
    const ok = await runner.lint({ path: 'inventory.yaml', text: inventory });
    assert.equal(ok.status, 'ok');
  } finally {
    runner.dispose();
  }
});

test('the editor\'s inventory parse runs in the worker: the model comes back, and a parse stopped by the time limit is an error with no model', async () => {
  const runner = new LintRunner({ timeoutMs: 20_000, timeoutSeverity: 'warning' });
  try {
    const ok = await runner.parseInventory({ path: 'inventory.yaml', text: inventory });
    assert.equal(ok.inventory?.hosts.length, 6);
    assert.equal(ok.locations.hosts.get('labs-k8s-m02')?.start.line, inventory.split('\n').findIndex((l) => l.includes('labs-k8s-m02')));
    const slow = inventory + '  - { name: a, address: 10.0.0.1, roles: [worker] }\n'.repeat(4_500);
    const stopped = await runner.parseInventory({ path: 'inventory.yaml', text: slow }, 5);
    assert.equal(stopped.inventory, undefined);
    assert.deepEqual(stopped.findings.map((f) => `${f.rule} ${f.severity}`), ['lint/timeout error']);
  } finally {
    runner.dispose();
  }
});
