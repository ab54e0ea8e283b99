/**
 * The contributed TextMate grammars, run through vscode-textmate with the Oniguruma engine (what VS Code uses):
 * the example haproxy.cfg and keepalived.conf get sections, keywords, comments and addresses as their own scopes.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { join } from 'node:path';
import * as oniguruma from 'vscode-oniguruma';
import * as textmate from 'vscode-textmate';

const ROOT = join(__dirname, '../../..');
const pkg = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8'));

const onigReady = (async () => {
  const wasm = readFileSync(join(createRequire(__filename).resolve('vscode-oniguruma'), '../onig.wasm'));
  await oniguruma.loadWASM(wasm.buffer.slice(wasm.byteOffset, wasm.byteOffset + wasm.byteLength));
})();

const registry = new textmate.Registry({
  onigLib: onigReady.then(() => ({ createOnigScanner: (s: string[]) => new oniguruma.OnigScanner(s), createOnigString: (s: string) => new oniguruma.OnigString(s) })),
  loadGrammar: async (scopeName) => {
    const g = (pkg.contributes.grammars as { scopeName: string; path: string }[]).find((x) => x.scopeName === scopeName);
    if (!g) return null;
    return textmate.parseRawGrammar(readFileSync(join(ROOT, g.path), 'utf8'), g.path);
  },
});

/** Every token of the text as [text, innermost scope]. */
async function tokens(scope: string, text: string): Promise<[string, string][]> {
  const grammar = await registry.loadGrammar(scope);
  assert.ok(grammar, scope);
  const out: [string, string][] = [];
  let state = textmate.INITIAL;
  for (const line of text.split('\n')) {
    const r = grammar.tokenizeLine(line, state);
    for (const t of r.tokens) out.push([line.slice(t.startIndex, t.endIndex), t.scopes[t.scopes.length - 1]!]);
    state = r.ruleStack;
  }
  return out;
}

const scopeOf = (toks: [string, string][], text: string): string | undefined => toks.find(([t]) => t.trim() === text)?.[1];

test('languages haproxy and keepalived are contributed with file patterns and a grammar each', () => {
  const langs = pkg.contributes.languages as { id: string; filenames: string[]; filenamePatterns: string[] }[];
  assert.deepEqual(langs.map((l) => l.id), ['haproxy', 'keepalived']);
  assert.ok(langs[0]!.filenames.includes('haproxy.cfg'));
  assert.ok(langs[0]!.filenamePatterns.includes('**/*haproxy*/**/*.cfg'));
  assert.ok(langs[1]!.filenames.includes('keepalived.conf'));
  assert.ok(langs[1]!.filenamePatterns.includes('**/*keepalived*/**/*.conf'));
  const grammars = pkg.contributes.grammars as { language: string }[];
  assert.deepEqual(grammars.map((g) => g.language), ['haproxy', 'keepalived']);
});

test('haproxy.cfg: sections, keywords, comments, addresses, times and server options have their scopes', async () => {
  const toks = await tokens('source.haproxy', readFileSync(join(ROOT, 'examples/labs-k8s/haproxy.cfg'), 'utf8'));
  assert.equal(scopeOf(toks, 'frontend'), 'keyword.control.section.haproxy');
  assert.equal(scopeOf(toks, 'kubernetes-api'), 'entity.name.section.haproxy');
  assert.equal(scopeOf(toks, 'global'), 'keyword.control.section.haproxy');
  assert.equal(scopeOf(toks, 'bind'), 'keyword.other.directive.haproxy');
  assert.equal(scopeOf(toks, 'balance'), 'keyword.other.directive.haproxy');
  assert.equal(scopeOf(toks, '10.3.60.100'), 'constant.numeric.ip-address.haproxy');
  assert.equal(scopeOf(toks, '6443'), 'constant.numeric.port.haproxy');
  assert.equal(scopeOf(toks, '5s'), 'constant.numeric.time.haproxy');
  assert.equal(scopeOf(toks, 'check'), 'variable.parameter.server-option.haproxy');
  assert.ok(toks.some(([t, s]) => t.includes('watch, logs -f') && s === 'comment.line.number-sign.haproxy'));
});

test('haproxy: a # inside a word is not a comment', async () => {
  const toks = await tokens('source.haproxy', 'backend b\n    server a#b 10.0.0.1:6443 check # real comment');
  assert.ok(!toks.some(([t, s]) => t.includes('#b') && s.startsWith('comment')), JSON.stringify(toks));
  assert.equal(scopeOf(toks, '10.0.0.1'), 'constant.numeric.ip-address.haproxy');
  assert.ok(toks.some(([t, s]) => t.includes('real comment') && s.startsWith('comment')));
});

test('keepalived.conf: blocks with their names, keywords, comments, the VIP with its prefix, MASTER', async () => {
  const toks = await tokens('source.keepalived', readFileSync(join(ROOT, 'examples/labs-k8s/keepalived.conf'), 'utf8') + '\n! bang comment\n');
  assert.equal(scopeOf(toks, 'vrrp_instance'), 'keyword.control.section.keepalived');
  assert.equal(scopeOf(toks, 'VI_K8S_API'), 'entity.name.section.keepalived');
  assert.equal(scopeOf(toks, 'global_defs'), 'keyword.control.section.keepalived');
  assert.equal(scopeOf(toks, 'priority'), 'keyword.other.directive.keepalived');
  assert.equal(scopeOf(toks, 'MASTER'), 'constant.language.keepalived');
  assert.equal(scopeOf(toks, '10.3.60.100'), 'constant.numeric.ip-address.keepalived');
  assert.ok(toks.some(([t, s]) => t.includes('holds the VIP') && s === 'comment.line.keepalived'));
  assert.ok(toks.some(([t, s]) => t.includes('bang comment') && s === 'comment.line.keepalived'));
  assert.ok(toks.some(([t, s]) => t.includes('/usr/bin/killall') && s === 'string.quoted.double.keepalived'));
});
