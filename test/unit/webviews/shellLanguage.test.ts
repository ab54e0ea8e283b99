/**
 * The webviews in the display language: each HTML shell takes every word it shows from the texts its panel passes
 * (vscode.l10n.t of the English defaults) and names their language, and the scripts fill the texts' placeholders as
 * vscode.l10n.t does. Checked with the shipped Russian bundle: a word left in the shell's markup, or a default
 * without a Russian entry, fails here.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { ROOT } from '../haproxy/helpers';
import { ENGLISH_SHELL as PLAN, planHtml } from '../../../src/webviews/planHtml';
import { ENGLISH_SHELL as PREFLIGHT, preflightHtml } from '../../../src/webviews/preflightHtml';
import { ENGLISH_SHELL as DIAGNOSTICS, diagnosticsHtml } from '../../../src/webviews/diagnosticsHtml';
import { ENGLISH_SHELL as TIMELINE, timelineHtml } from '../../../src/webviews/timelineHtml';
import { counted, fill } from '../../../src/webviews/protocol/fill';

const ru = JSON.parse(readFileSync(join(ROOT, 'l10n/bundle.l10n.ru.json'), 'utf8')) as Record<string, string>;

/** The shell's texts as the panel passes them in Russian: each English default looked up in the bundle. */
function inRussian<T extends { lang: string }>(english: T): T {
  const out: Record<string, string> = {};
  for (const [k, v] of Object.entries(english)) {
    if (k === 'lang') continue;
    assert.ok(ru[v], `l10n/bundle.l10n.ru.json has no entry for the shell text "${v}"`);
    out[k] = ru[v]!;
  }
  return { ...out, lang: 'ru' } as unknown as T;
}

const shell = { cspSource: 'vscode-resource:', scriptUri: 'vscode-resource:/dist/webviews/x.js', nonce: 'N0nce', title: 'T' };
const pages: Array<[string, Record<string, string>, (texts: never) => string]> = [
  ['plan', PLAN as unknown as Record<string, string>, (texts) => planHtml({ ...shell, texts })],
  ['preflight', PREFLIGHT as unknown as Record<string, string>, (texts) => preflightHtml({ ...shell, texts })],
  ['diagnostics', DIAGNOSTICS as unknown as Record<string, string>, (texts) => diagnosticsHtml({ ...shell, texts })],
  ['timeline', TIMELINE as unknown as Record<string, string>, (texts) => timelineHtml({ ...shell, texts })],
];

test('every webview shell shows the words its panel passes, in their language, and no English of its own', () => {
  for (const [name, english, render] of pages) {
    const inEnglish = render(english as never);
    assert.match(inEnglish, /<html lang="en">/, name);
    const html = render(inRussian(english as { lang: string }) as never);
    assert.match(html, /<html lang="ru">/, name);
    const body = html.slice(html.indexOf('<body>'));
    for (const [k, v] of Object.entries(english)) {
      if (k === 'lang') continue;
      assert.ok(body.includes(ru[v]!.replace(/&/g, '&amp;').replace(/"/g, '&quot;').replace(/</g, '&lt;')), `${name}: "${ru[v]}" (${k}) is shown`);
      assert.ok(!new RegExp(`[>"]${v.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}[<"]`).test(body), `${name}: the English "${v}" is left in the Russian page`);
    }
    // The markup's own words: what is between tags and in titles/labels is one of the passed texts or empty.
    const passed = new Set(Object.entries(english).filter(([k]) => k !== 'lang').map(([, v]) => ru[v]!));
    const shownText = [...body.matchAll(/>([^<]+)</g)].map((m) => m[1]!.trim()).filter((s) => /[A-Za-z]{3,}/.test(s) && !passed.has(s));
    assert.deepEqual(shownText, [], `${name}: English text in the markup`);
  }
});

test('fill and counted fill {0}-placeholders as vscode.l10n.t does; a count is one of two whole texts', () => {
  assert.equal(fill('{0} of {1}, {0}', 3, 'x'), '3 of x, 3');
  assert.equal(fill('{0} and {2}', 'a'), 'a and {2}');
  assert.equal(fill('{length}', 'a'), '{length}');
  const steps = { one: '1 step', many: '{0} steps' };
  assert.deepEqual([0, 1, 2].map((n) => counted(n, steps)), ['0 steps', '1 step', '2 steps']);
  assert.deepEqual([1, 5].map((n) => counted(n, { one: ru['1 step']!, many: ru['{0} steps']! })), ['1 шаг', 'шагов: 5']);
});
