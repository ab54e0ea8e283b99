/** Bad input never crashes or hangs the haproxy and keepalived linters. */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { closeSync, openSync, readFileSync, readSync } from 'node:fs';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import type { Finding } from '../../../src/core/findings';
import { lintHaproxy } from '../../../src/core/haproxy/lint';
import { lintKeepalived } from '../../../src/core/keepalived/lint';
import { ROOT, seedInventory } from './helpers';

const inv = seedInventory();
const haproxySeed = readFileSync(join(ROOT, 'examples/labs-k8s/haproxy.cfg'), 'utf8');
const keepalivedSeed = readFileSync(join(ROOT, 'examples/labs-k8s/keepalived.conf'), 'utf8');

const linters: [string, string, (t: string) => Finding[]][] = [
  ['haproxy', haproxySeed, (t) => lintHaproxy(t, { inventory: inv })],
  ['keepalived', keepalivedSeed, (t) => lintKeepalived(t, { inventory: inv }, 'keepalived.conf')],
];

function timed<T>(fn: () => T): [T, number] {
  const t0 = performance.now();
  const r = fn();
  return [r, performance.now() - t0];
}

/** A small deterministic PRNG so failures reproduce. */
function rng(seed: number): () => number {
  let s = seed >>> 0;
  return () => {
    s = (s * 1664525 + 1013904223) >>> 0;
    return s / 2 ** 32;
  };
}

for (const [name, seed, lint] of linters) {
  test(`${name}: a binary file gives one finding of the shared text guard`, () => {
    const bytes = Buffer.alloc(4096);
    const r = rng(1);
    for (let i = 0; i < bytes.length; i++) bytes[i] = Math.floor(r() * 256);
    const fs = lint(bytes.toString('utf8'));
    assert.deepEqual(fs.map((f) => f.rule), ['lint/not-text']);
    const fd = openSync(process.execPath, 'r');
    const head = Buffer.alloc(65536);
    readSync(fd, head, 0, head.length, 0);
    closeSync(fd);
    assert.deepEqual(lint(head.toString('latin1')).map((f) => f.rule), ['lint/not-text']);
  });

  test(`${name}: invalid UTF-8 decodes to replacement characters and lints without crashing`, () => {
    const text = Buffer.concat([Buffer.from(seed.slice(0, 200)), Buffer.from([0xff, 0xfe, 0xc3, 0x28, 0xa0, 0xa1]), Buffer.from(seed.slice(200))]).toString('utf8');
    assert.ok(text.includes('\ufffd'));
    assert.ok(Array.isArray(lint(text)));
  });

  test(`${name}: CRLF and tabs lint like LF and spaces`, () => {
    const rules = (t: string) => lint(t).map((f) => `${f.rule}@${f.range.start.line}`);
    assert.deepEqual(rules(seed.replace(/\n/g, '\r\n')), rules(seed));
    assert.deepEqual(rules(seed.replace(/^ {4}/gm, '\t').replace(/ {8}/g, '\t\t')), rules(seed));
  });

  test(`${name}: a 5 MB file lints in bounded time`, () => {
    let big = seed;
    while (big.length < 5 * 1024 * 1024) big += `\n# padding ${big.length}\n` + seed.replace(/^(frontend|backend|vrrp_instance|vrrp_script) (\S+)/gm, `$1 $2-${big.length}`);
    const [fs, ms] = timed(() => lint(big));
    assert.ok(Array.isArray(fs));
    assert.ok(ms < 20_000, `${ms} ms`);
  });

  test(`${name}: one 1 MB line and 100,000 empty lines`, () => {
    const [a, ms1] = timed(() => lint(`${seed}\n${'x'.repeat(1024 * 1024)}\n`));
    assert.ok(a.length > 0 && ms1 < 10_000);
    const [, ms2] = timed(() => lint(seed + '\n'.repeat(100_000)));
    assert.ok(ms2 < 10_000);
  });

  test(`${name}: random garbage and random mutations of the seed never throw`, () => {
    const r = rng(42);
    const alphabet = ' \t\n\r{}"\'#!\\:/.,-_abcdefghijklmnopqrstuvwxyz0123456789\u00e9\u2603';
    for (let i = 0; i < 150; i++) {
      let t = '';
      const n = Math.floor(r() * 2000);
      for (let j = 0; j < n; j++) t += alphabet[Math.floor(r() * alphabet.length)];
      assert.doesNotThrow(() => lint(t), t);
    }
    for (let i = 0; i < 300; i++) {
      const chars = [...seed];
      for (let k = 0; k < 1 + Math.floor(r() * 8); k++) {
        const at = Math.floor(r() * chars.length);
        const op = r();
        if (op < 0.4) chars.splice(at, 1 + Math.floor(r() * 20));
        else if (op < 0.8) chars.splice(at, 0, alphabet[Math.floor(r() * alphabet.length)]!);
        else chars[at] = alphabet[Math.floor(r() * alphabet.length)]!;
      }
      const t = chars.join('');
      const [fs, ms] = timed(() => lint(t));
      for (const f of fs) {
        assert.ok(f.range.start.line >= 0 && f.range.end.line >= f.range.start.line, JSON.stringify(f));
        assert.ok(f.message.length > 0);
      }
      assert.ok(ms < 2000, `${ms} ms on mutation ${i}`);
    }
  });
}

test('keepalived: 10,000 nested blocks and 10,000 unclosed braces do not overflow the stack', () => {
  const deep = 'vrrp_instance X {\n' + 'a {\n'.repeat(10_000) + '}\n'.repeat(10_001);
  const [fs, ms] = timed(() => lintKeepalived(deep, { inventory: inv }));
  assert.ok(fs.some((f) => f.rule === 'keepalived/syntax' && /nested deeper/.test(f.message)));
  assert.ok(ms < 5000);
  const unclosed = lintKeepalived('{\n'.repeat(10_000), { inventory: inv });
  assert.ok(unclosed.filter((f) => f.rule === 'keepalived/braces').length >= 1);
  assert.ok(lintKeepalived('}\n'.repeat(10_000)).every((f) => f.rule === 'keepalived/braces'));
});

test('keepalived: include loops stop', () => {
  const siblings = [
    { path: 'conf.d/a.conf', text: 'include b.conf\n' },
    { path: 'conf.d/b.conf', text: 'include a.conf\n' },
  ];
  const fs = lintKeepalived('include /etc/keepalived/conf.d/a.conf\n', { siblings }, 'keepalived.conf');
  assert.ok(fs.some((f) => /include nested deeper/.test(f.message)));
});

test('haproxy: 10,000 sections and 64 KB of a single quoted word', () => {
  const many = Array.from({ length: 10_000 }, (_, i) => `backend b${i}\n`).join('');
  const [fs, ms] = timed(() => lintHaproxy(many, { inventory: inv }));
  assert.ok(fs.length > 0 && ms < 10_000);
  assert.ok(Array.isArray(lintHaproxy(`global\n  description "${'"'.repeat(65536)}"\n`)));
});
