import { test } from 'node:test';
import assert from 'node:assert/strict';
import fc from 'fast-check';
import { codePointOrderHolds, nameOrder } from '../../../src/core/text/nameOrder';

const sign = (n: number): number => Math.sign(n);
/** Names of a config tree: a shared head (any printable ASCII, as paths have) and differing plain tails. */
const head = fc.string({ unit: fc.constantFrom(...'aZ_ ~/.-09B:@+'.split('')), maxLength: 6 });
const tail = fc.string({ unit: fc.constantFrom(...'abcxyz0189./-'.split('')), maxLength: 6 });

for (const language of ['en', 'ru', 'uk', 'de', 'und']) {
  test(`the direct order of plain names is localeCompare's in ${language}`, () => {
    const direct = nameOrder(true);
    fc.assert(
      fc.property(head, tail, tail, (h, a, b) => sign(direct(h + a, h + b)) === sign((h + a).localeCompare(h + b, language))),
      { numRuns: 3000 },
    );
  });
}

test('names outside the plain characters are compared by localeCompare', () => {
  const direct = nameOrder(true);
  // code points put 'B' before 'a' and '_' after '-'; the collation does not
  assert.equal(sign(direct('B.conf', 'a.conf')), sign('B.conf'.localeCompare('a.conf')));
  assert.equal(sign(direct('x_y', 'x-y')), sign('x_y'.localeCompare('x-y')));
  assert.equal(sign(direct('é', 'f')), -1);
});

test('the shortcut is taken only for languages that order ASCII letters as code points do', () => {
  assert.equal(codePointOrderHolds({}), true);
  assert.equal(codePointOrderHolds({ LANG: 'C.UTF-8' }), true);
  assert.equal(codePointOrderHolds({ LANG: 'ru_RU.UTF-8' }), true);
  assert.equal(codePointOrderHolds({ LANG: 'en_US.UTF-8', LC_ALL: 'cs_CZ.UTF-8' }), false);
  assert.equal(codePointOrderHolds({ LANG: 'da_DK.UTF-8' }), false);
  assert.equal(codePointOrderHolds({ LANG: 'C', LC_COLLATE: 'sk_SK.UTF-8' }), false);
  // why: Czech puts "ch" after "h", which code points do not
  assert.equal(sign('ch'.localeCompare('h', 'cs')), 1);
  assert.equal(sign(nameOrder(false)('ch', 'h')), sign('ch'.localeCompare('h')));
});
