/**
 * The tables `npm run gen:tables` (scripts/gen-tables.mjs) writes from the front-end files — CommandIds, the
 * registrar's COMMANDS, package.json's contributes.commands and the CLI's VERBS — are what those files declare now:
 * a command or verb added, renamed or removed without running it fails here, naming the file to regenerate. And the
 * generator itself, on a new command and a new verb given beside the real tree: each lands in every table it belongs
 * to, lazily loaded, the usage's order kept.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';

const ROOT = join(__dirname, '../..');

interface Generated {
  files: { path: string; text: string; current: string }[];
  notes: string[];
}
interface GenTables {
  generateTables(root?: string, overlay?: Record<string, string | null>): Generated;
  TABLE_FILES: Record<'commandIds' | 'registrar' | 'verbs' | 'manifest', string>;
}
const gen = (): Promise<GenTables> => import(pathToFileURL(join(ROOT, 'scripts/gen-tables.mjs')).href) as Promise<GenTables>;

test('the checked-in tables are what the commands\' and verbs\' files declare (else: npm run gen:tables)', async () => {
  const { generateTables, TABLE_FILES } = await gen();
  const { files, notes } = generateTables(ROOT);
  assert.deepEqual(files.map((f) => f.path).sort(), Object.values(TABLE_FILES).sort());
  assert.deepEqual(files.filter((f) => f.text !== f.current).map((f) => `${f.path} is stale: run npm run gen:tables`), []);
  assert.deepEqual(notes, [], 'every command has its palette title in both package.nls files');
});

test('a new command file and a new verb file: one entry in each table, loaded on first use; the usage keeps its order', async () => {
  const { generateTables, TABLE_FILES } = await gen();
  const { files, notes } = generateTables(ROOT, {
    'src/commands/compactEtcd.ts': "import { defineCommand } from './context';\n\nexport const compactEtcd = defineCommand({}, () => async () => undefined);\n",
    'src/cli/compact.ts': "import { t } from '../core/l10n';\n\nexport const verbs = {\n  'etcd-compact': { summary: () => `etcd-compact --inventory F   ${t('compact etcd')}`, run: runCompact },\n} satisfies ListedVerbs;\n",
  });
  const text = (path: string): string => files.find((f) => f.path === path)!.text;
  assert.match(text(TABLE_FILES.commandIds), /^ {2}compactEtcd: 'kubeadm\.compactEtcd',$/m);
  assert.match(text(TABLE_FILES.registrar), /^ {2}\[CommandIds\.compactEtcd\]: \(\) => import\('\.\/compactEtcd\.js'\)\.then\(\(m\) => m\.compactEtcd\),$/m);
  const contributed = JSON.parse(text(TABLE_FILES.manifest)).contributes.commands as { command: string }[];
  assert.deepEqual(contributed.at(-1), { command: 'kubeadm.compactEtcd', title: '%command.compactEtcd.title%', category: '%category.kubeadm%' });
  assert.deepEqual(notes, ['package.nls.json: add "command.compactEtcd.title" (the palette\'s title of kubeadm.compactEtcd)', 'package.nls.ru.json: add "command.compactEtcd.title" (the palette\'s title of kubeadm.compactEtcd)']);
  const main = text(TABLE_FILES.verbs);
  const verbLines = main.split('\n').filter((l) => /^ {2}('[\w-]+'|\w+): \{ summary/.test(l));
  assert.match(verbLines.at(-1)!, /^ {2}'etcd-compact': \{ summary: \(\) => `etcd-compact --inventory F {3}\$\{t\('compact etcd'\)\}`, load: \(\) => import\('\.\/compact\.js'\)\.then\(\(m\) => m\.verbs\['etcd-compact'\]\.run\) \},$/);
  assert.match(verbLines[0]!, /^ {2}facts: /, 'the verbs already listed keep their places');
  // one line more in each source file, the rest as it was
  for (const f of files.filter((g) => g.path !== TABLE_FILES.manifest)) assert.equal(f.text.split('\n').filter((l) => !f.current.split('\n').includes(l)).length, 1, f.path);
});

test('a command taken away leaves every table; a summary that names anything but t() is refused', async () => {
  const { generateTables, TABLE_FILES } = await gen();
  const { files } = generateTables(ROOT, { 'src/commands/showLog.ts': null });
  for (const path of [TABLE_FILES.commandIds, TABLE_FILES.registrar, TABLE_FILES.manifest]) assert.doesNotMatch(files.find((f) => f.path === path)!.text, /\bshowLog\b/, path);
  assert.throws(
    () => generateTables(ROOT, { 'src/cli/compact.ts': "export const verbs = { compact: { summary: () => USAGE, run: runCompact } };\n" }),
    /src\/cli\/compact\.ts: the summary of compact names USAGE/,
  );
});
