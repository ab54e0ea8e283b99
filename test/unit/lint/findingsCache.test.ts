/**
 * The findings cache the editor keeps across reloads: its key changes with every input a lint depends on (so a hit is
 * what a new lint would give), its file round-trips the real linters' findings with their fixes, and it is untrusted
 * state — every entry that does not validate (an undeclared rule, a path out of the workspace, a broken range, a size
 * past the bounds) is dropped, and a file of another format or linter build is ignored whole.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { lintText, ruleInfo } from '../../../src/core/lint/registry';
import { isConfinedPath, lintCacheKey, MAX_CACHE_BYTES, parseFindingsCache, serializeFindingsCache, type FindingsCache } from '../../../src/core/lint/findingsCache';
import { loadInventory, ROOT } from '../haproxy/helpers';

const inv = loadInventory('examples/labs-k8s/inventory.yaml');
const read = (p: string) => ({ path: p, text: readFileSync(join(ROOT, 'examples/labs-k8s', p), 'utf8') });
const haproxy = read('haproxy.cfg');
const keepalived = read('keepalived.conf');
// A backend without a health check and a frontend in http mode: findings with fixes.
const broken = { path: 'haproxy.cfg', text: haproxy.text.replace('    mode tcp\n    option tcplog\n    default_backend', '    mode http\n    option tcplog\n    default_backend') };
const context = { inventory: inv, inventoryPath: 'inventory.yaml', siblings: [keepalived] };
const isRule = (id: string): boolean => !!ruleInfo(id);
const LINTER = '0.1.0:908452:1733300000000';

test('the key changes with the file, a sibling, the inventory, the kind and the linter build; not with sibling order', () => {
  const base = lintCacheKey(LINTER, 'haproxy', broken, context);
  assert.match(base, /^[0-9a-f]{64}$/);
  assert.equal(lintCacheKey(LINTER, 'haproxy', { ...broken }, { ...context, siblings: [{ ...keepalived }] }), base, 'the same inputs, other objects');
  const other = { path: 'etc/sysctl.d/99-loadbalancer.conf', text: 'net.ipv4.ip_nonlocal_bind = 1\n' };
  assert.equal(lintCacheKey(LINTER, 'haproxy', broken, { ...context, siblings: [keepalived, other] }), lintCacheKey(LINTER, 'haproxy', broken, { ...context, siblings: [other, keepalived] }));
  const changed = [
    lintCacheKey(LINTER, 'haproxy', haproxy, context),
    lintCacheKey(LINTER, 'haproxy', { ...broken, path: 'lb/haproxy.cfg' }, context),
    lintCacheKey(LINTER, 'haproxy', broken, { ...context, siblings: [{ ...keepalived, text: keepalived.text.replace('priority 100', 'priority 90') }] }),
    lintCacheKey(LINTER, 'haproxy', broken, { ...context, inventory: { ...inv, cluster: { ...inv.cluster, controlPlaneEndpoint: '10.3.60.101:6443' } } }),
    lintCacheKey(LINTER, 'haproxy', broken, { siblings: [keepalived] }),
    lintCacheKey(LINTER, 'keepalived', broken, context),
    lintCacheKey('0.1.0:908452:1733300000001', 'haproxy', broken, context),
  ];
  for (const k of changed) assert.notEqual(k, base);
  assert.equal(new Set(changed).size, changed.length);
});

test("the real linters' findings, fixes included, come back unchanged through the file", () => {
  const findings = lintText(broken, context, 'haproxy');
  assert.ok(findings.some((f) => f.fixes?.length), 'a finding with a fix');
  const cache: FindingsCache = new Map([['haproxy.cfg', { key: lintCacheKey(LINTER, 'haproxy', broken, context), findings }]]);
  const text = serializeFindingsCache(cache, LINTER);
  const back = parseFindingsCache(text, LINTER, isRule);
  assert.equal(back.dropped, 0);
  assert.deepEqual(back.cache, cache);
  assert.match(parseFindingsCache(text, '0.1.0:1:2', isRule).ignored ?? '', /another linter build/);
  assert.match(parseFindingsCache(text.replace('"format":1', '"format":2'), LINTER, isRule).ignored ?? '', /another format/);
  assert.match(parseFindingsCache('{"format":1', LINTER, isRule).ignored ?? '', /not JSON/);
  assert.match(parseFindingsCache(' '.repeat(MAX_CACHE_BYTES + 1), LINTER, isRule).ignored ?? '', /larger than/);
});

test('tampered entries are dropped one by one; the valid ones stay', () => {
  const findings = lintText(broken, context, 'haproxy');
  const good = { key: 'a'.repeat(64), findings };
  const f0 = findings[0]!;
  const tampered: Record<string, unknown> = {
    'ok.cfg': good,
    '../outside.cfg': good,
    '/etc/haproxy/haproxy.cfg': good,
    'bad-key.cfg': { ...good, key: 'not-a-hash' },
    'unknown-rule.cfg': { ...good, findings: [{ ...f0, rule: 'haproxy/made-up' }] },
    'bad-severity.cfg': { ...good, findings: [{ ...f0, severity: 'fatal' }] },
    'negative-range.cfg': { ...good, findings: [{ ...f0, range: { start: { line: -1, character: 0 }, end: { line: 0, character: 0 } } }] },
    'file-outside.cfg': { ...good, findings: [{ ...f0, file: '../../.ssh/authorized_keys' }] },
    'fix-outside.cfg': { ...good, findings: [{ ...f0, fixes: [{ title: 't', edits: [], otherFiles: { '/root/.bashrc': [{ range: f0.range, newText: 'x' }] } }] }] },
    'docs-not-https.cfg': { ...good, findings: [{ ...f0, docs: 'javascript:alert(1)' }] },
    'not-a-list.cfg': { ...good, findings: 'none' },
  };
  const back = parseFindingsCache(JSON.stringify({ format: 1, linter: LINTER, files: tampered }), LINTER, isRule);
  assert.deepEqual([...back.cache.keys()], ['ok.cfg']);
  assert.equal(back.dropped, Object.keys(tampered).length - 1);
  // Extra fields of a valid finding are not carried over.
  const extra = parseFindingsCache(JSON.stringify({ format: 1, linter: LINTER, files: { 'a.cfg': { key: good.key, findings: [{ ...f0, fixes: undefined, command: 'rm -rf /' }] } } }), LINTER, isRule);
  assert.equal(Object.hasOwn(extra.cache.get('a.cfg')!.findings[0]!, 'command'), false);
  for (const p of ['a/b.cfg', 'lb1/keepalived.conf']) assert.ok(isConfinedPath(p), p);
  for (const p of ['', '..', 'a/../../b', 'C:\\x', 'file:///etc/passwd', 'a\u0000b']) assert.ok(!isConfinedPath(p), JSON.stringify(p));
});
