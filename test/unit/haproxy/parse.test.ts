/** The compact parse behind the haproxy rules: words read from line records, the section cache and its fingerprint. */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { clearSectionCache, parseHaproxy, sectionCacheSize, tokenizeLine } from '../../../src/core/haproxy/parse';
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

test('an editing session of a large file keeps a bounded amount of its texts alive, and parses right after the cache starts over', () => {
  clearSectionCache();
  // about 216 KB: every edit misses one section, and its store reads that section from the whole edited text
  const sections: string[] = [];
  for (let i = 0; i < 3000; i++) sections.push(`backend be${i}\n  balance roundrobin\n  server s${i} 10.1.${i >> 8}.${i & 255}:8080 check\n`);
  const base = sections.join('');
  let peak = 0;
  let resets = 0;
  let before = 0;
  for (let edit = 0; edit < 150; edit++) {
    const at = (edit * 37) % sections.length;
    const text = base.replace(`server s${at} `, `server s${at} weight ${edit} `).replace(`backend be${at}\n`, `backend be${at}\n  # edit ${edit}\n`);
    const cfg = parseHaproxy(text);
    assert.equal(cfg.sections[at]!.line(3).word(2), 'weight', `edit ${edit}: the edited section's own server line`);
    assert.equal(cfg.sections[(at + 1) % sections.length]!.line(2).word(1), `s${(at + 1) % sections.length}`);
    const size = sectionCacheSize();
    if (size.chars < before) resets++;
    before = size.chars;
    peak = Math.max(peak, size.chars);
  }
  // 150 edits of a 216 KB text would keep 32 M characters alive; the cache starts over before 16 M
  assert.ok(peak <= 16_000_000, `peak ${peak} characters kept alive`);
  assert.ok(resets >= 1, 'the cache started over at least once');
  assert.ok(sectionCacheSize().stores <= Math.ceil(16_000_000 / base.length) + 1);
});

test('a parse with an empty section cache (one pass) cuts the same sections and lines as one that looks sections up first', () => {
  const texts = [
    '',
    '\n',
    'global\n  maxconn 100\n',
    '# preamble\n\nglobal\nfrontend fe\n  bind :80\nbackend be\n  server a 10.0.0.1:80',
    '  \tfrontend fe # c\n  bind :80\r\nbackend\r\n  server a 10.0.0.1:80\r\n',
    // not headers: a longer word, a quoted keyword, a keyword in a comment, an escape after it
    'frontends x\n"frontend" y\n# frontend z\nfrontend\\ w\nbackend#c\n  server a 1.2.3.4:80\n',
    // a CR inside the line right after the keyword opens a section (a line ends at LF), as does one at the end
    'listen\rjunk\n  mode tcp\nlisten\nlog-forward lf\nhttp-errors e\n',
    'backend be\n  server a 10.0.0.1:80\nbackend be\n  server a 10.0.0.1:80\n',
  ];
  const shape = (text: string) => {
    const cfg = parseHaproxy(text);
    return {
      lineCount: cfg.lineCount,
      sections: cfg.sections.map((s) => ({
        type: s.type,
        name: s.name,
        startLine: s.startLine,
        text: s.text,
        lines: Array.from({ length: s.lineCount }, (_, i) => {
          const l = s.line(i);
          return { words: l.words(), ids: l.words().map((_w, k) => l.wordId(k)), cols: l.tokens().map((t) => [t.start, t.end]), comment: l.comment, error: l.error?.message };
        }),
      })),
    };
  };
  for (const text of texts) {
    clearSectionCache();
    const cold = shape(text);
    // a cache that holds another text's sections: the text's sections are looked up (and missed) one by one
    clearSectionCache();
    parseHaproxy('frontend other\n  bind :81\n');
    const looked = shape(text);
    assert.deepEqual(cold, looked, JSON.stringify(text));
  }
  clearSectionCache();
  const cold = parseHaproxy(texts[3]!);
  assert.ok(parseHaproxy(`${texts[3]!}\n`).sections[1]!.sameParse(cold.sections[1]!), 'the one-pass parse fills the cache for the next lint');
});
