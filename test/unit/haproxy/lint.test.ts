import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { detectKind, lintText } from '../../../src/core/lint/registry';
import { clearHaproxyCaches, detectHaproxy, haproxyLinter, lintHaproxy, parseTime } from '../../../src/core/haproxy/lint';
import { parseHaproxy, tokenizeLine } from '../../../src/core/haproxy/parse';
import { HAPROXY_RULES } from '../../../src/core/haproxy/rules';
import { applyEdits, describe, fixtures, HAPROXY_FIXTURES, ROOT, seedInventory } from './helpers';

const inv = seedInventory();
const seed = readFileSync(join(ROOT, 'examples/labs-k8s/haproxy.cfg'), 'utf8');
const lint = (text: string, siblings = [] as { path: string; text: string }[]) => lintHaproxy(text, { inventory: inv, siblings });
const rulesOf = (text: string) => lint(text).map((f) => f.rule);

test('tokenizer: words, quotes, escapes, comments and positions', () => {
  const l = tokenizeLine(`  log-tag "a b\\"c" 'd\\e' x\\ y # comment "not a word"`);
  assert.deepEqual(
    l.tokens().map((t) => [t.text, t.start, t.end]),
    [
      ['log-tag', 2, 9],
      ['a b"c', 10, 18],
      ['d\\e', 19, 24],
      ['x y', 25, 29],
    ],
  );
  assert.equal(l.comment, 30);
  assert.equal(l.indent, 2);
  assert.equal(tokenizeLine('bind "10.0.0.1:80').error?.message, 'unmatched quote at position 5');
  assert.deepEqual(tokenizeLine('\tserver\ta\t1.2.3.4:80\r').words(), ['server', 'a', '1.2.3.4:80']);
  assert.deepEqual(tokenizeLine('server a 1.2.3.4:80#x check').words(), ['server', 'a', '1.2.3.4:80']);
  assert.equal(tokenizeLine('x \\x41\\x42').word(1), 'AB');
});

test('sections: types, names, absolute lines and the lines before the first section', () => {
  const cfg = parseHaproxy('# head\nmaxconn 1\nglobal\n  daemon\nfrontend  fe # c\n  bind :80\n\n  backend be\n');
  assert.deepEqual(
    cfg.sections.map((s) => [s.type, s.name, s.startLine, s.lineCount]),
    [
      ['', undefined, 0, 2],
      ['global', undefined, 2, 2],
      ['frontend', 'fe', 4, 3],
      ['backend', 'be', 7, 1],
    ],
  );
  assert.equal(cfg.lineCount, 9);
});

test('time values', () => {
  assert.equal(parseTime('5s'), 5000);
  assert.equal(parseTime('1h'), 3_600_000);
  assert.equal(parseTime('300'), 300);
  assert.equal(parseTime('1x'), undefined);
  assert.equal(parseTime('-1'), undefined);
});

test('kind detection by name and by content', () => {
  assert.ok(detectHaproxy('etc/haproxy/haproxy.cfg', ''));
  assert.ok(detectHaproxy('lb/haproxy-k8s.cfg', ''));
  assert.ok(detectHaproxy('conf/api.cfg', 'global\n  daemon\nfrontend x\n  bind :6443\n'));
  assert.ok(!detectHaproxy('conf/app.cfg', '[section]\nkey = value\n'));
  assert.ok(!detectHaproxy('etc/sysctl.d/99-k8s.conf', 'net.ipv4.ip_forward = 1\n'));
  assert.equal(detectKind('examples/labs-k8s/haproxy.cfg', seed), 'haproxy');
  assert.ok(haproxyLinter.rules.length >= 25);
});

test('the seed example lints clean through the registry, with and without siblings', () => {
  assert.deepEqual(lintText({ path: 'haproxy.cfg', text: seed }, { inventory: inv }), []);
  const sysctl = { path: 'etc/sysctl.d/99-kubernetes-cri.conf', text: readFileSync(join(ROOT, 'examples/labs-k8s/etc/sysctl.d/99-kubernetes-cri.conf'), 'utf8') };
  assert.deepEqual(lint(seed, [sysctl]), []);
  assert.deepEqual(lintHaproxy(seed), [], 'no inventory: only the inventory-free rules');
});

test('every rule has an id, a one-sentence why and a docs link', () => {
  for (const r of Object.values(HAPROXY_RULES)) {
    assert.match(r.id, /^haproxy\/[a-z-]+$/);
    assert.ok(r.why.length > 20 && r.why.trim().endsWith('.'), r.id);
    assert.match(r.docs ?? '', /^https:\/\/docs\.haproxy\.org\/2\.6\/configuration\.html#/);
  }
});

test('the corpus covers every rule, and every rule marked fixable offers a fix', () => {
  const corpus = fixtures(HAPROXY_FIXTURES, '.cfg');
  const seen = new Map<string, boolean>();
  for (const f of corpus) for (const x of lint(f.text)) seen.set(x.rule, (seen.get(x.rule) ?? false) || !!x.fixes?.length);
  // rules that need a context the corpus files do not have are exercised in the tests below
  const elsewhere = new Set(['haproxy/nonlocal-bind', 'haproxy/mode-implicit']);
  for (const r of Object.values(HAPROXY_RULES)) {
    if (elsewhere.has(r.id)) continue;
    assert.ok(seen.has(r.id), `${r.id} never fires on the corpus`);
    if (r.fixable) assert.ok(seen.get(r.id), `${r.id} is fixable but no finding carries a fix`);
  }
});

test('mode: a frontend inheriting mode http gets a fix that adds mode tcp; an implicit mode is an info', () => {
  const http = seed.replace('    mode    tcp\n', '    mode    http\n').replace('frontend kubernetes-api\n    bind 10.3.60.100:6443\n    mode tcp\n', 'frontend kubernetes-api\n    bind 10.3.60.100:6443\n');
  const f = lint(http).find((x) => x.rule === 'haproxy/frontend-mode-tcp')!;
  assert.ok(f, describe(lint(http)));
  assert.equal(f.range.start.line, http.split('\n').indexOf('frontend kubernetes-api'));
  const fixed = applyEdits(http, f.fixes![0]!.edits);
  assert.match(fixed, /frontend kubernetes-api\n {4}mode tcp\n {4}bind/);
  assert.ok(!rulesOf(fixed).includes('haproxy/frontend-mode-tcp'));
  const implicit = seed.replace(/^ {4}mode +tcp\n/gm, '');
  assert.deepEqual(lint(implicit).map((x) => [x.rule, x.severity]), [
    ['haproxy/mode-implicit', 'info'],
    ['haproxy/mode-implicit', 'info'],
  ]);
});

test('backend servers: missing, extra and wrong-port nodes, each with a fix', () => {
  const missing = seed.replace(/ {4}server labs-k8s-m0[23].*\n/g, '');
  const f = lint(missing).find((x) => x.rule === 'haproxy/backend-servers')!;
  assert.match(f.message, /labs-k8s-m02 \(10\.3\.60\.52\), labs-k8s-m03 \(10\.3\.60\.53\)/);
  assert.deepEqual(lint(applyEdits(missing, f.fixes![0]!.edits)), []);
  const wrongPort = seed.replace('10.3.60.52:6443', '10.3.60.52:443');
  const w = lint(wrongPort).find((x) => x.rule === 'haproxy/backend-servers')!;
  assert.equal(wrongPort.split('\n')[w.range.start.line]!.slice(w.range.start.character, w.range.end.character), '10.3.60.52:443');
  assert.deepEqual(lint(applyEdits(wrongPort, w.fixes![0]!.edits)), []);
});

test('nonlocal bind: checked against the balancer sysctl file when the workspace has one', () => {
  const balancerFile = (text: string) => ({ path: 'etc/sysctl.d/99-haproxy-vip.conf', text });
  assert.deepEqual(lint(seed, [balancerFile('net.ipv4.ip_nonlocal_bind = 1\n')]), []);
  const missing = lint(seed, [balancerFile('# nothing yet\n')]);
  assert.deepEqual(missing.map((x) => x.rule), ['haproxy/nonlocal-bind']);
  assert.equal(seed.split('\n')[missing[0]!.range.start.line], '    bind 10.3.60.100:6443');
  const zero = lint(seed, [{ path: 'etc/sysctl.conf', text: 'net.ipv4.ip_nonlocal_bind=0\n' }]);
  assert.match(zero[0]!.message, /is 0/);
});

test('CRLF files get CRLF in inserted lines', () => {
  const crlf = seed.replace('    option httpchk GET /readyz\n    http-check expect status 200\n', '').replace(/ check-ssl verify none/g, '').replace(/\n/g, '\r\n');
  const f = lint(crlf).find((x) => x.rule === 'haproxy/health-check')!;
  assert.match(f.fixes![0]!.edits[0]!.newText, /^\r\n {4}option httpchk GET \/readyz\r\n {4}http-check expect status 200$/);
  assert.deepEqual(lint(applyEdits(crlf, f.fixes![0]!.edits)), []);
});

test('incremental: re-linting edited texts gives the same findings as linting from scratch', () => {
  const corpus = fixtures(HAPROXY_FIXTURES, '.cfg').filter((f) => !f.name.includes('binary'));
  const base = corpus.find((f) => f.name === 'bad-typo-keyword.cfg')!.text;
  lint(base);
  const edits = [
    (t: string) => '\n\n' + t, // shifts every section
    (t: string) => t.replace('balanse', 'balance'),
    (t: string) => t.replace('    server labs-k8s-m03', '    server labs-k8s-m03x'),
    (t: string) => t.replace('frontend kubernetes-api\n', 'frontend kubernetes-api\n    mode http\n'),
    (t: string) => t + 'backend extra\n    server x 10.3.60.300:80\n',
  ];
  let text = base;
  for (const e of edits) {
    text = e(text);
    const warm = lint(text);
    clearHaproxyCaches();
    const cold = lint(text);
    assert.deepEqual(warm, cold);
  }
  const shifted = lint('\n\n' + base).find((x) => x.rule === 'haproxy/unknown-keyword')!;
  const original = lint(base).find((x) => x.rule === 'haproxy/unknown-keyword')!;
  assert.equal(shifted.range.start.line, original.range.start.line + 2);
  assert.equal(shifted.fixes![0]!.edits[0]!.range.start.line, original.range.start.line + 2);
});

test('findings carry why and docs, and ranges point at the offending word', () => {
  const text = seed.replace('balance roundrobin', 'balance round-robin');
  const f = lint(text).find((x) => x.rule === 'haproxy/balance')!;
  assert.ok(f.why && f.docs);
  const line = text.split('\n')[f.range.start.line]!;
  assert.equal(line.slice(f.range.start.character, f.range.end.character), 'round-robin');
  assert.equal(applyEdits(text, f.fixes![0]!.edits), seed);
});

test("keywords named like an object's built-in properties are unknown keywords, not removed ones", () => {
  // the removed-keyword table is looked up by the keyword a file gives; 'toString' is no entry of it
  for (const kw of ['toString', 'constructor', '__proto__']) {
    const fs = lint(seed.replace('    balance roundrobin', `    ${kw} x`)).filter((f) => f.range.start.line === seed.split('\n').findIndex((l) => l.includes('balance roundrobin')));
    assert.deepEqual(fs.map((f) => f.rule), ['haproxy/unknown-keyword'], `${kw}: ${fs.map((f) => f.message).join('; ')}`);
    const global = lint(`global\n    ${kw} x\n` + seed.replace(/^global\n/m, '')).filter((f) => f.range.start.line === 1);
    assert.deepEqual(global.map((f) => f.rule), ['haproxy/unknown-keyword'], `${kw} in global: ${global.map((f) => f.message).join('; ')}`);
  }
});

test('cached findings are handed out as copies', () => {
  const text = seed.replace('balance roundrobin', 'balanse roundrobin');
  const a = lint(text)[0]!;
  a.file = 'mutated';
  a.range.start.line = 999;
  const b = lint(text)[0]!;
  assert.equal(b.file, undefined);
  assert.notEqual(b.range.start.line, 999);
});

test('a haproxy.cfg for hosts that are not the balancers (a node-local proxy) is not compared with the inventory', () => {
  const local = seed.replace('10.3.60.100:6443', '127.0.0.1:8443');
  const rules = (path: string) => haproxyLinter.lint({ path, text: local }, { inventory: inv }).map((f) => f.rule);
  assert.ok(rules('haproxy.cfg').length > 0, 'on the balancer the bind must be the VIP');
  assert.deepEqual(rules('hosts/labs-k8s-m01/haproxy.cfg'), []);
});
