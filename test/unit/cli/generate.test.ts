import { test } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { parseGenerateArgs, runGenerate } from '../../../src/cli/generate';
import { runLint, type JsonRow } from '../../../src/cli/lint';
import { containerdLayoutFor, isSafeRelativePath, planWrites } from '../../../src/engine/generatePlan';
import { memoryIo } from './memoryIo';
import { tempDir } from '../../tempDir';

const EXAMPLE_INVENTORY = join(__dirname, '../../../examples/labs-k8s/inventory.yaml');


test('generate writes the cluster files, which lint clean against the same inventory', async () => {
  const out = tempDir('kw-gen-');
  // A copy: generate keeps the cluster's VRRP password in .kubeadm-workbench/ beside the inventory.
  const INVENTORY = join(out, 'inventory.yaml');
  writeFileSync(INVENTORY, readFileSync(EXAMPLE_INVENTORY, 'utf8'));
  const outDir = join(out, 'generated');
  try {
    const io = memoryIo();
    assert.equal(await runGenerate(['--inventory', INVENTORY, '--out', outDir], io), 0, io.err);
    for (const f of ['kubeadm-config.yaml', 'haproxy.cfg', 'keepalived.conf', 'etc/containerd/config.toml', 'etc/sysctl.d/99-kubernetes-cri.conf', 'etc/modules-load.d/k8s.conf']) {
      assert.ok(existsSync(join(outDir, f)), `${f} was not generated:\n${io.out}`);
    }
    const lint = memoryIo();
    const code = await runLint(['--format', 'json', '--inventory', INVENTORY, outDir], lint);
    const rows = JSON.parse(lint.out) as JsonRow[];
    assert.deepEqual(rows.filter((r) => r.severity === 'error').map((r) => `${r.file}:${r.line}: ${r.message} [${r.rule}]`), []);
    assert.equal(code, 0);

    // Again: everything unchanged.
    const again = memoryIo();
    assert.equal(await runGenerate(['--inventory', INVENTORY, '--out', outDir], again), 0);
    assert.doesNotMatch(again.out, /wrote|replaced/);

    // An edited file is not overwritten without --force, and nothing else is written.
    writeFileSync(join(outDir, 'haproxy.cfg'), '# mine\n');
    rmSync(join(outDir, 'kubeadm-config.yaml'));
    const refused = memoryIo();
    assert.equal(await runGenerate(['--inventory', INVENTORY, '--out', outDir], refused), 1);
    assert.match(refused.err, /haproxy\.cfg exists and differs/);
    assert.equal(readFileSync(join(outDir, 'haproxy.cfg'), 'utf8'), '# mine\n');
    assert.ok(!existsSync(join(outDir, 'kubeadm-config.yaml')));

    const forced = memoryIo();
    assert.equal(await runGenerate(['--inventory', INVENTORY, '--out', outDir, '--force'], forced), 0);
    assert.notEqual(readFileSync(join(outDir, 'haproxy.cfg'), 'utf8'), '# mine\n');
    assert.ok(existsSync(join(outDir, 'kubeadm-config.yaml')));
  } finally {
    rmSync(out, { recursive: true, force: true });
  }
});

test('generate refuses a broken inventory and reports usage errors with exit 2', async () => {
  const dir = tempDir('kw-gen-bad-');
  try {
    const inv = join(dir, 'inventory.yaml');
    writeFileSync(inv, readFileSync(EXAMPLE_INVENTORY, 'utf8').replace('address: 10.3.60.53', 'address: 10.3.60.52'));
    const io = memoryIo();
    assert.equal(await runGenerate(['--inventory', inv, '--out', join(dir, 'out')], io), 1);
    assert.match(io.err, /duplicate|same address|fix the inventory/i);
    assert.ok(!existsSync(join(dir, 'out')));
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
  for (const args of [['--bogus'], ['--out'], ['--containerd-version', 'latest'], ['--inventory', '/nonexistent/inventory.yaml']]) {
    assert.equal(await runGenerate(args, memoryIo()), 2, args.join(' '));
  }
  assert.deepEqual(parseGenerateArgs(['--out=x', '--force', '--containerd-version', '2.0']), { out: 'x', force: true, containerdVersion: '2.0' });
});

test('write plans: new, changed, unchanged; paths stay inside the folder', async () => {
  const existing: Record<string, string> = { 'a.cfg': 'same', 'b.cfg': 'old' };
  const plan = await planWrites(
    [
      { path: 'a.cfg', text: 'same' },
      { path: 'b.cfg', text: 'new' },
      { path: 'etc/c.conf', text: 'x' },
    ],
    async (p) => existing[p],
  );
  assert.deepEqual(plan.map((p) => [p.path, p.status]), [['a.cfg', 'unchanged'], ['b.cfg', 'changed'], ['etc/c.conf', 'new']]);
  for (const bad of ['../x', '/etc/passwd', 'a/../../b', 'C:\\x', 'file:///x', '']) assert.ok(!isSafeRelativePath(bad), bad);
  await assert.rejects(planWrites([{ path: '../escape', text: '' }], async () => undefined));
  assert.equal(containerdLayoutFor('1.7.24'), 2);
  assert.equal(containerdLayoutFor('v2.0.1'), 3);
  assert.equal(containerdLayoutFor(undefined), undefined);
});
