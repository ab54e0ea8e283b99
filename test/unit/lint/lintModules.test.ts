import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readdirSync, readFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { FACT_EXTRACTORS } from '../../../src/core/lint/crossFile';
import { detectKind, KIND_TESTS } from '../../../src/core/lint/kinds';
import { clearLintResultCache } from '../../../src/core/lint/resultCache';
import type { SourceFile } from '../../../src/core/lint/types';
import { kindsFor, LAZY_LINTERS, loadKinds } from '../../../src/engine/lintModules';

const root = join(__dirname, '../../..');
const loadedSource = (part: string): boolean => Object.keys(require.cache).some((k) => k.replace(/\\/g, '/').includes(part));

function filesUnder(dir: string): SourceFile[] {
  return readdirSync(dir, { withFileTypes: true, recursive: true })
    .filter((d) => d.isFile())
    .map((d) => join(d.parentPath, d.name))
    .sort()
    .map((p) => ({ path: relative(root, p), text: readFileSync(p, 'utf8') }));
}

// In this order: the lazy path first, while this process has loaded no linter, then the registry.
test('an haproxy.cfg alone loads the balancer linters and facts, neither the YAML parser nor the kubeadm schemas', async () => {
  const file = { path: 'haproxy.cfg', text: readFileSync(join(root, 'examples/labs-k8s/haproxy.cfg'), 'utf8') };
  const kinds = kindsFor({ id: 1, file, context: {} });
  assert.deepEqual(kinds, { lint: ['haproxy'], facts: ['haproxy'] });
  await loadKinds(kinds);
  assert.deepEqual(Object.keys(FACT_EXTRACTORS).sort(), ['haproxy', 'keepalived']);
  const typo = { path: 'haproxy.cfg', text: `${file.text}\nbackend extra\n  balanse roundrobin\n` };
  assert.ok(LAZY_LINTERS.lintText(typo, {}, 'haproxy').some((f) => f.rule.startsWith('haproxy/')), 'a misspelt keyword is found');
  assert.equal(loadedSource('src/core/kubeadm/schema'), false);
  assert.equal(loadedSource('node_modules/yaml/'), false);
  assert.throws(() => LAZY_LINTERS.lintText(file, {}, 'kubeadm'), /kubeadm linter was not loaded/);
});

test('with the kinds present loaded, the example and the test fixtures lint as the registry lints them', async () => {
  const example = filesUnder(join(root, 'examples/labs-k8s'));
  const files = [...example, ...filesUnder(join(root, 'test/fixtures'))];
  const inventoryFile = files.find((f) => f.path.endsWith('examples/labs-k8s/inventory.yaml'))!;
  const { parseInventory } = await import('../../../src/core/inventory/parse.js');
  const context = { inventory: parseInventory(inventoryFile.text).inventory!, inventoryPath: inventoryFile.path };
  const lazy: unknown[] = [];
  for (const file of files) {
    const kind = detectKind(file.path, file.text);
    if (!kind) continue;
    for (const ctx of [{ siblings: example }, { ...context, siblings: example }]) {
      await loadKinds(kindsFor({ id: 1, file, context: ctx, kind }));
      lazy.push([file.path, LAZY_LINTERS.lintText(file, ctx, kind)]);
    }
  }
  clearLintResultCache();
  const registry = await import('../../../src/core/lint/registry.js');
  const eager: unknown[] = [];
  for (const file of files) {
    const kind = registry.detectKind(file.path, file.text);
    if (!kind) continue;
    for (const ctx of [{ siblings: example }, { ...context, siblings: example }]) eager.push([file.path, registry.lintText(file, ctx, kind)]);
  }
  assert.ok(eager.length > 20);
  assert.deepEqual(lazy, eager);
  // the registry's detection is its linters' own tests, in the same order as the light ones
  assert.deepEqual(registry.LINTERS.map((l) => l.kind), KIND_TESTS.map((k) => k.kind));
  for (const file of files) assert.equal(registry.LINTERS.find((l) => l.detect(file.path, file.text))?.kind, detectKind(file.path, file.text), file.path);
});
