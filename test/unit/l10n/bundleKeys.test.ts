/**
 * The shipped Russian bundle against the code: every English text the code passes to `t()`/`msg()` has a Russian
 * entry whose placeholders are its key's, the bundle holds no entry the code no longer uses, and linting the
 * examples and test fixtures in Russian leaves no English message, fix or rule text behind.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join, relative } from 'node:path';
import { checkedMessages, placeholdersOf, useMessages } from '../../../src/core/l10n';
import { allRules, lintText } from '../../../src/core/lint/registry';
import { parseInventory } from '../../../src/core/inventory/parse';
import type { SourceFile } from '../../../src/core/lint/types';
import { ROOT } from '../haproxy/helpers';
import { catalogueKeys } from './catalogueKeys';

const bundle = JSON.parse(readFileSync(join(ROOT, 'l10n/bundle.l10n.ru.json'), 'utf8')) as Record<string, string>;
/** The calls that pass an already marked message on (a rule's title and why, the text guard's file kinds, a drill event's detail). */
const PASSING_ON = ['src/core/lint/ruleTable.ts', 'src/core/lint/textGuard.ts', 'src/core/drill/observer.ts'];

test('every key of src is in the Russian bundle, with its placeholders; the bundle has no stale entry', () => {
  const { uses, dynamic } = catalogueKeys(ROOT);
  assert.ok(uses.length > 900, `the catalogue is used (${uses.length} calls)`);
  assert.deepEqual(dynamic.filter((at) => !PASSING_ON.some((f) => at.startsWith(`${f}:`))), [], 't()/msg() take a literal English text, which this check and the bundle can see');
  const missing = uses.filter((u) => !(u.key in bundle)).map((u) => `${u.at}: ${JSON.stringify(u.key)}`);
  assert.deepEqual(missing, [], 'keys missing from l10n/bundle.l10n.ru.json');
  const { problems } = checkedMessages(bundle);
  assert.deepEqual(problems, [], 'every entry is text with its key\'s placeholders');
  for (const [key, value] of Object.entries(bundle)) assert.equal(placeholdersOf(value), placeholdersOf(key), key);
  const used = new Set(uses.map((u) => u.key));
  assert.deepEqual(Object.keys(bundle).filter((k) => !used.has(k)), [], 'entries no code uses any more');
});

function files(dir: string): string[] {
  return readdirSync(dir).flatMap((n) => {
    const p = join(dir, n);
    return statSync(p).isDirectory() ? files(p) : [p];
  });
}

const CYRILLIC = /[А-Яа-яЁё]/;

test('the linters speak Russian with the Russian bundle: every finding, fix and rule of the examples and fixtures', () => {
  const sources: SourceFile[] = [...files(join(ROOT, 'examples')), ...files(join(ROOT, 'test/fixtures'))]
    .filter((p) => !p.includes('/ansible/'))
    .map((p) => ({ path: relative(ROOT, p), text: readFileSync(p, 'utf8') }));
  const inventory = parseInventory(readFileSync(join(ROOT, 'examples/labs-k8s/inventory.yaml'), 'utf8')).inventory;
  assert.ok(inventory);
  assert.deepEqual(useMessages('ru', bundle), []);
  try {
    const english: string[] = [];
    let findings = 0;
    for (const file of sources) {
      for (const context of [{}, { inventory, inventoryPath: 'inventory.yaml', siblings: sources.filter((s) => s.path.startsWith('examples/')) }]) {
        for (const f of lintText(file, context)) {
          findings++;
          // a kubeadm file's YAML syntax error is the yaml library's own English sentence (the inventory maps its own)
          const message = f.rule === 'kubeadm/yaml-syntax' ? '' : f.message;
          for (const text of [message, f.why ?? '', ...(f.fixes ?? []).map((x) => x.title)]) if (text && !CYRILLIC.test(text)) english.push(`${f.rule}: ${text}`);
        }
      }
    }
    assert.ok(findings > 500, `the fixtures give findings (${findings})`);
    assert.deepEqual([...new Set(english)], [], 'texts left in English');
    const rulesInEnglish = allRules().filter((r) => !CYRILLIC.test(r.title) || !CYRILLIC.test(r.why)).map((r) => r.id);
    assert.deepEqual(rulesInEnglish, [], 'rules whose title or why is English');
  } finally {
    useMessages('en', undefined);
  }
});
