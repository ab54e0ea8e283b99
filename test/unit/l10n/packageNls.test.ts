/**
 * The manifest's texts (package.json `contributes`: command titles and categories, view and container names, welcome
 * texts, the walkthrough, settings' descriptions) come from package.nls.json, which VS Code swaps for
 * package.nls.ru.json under a Russian display language. Checked here: every `%key%` resolves, no user-visible field
 * is left as a literal, and each Russian text keeps what must stay as written — `{host}`-style placeholders, the
 * commands its links run, its `code`, and setting names.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { ROOT } from '../haproxy/helpers';
import { NLS_KEY, localisedManifest, manifestMessages, readJson, type Manifest } from './manifestText';

const pkg = readJson<Manifest>(join(ROOT, 'package.json'));
const english = readJson<Record<string, string>>(join(ROOT, 'package.nls.json'));
const russian = readJson<Record<string, string>>(join(ROOT, 'package.nls.ru.json'));

/** The user-visible fields of the manifest, by where they are: `[path, value]`. */
function visibleFields(): Array<[string, unknown]> {
  const out: Array<[string, unknown]> = [];
  const c = pkg.contributes;
  out.push(['description', pkg.description], ['capabilities.untrustedWorkspaces.description', pkg.capabilities?.untrustedWorkspaces?.description]);
  for (const [where, list] of Object.entries(c.viewsContainers ?? {})) list.forEach((v, i) => out.push([`viewsContainers.${where}[${i}].title`, v.title]));
  for (const [where, list] of Object.entries(c.views ?? {})) {
    list.forEach((v, i) => {
      out.push([`views.${where}[${i}].name`, v.name]);
      if (v.contextualTitle !== undefined) out.push([`views.${where}[${i}].contextualTitle`, v.contextualTitle]);
    });
  }
  (c.viewsWelcome ?? []).forEach((w, i) => out.push([`viewsWelcome[${i}].contents`, w.contents]));
  for (const w of c.walkthroughs ?? []) {
    out.push([`walkthroughs.${w.id}.title`, w.title], [`walkthroughs.${w.id}.description`, w.description]);
    for (const s of w.steps) {
      out.push([`walkthroughs.${w.id}.${s.id}.title`, s.title], [`walkthroughs.${w.id}.${s.id}.description`, s.description]);
      if (s.media?.altText !== undefined) out.push([`walkthroughs.${w.id}.${s.id}.media.altText`, s.media.altText]);
    }
  }
  for (const cmd of c.commands ?? []) for (const f of ['title', 'shortTitle', 'category'] as const) if (cmd[f] !== undefined) out.push([`commands.${cmd.command}.${f}`, cmd[f]]);
  for (const [menu, items] of Object.entries(c.menus ?? {})) items.forEach((m, i) => m.title !== undefined && out.push([`menus.${menu}[${i}].title`, m.title]));
  for (const s of c.submenus ?? []) out.push([`submenus.${s.id}.label`, s.label]);
  for (const cfg of [c.configuration].flat()) {
    out.push(['configuration.title', cfg.title]);
    for (const [key, prop] of Object.entries(cfg.properties)) {
      for (const f of ['description', 'markdownDescription', 'deprecationMessage', 'markdownDeprecationMessage']) if (prop[f] !== undefined) out.push([`${key}.${f}`, prop[f]]);
      for (const f of ['enumDescriptions', 'markdownEnumDescriptions']) ((prop[f] ?? []) as unknown[]).forEach((d, i) => out.push([`${key}.${f}[${i}]`, d]));
    }
  }
  return out;
}

test('every user-visible text of the manifest is a %key% of package.nls.json, and every key there is used', () => {
  const fields = visibleFields();
  assert.ok(fields.length > 90, `the manifest's texts are found (${fields.length})`);
  const literal = fields.filter(([, v]) => typeof v !== 'string' || !NLS_KEY.test(v)).map(([at, v]) => `${at}: ${JSON.stringify(v)}`);
  assert.deepEqual(literal, [], 'texts written into package.json instead of package.nls.json');
  const used = new Set(fields.map(([, v]) => NLS_KEY.exec(v as string)![1]!));
  assert.deepEqual([...used].filter((k) => typeof english[k] !== 'string' || english[k]!.trim() === ''), [], '%key%s without an English text');
  assert.deepEqual(Object.keys(english).filter((k) => !used.has(k)), [], 'package.nls.json entries no field uses');
  // and nothing else of package.json is a %key% that would show as written
  const stray: string[] = [];
  const walk = (v: unknown, at: string): void => {
    if (typeof v === 'string' && NLS_KEY.test(v) && !(NLS_KEY.exec(v)![1]! in english)) stray.push(at);
    else if (v && typeof v === 'object') for (const [k, x] of Object.entries(v)) walk(x, `${at}.${k}`);
  };
  walk(pkg, 'package.json');
  assert.deepEqual(stray, [], '%key%s package.nls.json does not define');
});

/** What a translation must keep as written, as a sorted list per kind. */
function kept(text: string): Record<string, string[]> {
  const all = (re: RegExp): string[] => [...text.matchAll(re)].map((m) => m[1] ?? m[0]).sort();
  return {
    placeholders: all(/{[^}\s]+}/g),
    'link targets': all(/\]\(([^)\s]+)\)/g),
    code: all(/`([^`]+)`/g),
    settings: all(/\bkubeadmWorkbench\.[\w.]*\w/g),
    'command ids': all(/\bcommand:([\w.]+)/g),
  };
}

const CYRILLIC = /[А-Яа-яЁё]/;
/** Texts that are the same in Russian: names and version notes. */
const SAME_IN_RUSSIAN = new Set(['category.kubeadm', 'configuration.title', 'configuration.generate.containerdLayout.enumDescriptions.2', 'configuration.generate.containerdLayout.enumDescriptions.3']);

test('package.nls.ru.json translates every key of package.nls.json and keeps placeholders, links, code and setting names', () => {
  assert.deepEqual(Object.keys(russian).filter((k) => !(k in english)), [], 'Russian keys package.nls.json does not have');
  assert.deepEqual(Object.keys(english).filter((k) => !(k in russian)), [], 'keys without a Russian text');
  for (const [key, text] of Object.entries(russian)) {
    assert.equal(typeof text, 'string', key);
    assert.deepEqual(kept(text), kept(english[key]!), `${key}: what must stay as written`);
    if (SAME_IN_RUSSIAN.has(key)) assert.equal(text, english[key], key);
    else assert.match(text, CYRILLIC, `${key} is not translated`);
  }
});

/** Welcome buttons labelled by what they do rather than the command's title, in English too. */
const EXCEPT_LABEL = new Set(['kubeadm.openKubeconfigSetting', 'kubeadm.createInventory']);

test('the manifest in Russian: commands, views and settings carry the Russian texts, command ids and setting names unchanged', () => {
  const ru = localisedManifest(ROOT, 'ru');
  const en = localisedManifest(ROOT, 'en');
  assert.deepEqual(ru.contributes.commands.map((c: { command: string }) => c.command), en.contributes.commands.map((c: { command: string }) => c.command));
  assert.equal(ru.contributes.commands.find((c: { command: string }) => c.command === 'kubeadm.bringUpCluster').title, 'Развернуть кластер…');
  assert.equal(en.contributes.commands.find((c: { command: string }) => c.command === 'kubeadm.bringUpCluster').title, 'Bring Up Cluster…');
  assert.deepEqual(Object.keys(ru.contributes.configuration.properties), Object.keys(en.contributes.configuration.properties));
  // a welcome link's label names the command by its Russian title, so the button and the palette say the same
  const titles = new Map<string, string>(ru.contributes.commands.map((c: { command: string; title: string }) => [c.command, c.title]));
  for (const w of ru.contributes.viewsWelcome as { contents: string }[]) {
    for (const m of w.contents.matchAll(/\[([^\]]+)\]\(command:([\w.]+)\)/g)) {
      const title = titles.get(m[2]!);
      // as in English, a label may drop the title's ellipsis or name the file the command creates or opens
      const plain = (s: string): string => s.replace(/…$/, '').toLowerCase();
      if (title && !EXCEPT_LABEL.has(m[2]!)) assert.equal(plain(m[1]!), plain(title), `${m[2]} in a welcome text`);
    }
  }
  assert.equal(manifestMessages(ROOT, 'de')['command.showLog.title'], 'Show Log', 'a language without a file is English');
});

/**
 * A walkthrough step's markdown page is a file, not a `%key%`: VS Code shows `<page>.nls.<language>.md` beside it
 * when there is one (its getting-started content reader tries the locale, then the language, then the page). Each
 * page has its Russian sibling, which keeps the page's code (commands, file and setting names) and its images and
 * is not the English text.
 */
test('every walkthrough page has its Russian page, with the same code and images', () => {
  const pages = (pkg.contributes.walkthroughs ?? []).flatMap((w) => w.steps.map((s) => s.media?.markdown)).filter((p): p is string => p !== undefined);
  assert.equal(pages.length, 8, 'the eight steps each show a page');
  const kept = (text: string): string[] => [...text.matchAll(/`[^`\n]+`|!\[[^\]]*\]\(([^)]+)\)/g)].map((m) => m[1] ?? m[0]).sort();
  for (const page of pages) {
    const en = readFileSync(join(ROOT, page), 'utf8');
    const ruPath = page.replace(/\.md$/, '.nls.ru.md');
    assert.ok(existsSync(join(ROOT, ruPath)), `${ruPath} is missing`);
    const ru = readFileSync(join(ROOT, ruPath), 'utf8');
    assert.match(ru.split('\n')[0]!, /^# .*\p{Script=Cyrillic}/u, `${ruPath} starts with a Russian heading`);
    assert.deepEqual(kept(ru), kept(en), `${ruPath} keeps the code spans and images of ${page}`);
  }
});
