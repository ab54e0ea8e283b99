/**
 * The kube adapter is a bundle of its own (dist/kube.js) with its own copy of the message catalogue, where the live
 * model, its verdict and its errors are built. Every copy keeps its state in one record on globalThis
 * (core/l10n/catalogue.ts), so what the bundle words follows the language its caller set — they stayed English before.
 * Loaded here from the built bundle itself (`npm run build`), not a stand-in.
 */
import { after, test } from 'node:test';
import assert from 'node:assert/strict';
import { t, useMessages } from '../../../src/core/l10n';
import { loadKubeAdapter } from '../../../src/adapters/kube/load';

after(() => useMessages('en', undefined));

test('the kube adapter bundle and its caller share one catalogue: a language set on either side is the other\'s', () => {
  const adapter = loadKubeAdapter() as unknown as { useMessages: typeof useMessages };
  assert.notEqual(adapter.useMessages, useMessages, 'the bundle has a copy of its own');
  // set in the bundle's copy, read in this one …
  adapter.useMessages('ru', new Map([['healthy', 'исправен']]));
  assert.equal(t('healthy'), 'исправен');
  // … and back to English from this side: the bundle's copy is English again too (its answer is this side's t)
  useMessages('en', undefined);
  assert.equal(t('healthy'), 'healthy');
  adapter.useMessages('ru', new Map([['healthy', 'исправен']]));
  useMessages('en', undefined);
  assert.equal(t('healthy'), 'healthy', 'one state, whoever set it last');
});
