/**
 * The core catalogue: `t()` fills `{0}`-style placeholders as `vscode.l10n.t` does, English needs no bundle, and a
 * bundle is checked entry by entry — an entry that is not text, is empty or whose placeholders are not its English
 * key's is dropped (that message stays English) and named; a bundle that is not an object leaves English whole.
 * The command line's language comes from LC_ALL / LC_MESSAGES / LANG.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { bundleFileNames, catalogueLanguage, catalogueSnapshot, format, inEnglish, languageFromEnv, msg, onCatalogueChange, parseBundleText, t, useMessages } from '../../../src/core/l10n';
import { toRuleInfo } from '../../../src/core/lint/ruleTable';

const english = (): void => void useMessages('en', undefined);

test('English needs no bundle: the key is the message, its placeholders filled like vscode.l10n.t', () => {
  english();
  assert.equal(catalogueLanguage(), 'en');
  assert.equal(t('The VIP here is {0}, but {1} says {2}.', '10.3.60.100', 'the inventory', '10.3.60.101'), 'The VIP here is 10.3.60.100, but the inventory says 10.3.60.101.');
  // repeated and reordered placeholders, numbers and booleans as String() writes them
  assert.equal(t('{1} before {0}, {0} again', 'a', 2), '2 before a, a again');
  assert.equal(t('{0} and {1}', true, 0), 'true and 0');
  // a missing, undefined or null argument leaves its placeholder as written (vscode's format2 does the same)
  assert.equal(t('{0} and {1}', 'only'), 'only and {1}');
  assert.equal(t('{0} and {1}', undefined, null), '{0} and {1}');
  // without arguments the text is untouched, braces and all
  assert.equal(t('add vrrp: { state, priority } {0}'), 'add vrrp: { state, priority } {0}');
  // braces of the text itself are not placeholders of a positional call, `{length}` included
  assert.equal(t("'{0}' must open a block: '{0} { ... }' of {length}", 'vrrp_instance'), "'vrrp_instance' must open a block: 'vrrp_instance { ... }' of {length}");
  // one record argument fills named placeholders, own properties only
  assert.equal(format('{host} on {port} {constructor}', { host: 'lb1', port: 8443 }), 'lb1 on 8443 {constructor}');
  // a value that looks like a placeholder is not filled again
  assert.equal(t('{0} then {1}', '{1}', 'x'), '{1} then x');
});

test('a Russian bundle translates what it has; what it lacks stays English', () => {
  try {
    const problems = useMessages('ru', { 'The VIP here is {0}, but {1} says {2}.': 'VIP здесь — {0}, но в {1} указано {2}.' });
    assert.deepEqual(problems, []);
    assert.equal(catalogueLanguage(), 'ru');
    assert.equal(t('The VIP here is {0}, but {1} says {2}.', '10.3.60.100', 'inventory.yaml', '10.3.60.101'), 'VIP здесь — 10.3.60.100, но в inventory.yaml указано 10.3.60.101.');
    assert.equal(t('Not in the bundle: {0}.', 'x'), 'Not in the bundle: x.');
    // the translation may reorder the placeholders
    useMessages('ru', { '{0} is {1}': '{1} — это {0}' });
    assert.equal(t('{0} is {1}', 'a', 'b'), 'b — это a');
  } finally {
    english();
  }
});

test('a bad entry is dropped and named, its message stays English; the good ones are used', () => {
  try {
    const problems = useMessages('ru', {
      'Remove {0}': 'Удалить {0}',
      'Set {0} = {1}': 'Установить {0}', // a placeholder lost
      'Use {0}': 'Использовать {0} {1}', // a placeholder invented
      'Add {0}': 42,
      'Close the quote': '   ',
      'Remove the line': null,
    });
    assert.deepEqual(problems.map((p) => p.key).sort(), ['Add {0}', 'Close the quote', 'Remove the line', 'Set {0} = {1}', 'Use {0}']);
    assert.match(problems.find((p) => p.key === 'Set {0} = {1}')!.problem, /placeholders \{0\}, the English text \{0,1\}/);
    assert.match(problems.find((p) => p.key === 'Add {0}')!.problem, /number, not text/);
    assert.match(problems.find((p) => p.key === 'Close the quote')!.problem, /empty/);
    assert.equal(t('Remove {0}', 'x'), 'Удалить x');
    assert.equal(t('Set {0} = {1}', 'SystemdCgroup', 'true'), 'Set SystemdCgroup = true');
    assert.equal(t('Use {0}', 'eth0'), 'Use eth0');
    assert.equal(t('Add {0}', 'check'), 'Add check');
  } finally {
    english();
  }
});

test('a bundle that is not an object of texts leaves English and says why', () => {
  for (const bundle of [['Remove {0}', 'Удалить {0}'], 'Удалить', 7]) {
    const problems = useMessages('ru', bundle);
    assert.equal(problems.length, 1);
    assert.equal(problems[0]!.key, undefined);
    assert.equal(t('Remove {0}', 'x'), 'Remove x');
  }
  english();
  assert.match(parseBundleText('{"Remove {0}": "Удалить {0}"').problems[0]!.problem, /not valid JSON/);
  assert.equal(parseBundleText('\uFEFF{"Remove {0}": "Удалить {0}"}').messages.get('Remove {0}'), 'Удалить {0}', 'a byte-order mark is not JSON but is read past');
  assert.match(parseBundleText(' '.repeat(9 * 1024 * 1024)).problems[0]!.problem, /larger than/);
});

test('English clears the catalogue even with a bundle; inEnglish restores the language after its run', () => {
  useMessages('ru', { 'Remove {0}': 'Удалить {0}' });
  try {
    assert.equal(inEnglish(() => t('Remove {0}', 'x')), 'Remove x');
    assert.equal(t('Remove {0}', 'x'), 'Удалить x');
    assert.throws(() => inEnglish(() => { throw new Error('boom'); }));
    assert.equal(t('Remove {0}', 'x'), 'Удалить x', 'restored after a throw too');
    assert.deepEqual(catalogueSnapshot(), { language: 'ru', messages: { 'Remove {0}': 'Удалить {0}' } });
  } finally {
    useMessages('en', { 'Remove {0}': 'Удалить {0}' });
  }
  assert.equal(t('Remove {0}', 'x'), 'Remove x');
  assert.equal(catalogueSnapshot(), undefined, 'nothing to hand a worker in English');
});

test('a rule title and why are read in the language active when read, and caches hear of a change', () => {
  let changes = 0;
  onCatalogueChange(() => changes++);
  const info = toRuleInfo({ id: 'sysctl/duplicate', severity: 'warning', title: msg('A key is set once per file.'), why: msg('The last assignment wins, so an earlier line is dead and misleading.') });
  assert.equal(info.title, 'A key is set once per file.');
  useMessages('ru', { 'A key is set once per file.': 'Ключ задаётся в файле один раз.' });
  try {
    assert.equal(info.title, 'Ключ задаётся в файле один раз.');
    assert.equal(info.why, 'The last assignment wins, so an earlier line is dead and misleading.');
    assert.equal(JSON.parse(JSON.stringify(info)).title, 'Ключ задаётся в файле один раз.', 'serialised (to the webview, SARIF) in the language too');
    assert.equal(changes, 1);
  } finally {
    english();
  }
  assert.equal(changes, 2);
  english();
  assert.equal(changes, 2, 'no change, no call');
});

test('the command line language: LC_ALL, then LC_MESSAGES, then LANG; English when unset, empty, C or POSIX', () => {
  assert.equal(languageFromEnv({}), 'en');
  assert.equal(languageFromEnv({ LANG: 'C' }), 'en');
  assert.equal(languageFromEnv({ LANG: 'C.UTF-8' }), 'en');
  assert.equal(languageFromEnv({ LANG: 'POSIX' }), 'en');
  assert.equal(languageFromEnv({ LANG: 'ru_RU.UTF-8' }), 'ru-ru');
  assert.equal(languageFromEnv({ LANG: 'ru_RU.UTF-8', LC_MESSAGES: 'en_US.UTF-8' }), 'en-us');
  assert.equal(languageFromEnv({ LANG: 'en_US.UTF-8', LC_MESSAGES: 'ru_RU.UTF-8' }), 'ru-ru');
  assert.equal(languageFromEnv({ LANG: 'ru_RU.UTF-8', LC_ALL: 'C' }), 'en', 'LC_ALL overrides both');
  assert.equal(languageFromEnv({ LANG: 'ru_RU.UTF-8', LC_ALL: '' }), 'ru-ru', 'an empty variable is unset');
  assert.equal(languageFromEnv({ LANG: 'ru' }), 'ru');
  assert.equal(languageFromEnv({ LANG: 'sr_RS@latin' }), 'sr-rs');
  assert.equal(languageFromEnv({ LANG: '../../etc/passwd' }), 'en', 'not a locale name: English, never a path');
  assert.deepEqual(bundleFileNames('ru-ru'), ['bundle.l10n.ru-ru.json', 'bundle.l10n.ru.json']);
  assert.deepEqual(bundleFileNames('en-us'), []);
});
