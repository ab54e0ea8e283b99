/** The compact parse behind the haproxy rules: words read from line records, the section cache and its fingerprint. */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { clearSectionCache, parseHaproxy, tokenizeLine } from '../../../src/core/haproxy/parse';
import { fingerprint } from '../../../src/core/haproxy/sectionCache';
import { COMMON_WORDS } from '../../../src/core/haproxy/words';

test('words: interned and plain words, quoted words equal to a keyword, ids and positions', () => {
  const l = tokenizeLine('  "server" app-1 10.0.0.1:80 check # c');
  assert.deepEqual(l.words(), ['server', 'app-1', '10.0.0.1:80', 'check']);
  assert.ok(l.is(0, 'server') && l.is(1, 'app-1') && !l.is(1, 'app-2'));
  assert.equal(l.indexOf('check'), 3);
  assert.equal(l.indexOf('app-1', 2), -1);
  assert.ok(l.wordId(0) >= 0, 'a quoted keyword has the id of the keyword');
  assert.equal(l.wordId(1), -1);
  assert.deepEqual([l.start(0), l.end(0), l.start(3), l.end(3)], [2, 10, 29, 34]);
  assert.equal(l.comment, 35);
  assert.equal(l.word(4), undefined);
});

test('word ids: every interned word has its id by the trie, in a line and alone; prefixes, longer words and others have none', () => {
  const interned = Array.from({ length: COMMON_WORDS.size }, (_, id) => COMMON_WORDS.word(id));
  assert.ok(interned.includes('server') && interned.includes('timeout') && interned.includes('10s'));
  for (const [id, w] of interned.entries()) {
    assert.equal(COMMON_WORDS.idAt(`x ${w} y`, 2, w.length), id, w);
    const l = tokenizeLine(`    ${w} ${w}x`);
    assert.equal(l.wordId(0), id, `${w} as a line's first word`);
    assert.equal(l.word(0), w);
    assert.equal(l.wordId(1), COMMON_WORDS.id(`${w}x`), `${w}x`);
  }
  for (const w of ['serve', 'servers', 'Server', 'sérver', 'server\u00e9', '', 'tcp-chec', '10.0.0.1']) {
    assert.equal(COMMON_WORDS.idAt(w, 0, w.length), -1, w);
    if (w) assert.equal(tokenizeLine(w).wordId(0), -1, w);
  }
});

test('section lookups: first and second word, body lines only, after a line, last', () => {
  const cfg = parseHaproxy('backend be\n  timeout server 1m\n  server a 1.2.3.4:80\n  timeout server 2m\n  server b 1.2.3.5:80\n');
  const be = cfg.sections[0]!;
  assert.deepEqual(be.find('server').map((l) => l.word(1)), ['a', 'b']);
  assert.equal(be.last('timeout', 'server')?.word(2), '2m');
  assert.equal(be.findAfter(2, 'server')?.rel, 4);
  assert.ok(!be.has('backend'), 'the header is not a body line');
  const cursor = be.cursor(-1);
  const seen: string[] = [];
  while (be.advance(cursor, 'timeout')) seen.push(cursor.word(2)!);
  assert.deepEqual(seen, ['1m', '2m']);
});

test('section cache: sections with one fingerprint are told apart, and a re-parse reuses unchanged ones', () => {
  // same length, same header and same end: one fingerprint, two texts
  const a = 'backend be\n  server x 10.0.0.1:80\n';
  const b = 'backend be\n  server y 10.0.0.1:80\n';
  assert.equal(fingerprint(a, 0, a.length), fingerprint(b, 0, b.length));
  clearSectionCache();
  const first = parseHaproxy(a + 'frontend fe\n  bind :80\n');
  const second = parseHaproxy(b + 'frontend fe\n  bind :80\n');
  assert.equal(first.sections[0]!.line(1).word(1), 'x');
  assert.equal(second.sections[0]!.line(1).word(1), 'y');
  assert.ok(second.sections[1]!.sameParse(first.sections[1]!), 'the unchanged frontend comes from the cache');
  assert.ok(!second.sections[0]!.sameParse(first.sections[0]!), 'the backend with the same fingerprint is parsed anew');
  assert.deepEqual(
    second.sections.map((s) => [s.type, s.name, s.startLine, s.lineCount]),
    [
      ['backend', 'be', 0, 2],
      ['frontend', 'fe', 2, 2],
    ],
  );
  assert.equal(second.lineCount, 5);
});

test('the last whole parse is reused only for the same text: an equal copy gets it, an edit a parse of its own', () => {
  clearSectionCache();
  const text = 'frontend fe\n  bind :80\n  default_backend be\nbackend be\n  server a 10.0.0.1:80\n';
  const first = parseHaproxy(text);
  // an equal text in another string object (the cross-file check gets the editor's copy of the document)
  const copy = parseHaproxy(text.split('').join(''));
  assert.equal(copy, first, 'the linter and the cross-file check share one parse of one text');
  const edited = parseHaproxy(text.replace('10.0.0.1', '10.0.0.2'));
  assert.notEqual(edited, first);
  assert.equal(edited.sections[1]!.line(1).word(2), '10.0.0.2:80');
  assert.equal(parseHaproxy(text).sections[1]!.line(1).word(2), '10.0.0.1:80', "back to the first text: its servers, not the edit's");
});
