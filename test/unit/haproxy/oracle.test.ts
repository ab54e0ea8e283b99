/**
 * The real `haproxy -c` (Debian 12's haproxy 2.6) as an oracle over test/fixtures/haproxy:
 * every file it rejects, the linter flags too (zero misses); bad-* files are rejected by it, valid-* and miss-*
 * files pass it (miss-* are what it does not catch and we do); generated configs pass it and lint clean.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { generateHaproxyConfig } from '../../../src/core/generate/haproxy';
import { lintHaproxy } from '../../../src/core/haproxy/lint';
import type { Inventory } from '../../../src/core/inventory/types';
import { applyAllFixes, applyEdits, describe, errorsAndWarnings, fixtures, HAPROXY_FIXTURES, haproxyCheck, loadInventory, mutations, requireTool, seedInventory, writeTmp } from './helpers';
import { tempDir } from '../../tempDir';

requireTool('haproxy', ['-v'], 'haproxy');

const inv = seedInventory();
const corpus = fixtures(HAPROXY_FIXTURES, '.cfg');
const verdicts = new Map(corpus.map((f) => [f.name, haproxyCheck(f.path)]));

test('the corpus is large and mixed', () => {
  assert.ok(corpus.length >= 50, `only ${corpus.length} fixtures`);
  assert.ok([...verdicts.values()].filter((v) => v.rc !== 0).length >= 30);
});

test('zero misses: every fixture haproxy -c rejects, the linter flags with an error or warning', (t) => {
  const misses: string[] = [];
  let rejected = 0;
  for (const f of corpus) {
    const v = verdicts.get(f.name)!;
    if (v.rc === 0) continue;
    rejected++;
    const ours = errorsAndWarnings(lintHaproxy(f.text, { inventory: inv }));
    if (ours.length === 0) misses.push(`${f.name}: haproxy rc ${v.rc}: ${v.output.split('\n').find((l) => l.includes('ALERT')) ?? v.output.trim()}`);
  }
  t.diagnostic(`haproxy -c rejected ${rejected} of ${corpus.length} fixtures; misses: ${misses.length}`);
  assert.deepEqual(misses, []);
});

test('fixture names agree with the real tool (bad-* rejected, valid-*/miss-* accepted)', () => {
  const wrong = corpus.filter((f) => (f.name.startsWith('bad-') ? verdicts.get(f.name)!.rc === 0 : verdicts.get(f.name)!.rc !== 0)).map((f) => `${f.name}: rc ${verdicts.get(f.name)!.rc} ${verdicts.get(f.name)!.output.trim()}`);
  assert.deepEqual(wrong, []);
});

test('each fixture reports the rules it declares (# expect:)', () => {
  const problems: string[] = [];
  for (const f of corpus) {
    const rules = new Set(errorsAndWarnings(lintHaproxy(f.text, { inventory: inv })).map((x) => x.rule));
    for (const e of f.expect) if (!rules.has(e)) problems.push(`${f.name}: expected ${e}, got ${[...rules].join(', ') || 'nothing'}`);
    if (!f.name.startsWith('valid-') && f.expect.length === 0) problems.push(`${f.name}: declares no expected rule`);
  }
  assert.deepEqual(problems, []);
});

test('valid fixtures lint clean (no error or warning)', () => {
  for (const f of corpus.filter((x) => x.name.startsWith('valid-'))) {
    const ours = errorsAndWarnings(lintHaproxy(f.text, { inventory: inv }));
    assert.equal(ours.length, 0, `${f.name}:\n${describe(ours)}`);
  }
});

test('miss-* fixtures are what haproxy -c accepts but breaks the API, and we flag them as errors or warnings', () => {
  const miss = corpus.filter((f) => f.name.startsWith('miss-'));
  assert.ok(miss.length >= 12);
  for (const f of miss) assert.ok(errorsAndWarnings(lintHaproxy(f.text, { inventory: inv })).length > 0, f.name);
});

test('quick fixes turn fully fixable fixtures into configs haproxy -c accepts and that lint clean', (t) => {
  const dir = tempDir('kw-haproxy-fix-');
  let repaired = 0;
  for (const f of corpus) {
    if (f.name.startsWith('valid-') || f.name.includes('binary')) continue;
    const lint = (text: string) => lintHaproxy(text, { inventory: inv });
    const before = errorsAndWarnings(lint(f.text));
    if (!before.every((x) => x.fixes?.length)) continue;
    const { text, applied } = applyAllFixes(f.text, lint);
    const after = errorsAndWarnings(lint(text));
    assert.equal(after.length, 0, `${f.name} after ${applied.join('; ')}:\n${describe(after)}\n---\n${text}`);
    const v = haproxyCheck(writeTmp(dir, f.name, text));
    assert.equal(v.rc, 0, `${f.name} after fixes is rejected by haproxy:\n${v.output}\n---\n${text}`);
    repaired++;
  }
  t.diagnostic(`${repaired} fixtures repaired by quick fixes alone`);
  assert.ok(repaired >= 25, `only ${repaired} fixtures fully repaired`);
});

const inventories: [string, Inventory][] = [
  ['seed', seedInventory()],
  ['two balancers', loadInventory('test/fixtures/keepalived/inventory-2lb.yaml')],
  [
    'five control-plane nodes on 8443 in another subnet',
    {
      cluster: { name: 'x', kubernetesVersion: '1.31.2', controlPlaneEndpoint: '192.168.10.10:8443', podSubnet: '10.244.0.0/16', serviceSubnet: '10.96.0.0/12', cni: 'calico' },
      ssh: {},
      hosts: [
        { name: 'lb-a', address: '192.168.10.2', roles: ['loadbalancer'] },
        ...[1, 2, 3, 4, 5].map((i) => ({ name: `cp-${i}.example`, address: `192.168.10.${20 + i}`, roles: ['control-plane' as const] })),
      ],
    },
  ],
];

for (const [name, inventory] of inventories) {
  test(`generated haproxy.cfg (${name}) passes haproxy -c and every rule`, () => {
    const text = generateHaproxyConfig(inventory);
    const v = haproxyCheck(writeTmp(tempDir('kw-haproxy-gen-'), 'haproxy.cfg', text));
    assert.equal(v.rc, 0, v.output);
    const ours = lintHaproxy(text, { inventory });
    assert.deepEqual(ours, [], describe(ours));
  });
}

test("the seed's haproxy.cfg passes haproxy -c with one recommendation: the /readyz check, whose fix haproxy -c accepts and lints clean", () => {
  const seed = corpus.find((f) => f.name === 'valid-seed.cfg')!;
  assert.equal(verdicts.get(seed.name)!.rc, 0);
  const found = lintHaproxy(seed.text, { inventory: inv });
  assert.deepEqual(found.map((f) => [f.rule, f.severity]), [['haproxy/readyz-check', 'info']], describe(found));
  const text = applyEdits(seed.text, found[0]!.fixes![0]!.edits);
  assert.match(text, /option httpchk GET \/readyz\n {4}http-check expect status 200\n/);
  assert.equal((text.match(/ check check-ssl verify none fall 3 rise 2/g) ?? []).length, 3);
  const v = haproxyCheck(writeTmp(tempDir('kw-haproxy-readyz-'), 'haproxy.cfg', text));
  assert.equal(v.rc, 0, v.output);
  assert.deepEqual(lintHaproxy(text, { inventory: inv }), []);
});

test('zero misses on 80 deterministic mutations of the seed (haproxy -c decides)', (t) => {
  const dir = tempDir('kw-haproxy-mut-');
  const junk = ['x', '0', '-1', '99999', 'abc', '1.2.3', '10.3.60.999', '"', "'", '{', '}', '#', '\\', 'check', 'tcp', 'http', ':6443', '5x', ''];
  const seedText = corpus.find((f) => f.name === 'valid-seed.cfg')!.text;
  let rejected = 0;
  const misses: string[] = [];
  mutations(seedText, 80, 23, junk).forEach((text, i) => {
    const v = haproxyCheck(writeTmp(dir, `m${i}.cfg`, text));
    if (v.rc === 0) return;
    rejected++;
    if (errorsAndWarnings(lintHaproxy(text, { inventory: inv })).length === 0) misses.push(`mutation ${i}: ${v.output.split('\n').find((l) => l.includes('ALERT'))}`);
  });
  t.diagnostic(`haproxy -c rejected ${rejected} of 80 mutations; misses: ${misses.length}`);
  assert.ok(rejected >= 40);
  assert.deepEqual(misses, []);
});
