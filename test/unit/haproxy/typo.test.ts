import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { lintHaproxy } from '../../../src/core/haproxy/lint';
import { applyEdits, ROOT, seedInventory } from './helpers';

const seed = readFileSync(join(ROOT, 'examples/labs-k8s/haproxy.cfg'), 'utf8');
const lint = (text: string) => lintHaproxy(text, { inventory: seedInventory(), siblings: [] });

test("one typo, one finding: 'che1k' is an unknown option with a fix, not also a server without 'check'", () => {
  const typo = seed.replace(/(server labs-k8s-m01 \S+) check/, '$1 che1k');
  assert.notEqual(typo, seed);
  const findings = lint(typo);
  assert.deepEqual(findings.map((f) => f.rule), ['haproxy/server-keyword']);
  assert.match(findings[0]!.message, /did you mean 'check'/);
  assert.deepEqual(lint(applyEdits(typo, findings[0]!.fixes![0]!.edits)), []);
});

test("a server with no 'check' and no near miss still gets the missing-check finding", () => {
  const none = seed.replace(/(server labs-k8s-m01 \S+) check/, '$1');
  assert.ok(lint(none).some((f) => f.rule === 'haproxy/server-check'));
  const other = seed.replace(/(server labs-k8s-m01 \S+) check/, '$1 weightt 10');
  const rules = lint(other).map((f) => f.rule);
  assert.ok(rules.includes('haproxy/server-check') && rules.includes('haproxy/server-keyword'), rules.join(', '));
});
