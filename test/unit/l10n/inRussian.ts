/**
 * What the tests of a Russian run share: the shipped Russian bundle, runs of code under it (English again afterwards,
 * whatever the code threw), and the texts a run left without a Russian word.
 */
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { useMessages } from '../../../src/core/l10n';

export const bundle = JSON.parse(readFileSync(join(__dirname, '../../../l10n/bundle.l10n.ru.json'), 'utf8')) as Record<string, string>;
export const CYRILLIC = /[А-Яа-яЁё]/;

/** Runs `fn` with the Russian catalogue (every entry of the bundle usable), English again afterwards. */
export function inRussian<T>(fn: () => T): T {
  assert.deepEqual(useMessages('ru', bundle), []);
  try {
    return fn();
  } finally {
    useMessages('en', undefined);
  }
}

/** `inRussian` for code that awaits. */
export async function inRussianAsync<T>(fn: () => Promise<T>): Promise<T> {
  assert.deepEqual(useMessages('ru', bundle), []);
  try {
    return await fn();
  } finally {
    useMessages('en', undefined);
  }
}

/** The texts of `texts` (labelled) that have no Russian word in them. */
export function english(texts: Record<string, string | undefined>): string[] {
  return Object.entries(texts).filter(([, v]) => v !== undefined && v !== '' && !CYRILLIC.test(v)).map(([k, v]) => `${k}: ${v}`);
}
