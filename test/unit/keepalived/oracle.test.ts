/**
 * The real `keepalived -t` (Debian 12's keepalived 2.2.7) as an oracle over test/fixtures/keepalived, run in a
 * private network namespace that has the inventory's VRRP interface (so "no such interface" means the config
 * disagrees with the inventory, not with this machine): every file it rejects, the linter flags (zero misses);
 * generated configs pass it and lint clean, also as a set of balancers checked against each other.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { generateKeepalivedConfigs } from '../../../src/core/generate/keepalived';
import { hostsWithRole, type Inventory } from '../../../src/core/inventory/types';
import { lintKeepalived } from '../../../src/core/keepalived/lint';
import type { SourceFile } from '../../../src/core/lint/types';
import { applyAllFixes, describe, errorsAndWarnings, fixtures, KEEPALIVED_FIXTURES, keepalivedCheck, loadInventory, mutations, requireNetns, seedInventory, writeTmp } from '../haproxy/helpers';
import { tempDir } from '../../tempDir';
import { pairContext, pairWorkspaces } from './pairFixtures';

requireNetns();

const inv = seedInventory();
const iface = inv.hosts.find((h) => h.vrrp)!.vrrp!.interface; // ens192
const corpus = fixtures(KEEPALIVED_FIXTURES, '.conf');
const verdicts = new Map(corpus.map((f) => [f.name, keepalivedCheck(f.path, iface)]));
const inv2 = loadInventory('test/fixtures/keepalived/inventory-2lb.yaml');

const pairs = pairWorkspaces();

test('the corpus is large and mixed', () => {
  assert.ok(corpus.length >= 30, `only ${corpus.length} fixtures`);
  assert.ok([...verdicts.values()].filter((v) => v.rc !== 0).length >= 20);
});

test('zero misses: every fixture keepalived -t rejects, the linter flags with an error or warning', (t) => {
  const misses: string[] = [];
  let rejected = 0;
  for (const f of corpus) {
    const v = verdicts.get(f.name)!;
    if (v.rc === 0) continue;
    rejected++;
    if (errorsAndWarnings(lintKeepalived(f.text, { inventory: inv }, f.name)).length === 0) misses.push(`${f.name}: keepalived rc ${v.rc}: ${v.output.trim()}`);
  }
  t.diagnostic(`keepalived -t rejected ${rejected} of ${corpus.length} fixtures; misses: ${misses.length}`);
  assert.deepEqual(misses, []);
});

test('fixture names agree with the real tool (bad-* rejected, valid-*/miss-* accepted)', () => {
  const wrong = corpus.filter((f) => (f.name.startsWith('bad-') ? verdicts.get(f.name)!.rc === 0 : verdicts.get(f.name)!.rc !== 0)).map((f) => `${f.name}: rc ${verdicts.get(f.name)!.rc} ${verdicts.get(f.name)!.output.trim()}`);
  assert.deepEqual(wrong, []);
});

test('each fixture reports the rules it declares (# expect:)', () => {
  const problems: string[] = [];
  for (const f of corpus) {
    const rules = new Set(errorsAndWarnings(lintKeepalived(f.text, { inventory: inv }, f.name)).map((x) => x.rule));
    for (const e of f.expect) if (!rules.has(e)) problems.push(`${f.name}: expected ${e}, got ${[...rules].join(', ') || 'nothing'}`);
    if (!f.name.startsWith('valid-') && f.expect.length === 0) problems.push(`${f.name}: declares no expected rule`);
  }
  assert.deepEqual(problems, []);
});

test('valid fixtures lint clean', () => {
  for (const f of corpus.filter((x) => x.name.startsWith('valid-'))) {
    const ours = errorsAndWarnings(lintKeepalived(f.text, { inventory: inv }, f.name));
    assert.equal(ours.length, 0, `${f.name}:\n${describe(ours)}`);
  }
});

test('balancer pairs: each file passes keepalived -t alone; the cross-balancer rules fire as declared', () => {
  const problems: string[] = [];
  for (const p of pairs) {
    for (const f of p.files) {
      const v = keepalivedCheck(f.abs, 'ens192');
      if (v.rc !== 0) problems.push(`${p.name}/${f.path}: keepalived rc ${v.rc} ${v.output.trim()}`);
      const ours = errorsAndWarnings(lintKeepalived(f.text, pairContext(f, p.files, inv2), f.path));
      const rules = new Set(ours.map((x) => x.rule));
      for (const e of f.expect) if (!rules.has(e)) problems.push(`${p.name}/${f.path}: expected ${e}, got ${[...rules].join(', ') || 'nothing'}`);
      if (f.expect.length === 0 && ours.length) problems.push(`${p.name}/${f.path}: unexpected\n${describe(ours)}`);
    }
  }
  assert.deepEqual(problems, []);
});

test('quick fixes turn fully fixable fixtures into configs keepalived -t accepts and that lint clean', (t) => {
  const dir = tempDir('kw-keepalived-fix-');
  let repaired = 0;
  for (const f of corpus) {
    if (f.name.startsWith('valid-') || f.name.includes('binary')) continue;
    const lint = (text: string) => lintKeepalived(text, { inventory: inv }, f.name);
    const before = errorsAndWarnings(lint(f.text));
    if (!before.every((x) => x.fixes?.length)) continue;
    const { text, applied } = applyAllFixes(f.text, lint);
    const after = errorsAndWarnings(lint(text));
    assert.equal(after.length, 0, `${f.name} after ${applied.join('; ')}:\n${describe(after)}\n---\n${text}`);
    const v = keepalivedCheck(writeTmp(dir, f.name, text), iface);
    assert.equal(v.rc, 0, `${f.name} after fixes is rejected by keepalived:\n${v.output}\n---\n${text}`);
    repaired++;
  }
  t.diagnostic(`${repaired} fixtures repaired by quick fixes alone`);
  assert.ok(repaired >= 15, `only ${repaired} fixtures fully repaired`);
});

const threeBalancers: Inventory = {
  cluster: { name: 'x', kubernetesVersion: '1.31.2', controlPlaneEndpoint: '172.16.5.200:6443', podSubnet: '10.244.0.0/16', serviceSubnet: '10.96.0.0/12', cni: 'flannel' },
  ssh: {},
  hosts: [
    { name: 'lb-a', address: '172.16.5.11', roles: ['loadbalancer'], vrrp: { state: 'MASTER', priority: 150, interface: 'eth1', virtualRouterId: 77 } },
    { name: 'lb-b', address: '172.16.5.12', roles: ['loadbalancer'], vrrp: { state: 'BACKUP', priority: 140, interface: 'eth1' } },
    { name: 'lb-c', address: '172.16.5.13', roles: ['loadbalancer'], vrrp: { state: 'BACKUP', priority: 100, interface: 'eth1' } },
    { name: 'cp-1', address: '172.16.5.21', roles: ['control-plane'] },
  ],
};

for (const [name, inventory] of [
  ['seed', seedInventory()],
  ['two balancers', inv2],
  ['three balancers, custom priorities, VRID and interface', threeBalancers],
] as [string, Inventory][]) {
  test(`generated keepalived.conf files (${name}) pass keepalived -t and every rule, together`, () => {
    const confs = generateKeepalivedConfigs(inventory);
    assert.deepEqual(Object.keys(confs).sort(), hostsWithRole(inventory, 'loadbalancer').map((h) => h.name).sort());
    const dir = tempDir('kw-keepalived-gen-');
    const files: SourceFile[] = Object.entries(confs).map(([host, text]) => ({ path: `${host}/keepalived.conf`, text }));
    const siblings = Object.entries(confs).map(([host, text]) => ({ path: `keepalived-${host}.conf`, text }));
    for (const [host, text] of Object.entries(confs)) {
      const h = inventory.hosts.find((x) => x.name === host)!;
      const v = keepalivedCheck(writeTmp(dir, `${host}.conf`, text), h.vrrp?.interface ?? 'ens192');
      assert.equal(v.rc, 0, `${host}: ${v.output}`);
      const ours = lintKeepalived(text, { inventory, siblings: siblings.filter((s) => s.path !== `keepalived-${host}.conf`) }, `keepalived-${host}.conf`);
      assert.deepEqual(ours, [], `${host}:\n${describe(ours)}`);
    }
    assert.equal(files.length, Object.keys(confs).length);
  });
}

test('the seed example passes keepalived -t (on ens192) and lints clean', () => {
  const seed = corpus.find((f) => f.name === 'valid-seed.conf')!;
  assert.equal(verdicts.get(seed.name)!.rc, 0);
  assert.deepEqual(lintKeepalived(seed.text, { inventory: inv }, 'keepalived.conf'), []);
});

test('zero misses on 60 deterministic mutations of the seed (keepalived -t decides)', (t) => {
  const dir = tempDir('kw-keepalived-mut-');
  const junk = ['x', '0', '-1', '300', 'abc', '1.2.3', '10.3.60.999', '"', '{', '}', '#', '!', 'MASTER', 'BACKUP', 'dev', 'eth9', '/24', ''];
  const seedText = corpus.find((f) => f.name === 'valid-seed.conf')!.text;
  let rejected = 0;
  const misses: string[] = [];
  mutations(seedText, 60, 21, junk).forEach((text, i) => {
    const v = keepalivedCheck(writeTmp(dir, `m${i}.conf`, text), iface);
    if (v.rc === 0) return;
    rejected++;
    if (errorsAndWarnings(lintKeepalived(text, { inventory: inv }, 'keepalived.conf')).length === 0) misses.push(`mutation ${i}: rc ${v.rc} ${v.output.trim().split('\n')[0]}`);
  });
  t.diagnostic(`keepalived -t rejected ${rejected} of 60 mutations; misses: ${misses.length}`);
  assert.ok(rejected >= 30);
  assert.deepEqual(misses, []);
});
