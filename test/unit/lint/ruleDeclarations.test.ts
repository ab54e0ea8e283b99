/**
 * Every rule id is declared, both ways: whatever the linters, the registry, the runner and the Ansible importer
 * emit is in a rule table (so hovers, the Diagnostics webview and SARIF have its why), and every declared rule is
 * emitted by the fixture corpus here or asserted by a unit test — or is listed below as reserved, with the reason.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join, relative } from 'node:path';
import type { Finding } from '../../../src/core/findings';
import { importAnsibleInventory } from '../../../src/core/inventory/ansible';
import { parseInventory } from '../../../src/core/inventory/parse';
import { allRules, detectKind, lintText } from '../../../src/core/lint/registry';
import type { SourceFile } from '../../../src/core/lint/types';
import { RUNNER_RULES } from '../../../src/engine/lintRunner';
import { RULE_CASES } from './ruleCases';

const ROOT = join(__dirname, '../../..');

/** Declared rules no corpus file and no unit test produces, with the reason they stay declared. */
const RESERVED: Record<string, string> = {
  'lint/internal-error': 'the lint runner (src/engine/lintRunner.ts) reports it when a linter throws; no input makes a linter throw, and the guard against one is what this id is for',
};

function files(dir: string): string[] {
  return readdirSync(dir).flatMap((n) => {
    const p = join(dir, n);
    return statSync(p).isDirectory() ? files(p) : [p];
  });
}

const declared = new Map([...allRules(), ...RUNNER_RULES].map((r) => [r.id, r]));

/** The corpus: the example workspace and every fixture, each linted by its detected kind with the example inventory and its siblings. */
function corpusFindings(): Finding[] {
  const example = join(ROOT, 'examples/labs-k8s');
  const inventory = parseInventory(readFileSync(join(example, 'inventory.yaml'), 'utf8')).inventory!;
  const out: Finding[] = [];
  const workspaces = [example, join(ROOT, 'test/fixtures/haproxy'), join(ROOT, 'test/fixtures/keepalived'), join(ROOT, 'test/fixtures/containerd'), join(ROOT, 'test/fixtures/kubeadm')];
  for (const dir of workspaces) {
    const all: SourceFile[] = files(dir).map((p) => ({ path: relative(dir, p), text: readFileSync(p, 'latin1') }));
    for (const f of all) {
      const kind = detectKind(f.path, f.text) ?? (/\.cfg$/.test(f.path) ? 'haproxy' : /\.conf$/.test(f.path) ? 'keepalived' : /\.toml$/.test(f.path) ? 'containerd' : undefined);
      if (!kind) continue;
      out.push(...lintText(f, { inventory, siblings: all.filter((s) => s !== f) }, kind));
    }
  }
  for (const p of files(join(ROOT, 'test/fixtures/ansible'))) {
    if (!/\.(ini|ya?ml)$/.test(p) || /group_vars/.test(p)) continue;
    out.push(...importAnsibleInventory(readFileSync(p, 'utf8'), relative(ROOT, p)).findings);
  }
  return out;
}

const PREFIX = '(?:kubeadm|haproxy|keepalived|containerd|sysctl|modules|inventory|ansible|cross-file|lint)';
/** Rule ids as string literals in the sources (the type system checks the ones built from a table's names). */
const ID_LITERAL = new RegExp(`['"\`](${PREFIX}\\/[a-z0-9-]+)['"\`]`, 'g');
/** Rule ids anywhere in a test (`'inventory/too-large error'` included), but not module paths like '../kubeadm/lint'. */
const ID_MENTION = new RegExp(`(?<![\\w/.-])(${PREFIX}\\/[a-z0-9-]+)(?![\\w-])`, 'g');

function ids(dir: string, pattern: RegExp, skip: (p: string) => boolean): Map<string, string> {
  const found = new Map<string, string>();
  for (const p of files(dir)) {
    if (!p.endsWith('.ts') || skip(p)) continue;
    // comments name rules as examples; only code counts
    const code = readFileSync(p, 'utf8').replace(/\/\*[\s\S]*?\*\//g, '').replace(/^\s*\/\/.*$/gm, '');
    for (const m of code.matchAll(pattern)) if (!found.has(m[1]!)) found.set(m[1]!, relative(ROOT, p));
  }
  return found;
}

test('every rule id the corpus and the rule cases emit is declared, with a why', () => {
  const emitted = [...corpusFindings(), ...Object.values(RULE_CASES).flatMap((run) => run())];
  assert.ok(emitted.length > 100, `the corpus gave only ${emitted.length} findings`);
  const undeclared = [...new Set(emitted.map((f) => f.rule).filter((id) => !declared.has(id)))];
  assert.deepEqual(undeclared, [], 'emitted but not declared');
  for (const r of declared.values()) assert.ok(r.why.trim().endsWith('.') && r.title.length > 5, r.id);
});

test('every rule id written in the sources is declared (modules named like rules are not ids)', () => {
  const inSources = ids(join(ROOT, 'src'), ID_LITERAL, (p) => /[\\/]webview-ui[\\/]/.test(p));
  const undeclared = [...inSources].filter(([id]) => !declared.has(id)).map(([id, where]) => `${id} (${where})`);
  assert.deepEqual(undeclared, []);
});

test('each rule case reports its rule', () => {
  for (const [id, run] of Object.entries(RULE_CASES)) {
    assert.ok(declared.has(id), `${id}: a case for an undeclared rule`);
    const rules = run().map((f) => f.rule);
    assert.ok(rules.includes(id), `${id}: the case reports ${rules.join(', ') || 'nothing'}`);
  }
});

test('every declared rule is emitted by the corpus or a rule case, asserted by a unit test, or reserved with a reason', () => {
  const emitted = new Set(corpusFindings().map((f) => f.rule));
  for (const run of Object.values(RULE_CASES)) for (const f of run()) emitted.add(f.rule);
  const inTests = ids(join(ROOT, 'test/unit'), ID_MENTION, (p) => p.endsWith('ruleDeclarations.test.ts'));
  const unused = [...declared.keys()].filter((id) => !emitted.has(id) && !inTests.has(id) && !(id in RESERVED));
  assert.deepEqual(unused, [], 'declared but never emitted by a fixture or a test');
  for (const id of Object.keys(RESERVED)) assert.ok(declared.has(id), `${id} is reserved but not declared`);
});

test('ids are unique across tables and each has the shape linter/name', () => {
  const ids = [...allRules(), ...RUNNER_RULES].map((r) => r.id);
  assert.equal(new Set(ids).size, ids.length);
  for (const id of ids) assert.match(id, /^[a-z-]+\/[a-z0-9-]+$/);
});
