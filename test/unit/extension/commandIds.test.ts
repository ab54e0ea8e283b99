/**
 * One command id, one place: the command's file (`export const drainNode = defineCommand(…)` in src/commands/), from
 * which `npm run gen:tables` writes its CommandIds line, its registrar line and its package.json entry
 * (test/unit/generatedTables.test.ts fails while they are stale); the rest follows from that name or is checked
 * against it here, so a new command is its command file and its titles — and any of them left out or misspelled
 * fails this test:
 *   - the id is `kubeadm.<name>` (the walkthrough's `kubeadmWorkbench.runPreflight` the one exception, named here);
 *   - package.json contributes exactly these commands (manifest.test.ts), each titled `%command.<name>.title%`, a key
 *     both package.nls files define (packageNls.test.ts checks their texts);
 *   - the registrar binds each id once, to an export its command file really has (read from the source: the
 *     registrar imports vscode, so no unit test can load it);
 *   - menus, keybindings, the walkthrough's buttons and the views' welcome links name only these ids or VS Code's own.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import ts from 'typescript';
import { CommandIds } from '../../../src/editor/commandIds';

const ROOT = join(__dirname, '../../..');
const pkg = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8'));
const nls = (lang: string): Record<string, string> => JSON.parse(readFileSync(join(ROOT, `package.nls${lang ? `.${lang}` : ''}.json`), 'utf8'));
/** Ids the walkthrough or settings UI name that are not ours. */
const VSCODE_OWN = new Set(['workbench.actions.view.problems', 'workbench.trust.manage', 'workbench.action.openWorkspaceSettings']);
const EXCEPTIONS: Record<string, string> = { runPreflight: 'kubeadmWorkbench.runPreflight' };

test('each id follows from its name; its title key too, defined in both package.nls files', () => {
  const contributed = new Map<string, { title: string }>((pkg.contributes.commands as { command: string; title: string }[]).map((c) => [c.command, c]));
  const [en, ru] = [nls(''), nls('ru')];
  for (const [name, id] of Object.entries(CommandIds)) {
    assert.equal(id, EXCEPTIONS[name] ?? `kubeadm.${name}`, name);
    const title = contributed.get(id)?.title;
    assert.equal(title, `%command.${name}.title%`, `${id}: package.json's title`);
    assert.ok(en[`command.${name}.title`] && ru[`command.${name}.title`], `${id}: command.${name}.title in package.nls.json and package.nls.ru.json`);
  }
});

/** The registrar's table as its source says: `[CommandIds.name]: () => import('./file.js').then((m) => m.symbol)`. */
function registrarBindings(): { name: string; file: string; symbol: string }[] {
  const path = join(ROOT, 'src/commands/registrar.ts');
  const sf = ts.createSourceFile(path, readFileSync(path, 'utf8'), ts.ScriptTarget.Latest, true);
  const out: { name: string; file: string; symbol: string }[] = [];
  const visit = (n: ts.Node): void => {
    if (ts.isPropertyAssignment(n) && ts.isComputedPropertyName(n.name) && ts.isPropertyAccessExpression(n.name.expression) && n.name.expression.expression.getText(sf) === 'CommandIds') {
      const text = n.initializer.getText(sf);
      const m = /import\('\.\/([\w.]+)\.js'\)\.then\(\(m\) => m\.(\w+)\)/.exec(text);
      assert.ok(m, `registrar: ${n.name.expression.name.text} is bound some other way: ${text}`);
      out.push({ name: n.name.expression.name.text, file: m[1]!, symbol: m[2]! });
    }
    n.forEachChild(visit);
  };
  visit(sf);
  return out;
}

test('the registrar binds every id once, each to an export of an existing command file', () => {
  const bound = registrarBindings();
  assert.deepEqual(bound.map((b) => b.name).sort(), Object.keys(CommandIds).sort(), 'the registrar binds exactly the ids of CommandIds');
  for (const b of bound) {
    const file = join(ROOT, 'src/commands', `${b.file}.ts`);
    assert.ok(existsSync(file), `${b.name}: src/commands/${b.file}.ts`);
    assert.match(readFileSync(file, 'utf8'), new RegExp(`export const ${b.symbol}\\b`), `${b.name}: src/commands/${b.file}.ts exports ${b.symbol}`);
  }
});

test('menus, keybindings, the walkthrough and the welcome links name only our ids or VS Code\'s own', () => {
  const ours = new Set<string>(Object.values(CommandIds));
  const named: [string, string][] = [];
  for (const [menu, items] of Object.entries((pkg.contributes.menus ?? {}) as Record<string, { command?: string }[]>)) for (const i of items) if (i.command) named.push([`menus.${menu}`, i.command]);
  for (const k of (pkg.contributes.keybindings ?? []) as { command: string }[]) named.push(['keybindings', k.command.replace(/^-/, '')]);
  for (const w of pkg.contributes.walkthroughs ?? []) for (const s of w.steps) for (const m of `${s.description} ${s.completionEvents?.join(' ') ?? ''}`.matchAll(/(?:command:|onCommand:)([\w.]+)/g)) named.push([`walkthrough ${s.id}`, m[1]!]);
  for (const w of pkg.contributes.viewsWelcome ?? []) for (const m of (w.contents as string).matchAll(/\(command:([\w.]+)/g)) named.push([`viewsWelcome ${w.view}`, m[1]!]);
  for (const e of (pkg.activationEvents ?? []) as string[]) if (e.startsWith('onCommand:')) named.push(['activationEvents', e.slice('onCommand:'.length)]);
  assert.ok(named.length > 20, `the manifest names commands (${named.length})`);
  assert.deepEqual(named.filter(([, id]) => !ours.has(id) && !VSCODE_OWN.has(id)).map(([where, id]) => `${where}: ${id}`), []);
  // and each command the palette hides or shows is one we contribute (a stale entry would name a removed id)
  const palette = ((pkg.contributes.menus?.commandPalette ?? []) as { command: string }[]).map((m) => m.command);
  assert.equal(new Set(palette).size, palette.length, 'one commandPalette entry per command');
});
