/**
 * The context keys of package.json's `when` clauses against src/editor/contextKeys.ts: a key a clause reads that no
 * code sets hides its menu or welcome for ever; a value compared that the key never takes does the same; a key set
 * outside the table can drift from the clauses unseen.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync, readdirSync, statSync } from 'node:fs';
import { join, relative } from 'node:path';
import { ContextKeys } from '../../../src/editor/contextKeyIds';
import { ViewIds } from '../../../src/editor/commandIds';

const root = join(__dirname, '../../..');
const pkg = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8'));

/** Every `when` (and `enablement`) string anywhere under contributes. */
function clauses(node: unknown, out: string[] = []): string[] {
  if (Array.isArray(node)) for (const n of node) clauses(n, out);
  else if (node && typeof node === 'object') {
    for (const [k, v] of Object.entries(node)) {
      if ((k === 'when' || k === 'enablement') && typeof v === 'string') out.push(v);
      else clauses(v, out);
    }
  }
  return out;
}

const declared = new Map<string, readonly (string | boolean)[]>(Object.values(ContextKeys).map((c) => [c.key, c.values]));
const viewIds = new Set<string>(Object.values(ViewIds));

test('every kubeadm.* context key a when clause reads is declared, with the values it is compared to', () => {
  const all = clauses(pkg.contributes);
  assert.ok(all.length > 10, `when clauses found: ${all.length}`);
  const read = new Set<string>();
  for (const clause of all) {
    // view ids appear as values (`view == kubeadm.inventory`), keys stand on the left or alone
    for (const m of clause.matchAll(/(?<![=~]\s*)\b(kubeadm\.[A-Za-z]+)\b(?:\s*(==|!=)\s*([\w.-]+))?/g)) {
      const [, key, op, value] = m;
      if (viewIds.has(key!)) continue;
      read.add(key!);
      assert.ok(declared.has(key!), `"${clause}" reads ${key}, which src/editor/contextKeyIds.ts does not declare (nothing sets it)`);
      if (op) assert.ok(declared.get(key!)!.map(String).includes(value!), `"${clause}" compares ${key} to ${value}; it takes ${declared.get(key!)!.join(', ')}`);
    }
  }
  for (const key of declared.keys()) assert.ok(read.has(key), `${key} is declared but no when clause reads it`);
});

test('no code sets a context key but through setContextKey', () => {
  const offenders: string[] = [];
  const walk = (dir: string): void => {
    for (const name of readdirSync(dir)) {
      const p = join(dir, name);
      if (statSync(p).isDirectory()) walk(p);
      else if (p.endsWith('.ts') && !p.endsWith(join('editor', 'contextKeys.ts')) && /['"]setContext['"]/.test(readFileSync(p, 'utf8'))) offenders.push(relative(root, p));
    }
  };
  walk(join(root, 'src'));
  assert.deepEqual(offenders, []);
});
