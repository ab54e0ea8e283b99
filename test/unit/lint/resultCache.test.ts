import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { lintText } from '../../../src/core/lint/registry';
import { cachedLint, clearLintResultCache, lintResultCacheSize } from '../../../src/core/lint/resultCache';
import { loadInventory, ROOT } from '../haproxy/helpers';

const inv = loadInventory('test/fixtures/keepalived/inventory-2lb.yaml');
const dir = join(ROOT, 'test/fixtures/keepalived/pairs/valid');
const lb1 = { path: 'keepalived-lb1.conf', text: readFileSync(join(dir, 'keepalived-lb1.conf'), 'utf8') };
const lb2 = { path: 'keepalived-lb2.conf', text: readFileSync(join(dir, 'keepalived-lb2.conf'), 'utf8') };
const vridRule = (fs: { rule: string }[]) => fs.filter((f) => f.rule === 'keepalived/virtual-router-id').length;

test('the result cache answers unchanged text, and never a stale result when the text, a sibling or the inventory changes', () => {
  clearLintResultCache();
  const first = lintText(lb1, { inventory: inv, siblings: [lb1, lb2] });
  assert.deepEqual(lintText({ ...lb1, text: lb1.text.slice(0) }, { inventory: inv, siblings: [lb1, lb2] }), first);
  // the peer's router id changes: split brain must appear although this file's text did not change
  const lb2b = { ...lb2, text: lb2.text.replace('virtual_router_id 51', 'virtual_router_id 52') };
  assert.equal(vridRule(lintText(lb1, { inventory: inv, siblings: [lb1, lb2b] })), 1);
  // this file's text changes
  assert.equal(vridRule(lintText({ ...lb1, text: lb1.text.replace('virtual_router_id 51', 'virtual_router_id 53') }, { inventory: inv, siblings: [lb1, lb2] })), 1);
  // another inventory object (edited inventory): recomputed
  const other = { ...inv, hosts: inv.hosts.map((h) => (h.vrrp ? { ...h, vrrp: { ...h.vrrp, virtualRouterId: 60 } } : h)) };
  assert.ok(lintText(lb1, { inventory: other, siblings: [lb1, lb2] }).some((f) => f.rule === 'keepalived/inventory-mismatch'));
  assert.deepEqual(lintText(lb1, { inventory: inv, siblings: [lb1, lb2] }), first);
  // a peer in another folder (vrrpElsewhere) changes: recomputed too
  const far = (text: string) => ({ path: 'lb-b/keepalived.conf', text });
  const alone = { path: 'lb-a/keepalived.conf', text: lb1.text };
  assert.equal(vridRule(lintText(alone, { inventory: inv, vrrpElsewhere: [far(lb2.text)] })), 0);
  assert.equal(vridRule(lintText(alone, { inventory: inv, vrrpElsewhere: [far(lb2b.text)] })), 1);
});

test('the result cache keeps at most 32 M characters of texts: the least recently linted large files go first', () => {
  clearLintResultCache();
  const big = (i: number) => `# file ${i}\n` + 'x'.repeat(5_000_000);
  let runs = 0;
  const lint = (path: string, text: string) => cachedLint({ path, text }, {}, 'sysctl', () => (runs++, []));
  for (let i = 0; i < 10; i++) lint(`big-${i}.conf`, big(i));
  assert.ok(lintResultCacheSize().chars <= 32_000_000, `${lintResultCacheSize().chars} characters kept`);
  assert.equal(lintResultCacheSize().paths, 6, '6 files of 5 M characters fit');
  // the most recent ones are answered from the cache, the first ones were dropped and are linted again
  runs = 0;
  lint('big-9.conf', big(9));
  assert.equal(runs, 0);
  lint('big-0.conf', big(0));
  assert.equal(runs, 1);
  // kept now: big-5 to big-9 and big-0. A hit counts as a use: big-5 (the oldest) is answered, so big-6 goes when
  // the next file comes, and big-5 stays
  lint('big-5.conf', big(5));
  assert.equal(runs, 1);
  lint('big-10.conf', big(10));
  lint('big-5.conf', big(5));
  assert.equal(runs, 2, 'big-5 was kept');
  lint('big-6.conf', big(6));
  assert.equal(runs, 3, 'big-6 went');
  clearLintResultCache();
  assert.deepEqual(lintResultCacheSize(), { paths: 0, chars: 0 });
});
