// The tables a new command or verb used to be written into by hand (issue 39), written from the declarations in the
// front-end files themselves — `npm run gen:tables` writes them, `--check` names the stale ones and exits 1, and
// test/unit/generatedTables.test.ts fails while any is stale:
//   - a command is an `export const NAME = call(…)` at the top of a file of src/commands/ (defineCommand, or a
//     factory returning one); its id is `kubeadm.NAME`, or what a `@commandId` tag in its doc comment says;
//       → CommandIds (src/editor/commandIds.ts), the typed ids the rest of the code names;
//       → COMMANDS (src/commands/registrar.ts), an import() of the command's file per id, run on first invocation;
//       → package.json's contributes.commands: an entry per id titled `%command.NAME.title%` (its texts are the
//         package.nls files' — checked by test/unit/extension/commandIds.test.ts; an entry's icon and other fields
//         are kept);
//   - a verb is a key of the `export const verbs = { … }` of a file of src/cli/ (its `--help` line and what runs it)
//       → VERBS (src/cli/main.ts): the line copied (the usage prints without loading any verb) and an import() of
//         the verb's file, run when the verb runs. The usage keeps its order; a new verb goes last.
// Each table is the part of its file between a `// gen:tables begin` line and a `// gen:tables end` line; the rest
// of those files is written by hand. The import() stays a literal per entry: the build splits there
// (scripts/bundles.mjs), and a command's code loads on its first use.
import { readFileSync, readdirSync, writeFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import ts from 'typescript';

const ROOT = join(dirname(fileURLToPath(import.meta.url)), '..');

/** Where each table is written. */
export const TABLE_FILES = {
  commandIds: 'src/editor/commandIds.ts',
  registrar: 'src/commands/registrar.ts',
  verbs: 'src/cli/main.ts',
  manifest: 'package.json',
};

const BEGIN = '// gen:tables begin';
const END = '// gen:tables end';

/**
 * The project's files as the generator reads them: from `root`, with `overlay` over them (path → text, or null for a
 * file taken away) — how a test adds a command without writing into the tree.
 */
function reader(root, overlay) {
  const has = (p) => Object.prototype.hasOwnProperty.call(overlay, p);
  return {
    read: (p) => (has(p) && overlay[p] !== null ? overlay[p] : readFileSync(join(root, p), 'utf8')),
    /** The TypeScript files directly in `dir` (declaration files left out), sorted. */
    list: (dir) => {
      const onDisk = readdirSync(join(root, dir)).map((f) => `${dir}/${f}`);
      const added = Object.keys(overlay).filter((p) => dirname(p) === dir);
      return [...new Set([...onDisk, ...added])].filter((p) => /\.ts$/.test(p) && !p.endsWith('.d.ts') && !(has(p) && overlay[p] === null)).sort();
    },
  };
}

const parse = (path, text) => ts.createSourceFile(path, text, ts.ScriptTarget.Latest, true);
const exported = (st) => ts.canHaveModifiers(st) && (ts.getModifiers(st) ?? []).some((m) => m.kind === ts.SyntaxKind.ExportKeyword);
const baseName = (path) => path.slice(path.lastIndexOf('/') + 1).replace(/\.ts$/, '');

/** The commands the files of src/commands/ declare: `{ name, id, file }`, sorted by name. */
export function declaredCommands(src) {
  const found = [];
  for (const path of src.list('src/commands')) {
    const sf = parse(path, src.read(path));
    for (const st of sf.statements) {
      if (!ts.isVariableStatement(st) || !exported(st)) continue;
      for (const d of st.declarationList.declarations) {
        if (!ts.isIdentifier(d.name) || !d.initializer || !ts.isCallExpression(d.initializer)) continue;
        const name = d.name.text;
        const tag = ts.getJSDocTags(d).find((t) => t.tagName.text === 'commandId');
        const id = tag ? (ts.getTextOfJSDocComment(tag.comment) ?? '').trim().split(/\s/)[0] : `kubeadm.${name}`;
        if (!/^[A-Za-z][\w-]*\.[A-Za-z]\w*$/.test(id)) throw new Error(`${path}: ${name}'s @commandId "${id}" is not a command id (prefix.name)`);
        found.push({ name, id, file: baseName(path), path });
      }
    }
  }
  for (const key of ['name', 'id']) {
    const seen = new Map();
    for (const c of found) {
      if (seen.has(c[key])) throw new Error(`two commands are ${key === 'name' ? 'named' : 'given the id'} ${c[key]}: ${seen.get(c[key])} and ${c.path}`);
      seen.set(c[key], c.path);
    }
  }
  return found.sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
}

/** The verbs the files of src/cli/ list in their `export const verbs = { … }`: `{ name, summary, file }`, in file order. */
export function declaredVerbs(src) {
  const found = [];
  for (const path of src.list('src/cli')) {
    const sf = parse(path, src.read(path));
    for (const st of sf.statements) {
      if (!ts.isVariableStatement(st) || !exported(st)) continue;
      for (const d of st.declarationList.declarations) {
        if (!ts.isIdentifier(d.name) || d.name.text !== 'verbs' || !d.initializer) continue;
        let list = d.initializer;
        while (ts.isSatisfiesExpression(list) || ts.isAsExpression(list) || ts.isParenthesizedExpression(list)) list = list.expression;
        if (!ts.isObjectLiteralExpression(list)) throw new Error(`${path}: verbs is not an object literal`);
        for (const p of list.properties) {
          const name = p.name && (ts.isIdentifier(p.name) || ts.isStringLiteral(p.name)) ? p.name.text : undefined;
          if (!name || !ts.isPropertyAssignment(p) || !ts.isObjectLiteralExpression(p.initializer)) throw new Error(`${path}: each of verbs is \`name: { summary, run }\` (${p.getText(sf)})`);
          const summary = p.initializer.properties.find((q) => q.name?.getText(sf) === 'summary');
          if (!summary || !ts.isPropertyAssignment(summary)) throw new Error(`${path}: the verb ${name} has no summary`);
          found.push({ name, summary: summaryText(path, name, sf, summary.initializer), file: baseName(path), path });
        }
      }
    }
  }
  const seen = new Map();
  for (const v of found) {
    if (seen.has(v.name)) throw new Error(`two files list the verb ${v.name}: ${seen.get(v.name)} and ${v.path}`);
    seen.set(v.name, v.path);
  }
  return found;
}

/** A summary's source, copied into main.ts: it may name nothing but t() (main.ts imports nothing else for it). */
function summaryText(path, verb, sf, expr) {
  const visit = (n) => {
    if (ts.isIdentifier(n) && n.text !== 't' && !(ts.isPropertyAccessExpression(n.parent) && n.parent.name === n)) {
      throw new Error(`${path}: the summary of ${verb} names ${n.text}: a summary is copied into main.ts's usage, so it may use only texts and t()`);
    }
    n.forEachChild(visit);
  };
  visit(expr);
  return expr.getText(sf);
}

/** `text` with the lines between its begin and end markers replaced by `lines`, indented as the begin marker. */
function withRegion(path, text, lines) {
  const all = text.split('\n');
  const begin = all.findIndex((l) => l.trim().startsWith(BEGIN));
  const end = all.findIndex((l) => l.trim().startsWith(END));
  if (begin < 0 || end < begin || all.filter((l) => l.trim().startsWith(BEGIN)).length !== 1) throw new Error(`${path}: one "${BEGIN}" line, then one "${END}" line`);
  const indent = /^\s*/.exec(all[begin])[0];
  return [...all.slice(0, begin + 1), ...lines.map((l) => indent + l), ...all.slice(end)].join('\n');
}

/** The keys of a region's `key: …` lines, in order (a table's present order). */
function regionKeys(text) {
  const all = text.split('\n');
  const begin = all.findIndex((l) => l.trim().startsWith(BEGIN));
  const end = all.findIndex((l) => l.trim().startsWith(END));
  return all.slice(begin + 1, Math.max(begin + 1, end)).flatMap((l) => {
    const m = /^\s*(?:'([^']+)'|([\w$]+)):/.exec(l);
    return m ? [m[1] ?? m[2]] : [];
  });
}

const key = (name) => (/^[A-Za-z_$][\w$]*$/.test(name) ? name : `'${name}'`);
const member = (name) => (/^[A-Za-z_$][\w$]*$/.test(name) ? `.${name}` : `['${name}']`);

/**
 * Every table as its sources declare it: `[{ path, text, current }]` (current: the file as it is) and the notes to
 * show (a command title the package.nls files lack).
 */
export function generateTables(root = ROOT, overlay = {}) {
  const src = reader(root, overlay);
  const commands = declaredCommands(src);
  const verbs = declaredVerbs(src);
  const out = [];
  const emit = (path, text) => out.push({ path, text, current: src.read(path) });

  emit(TABLE_FILES.commandIds, withRegion(TABLE_FILES.commandIds, src.read(TABLE_FILES.commandIds), commands.map((c) => `${c.name}: '${c.id}',`)));
  emit(
    TABLE_FILES.registrar,
    withRegion(TABLE_FILES.registrar, src.read(TABLE_FILES.registrar), commands.map((c) => `[CommandIds.${c.name}]: () => import('./${c.file}.js').then((m) => m.${c.name}),`)),
  );

  // The usage's order is the table's: the verbs it has keep their places, a new one goes last.
  const main = src.read(TABLE_FILES.verbs);
  const order = regionKeys(main);
  const rank = (v) => (order.includes(v.name) ? order.indexOf(v.name) : order.length);
  const ordered = verbs.map((v, i) => ({ v, i })).sort((a, b) => rank(a.v) - rank(b.v) || a.i - b.i).map(({ v }) => v);
  emit(
    TABLE_FILES.verbs,
    withRegion(TABLE_FILES.verbs, main, ordered.map((v) => `${key(v.name)}: { summary: ${v.summary}, load: () => import('./${v.file}.js').then((m) => m.verbs${member(v.name)}.run) },`)),
  );

  // package.json: an entry per command, in its present order (a new one last); each entry's other fields kept.
  const pkg = JSON.parse(src.read(TABLE_FILES.manifest));
  const byId = new Map(commands.map((c) => [c.id, c]));
  const listed = (pkg.contributes.commands ?? []).filter((e) => byId.has(e.command));
  const known = new Set(listed.map((e) => e.command));
  pkg.contributes.commands = [
    ...listed.map((e) => ({ ...e, title: `%command.${byId.get(e.command).name}.title%`, category: e.category ?? '%category.kubeadm%' })),
    ...commands.filter((c) => !known.has(c.id)).map((c) => ({ command: c.id, title: `%command.${c.name}.title%`, category: '%category.kubeadm%' })),
  ];
  emit(TABLE_FILES.manifest, `${JSON.stringify(pkg, null, 2)}\n`);

  const notes = [];
  for (const nls of ['package.nls.json', 'package.nls.ru.json']) {
    const texts = JSON.parse(src.read(nls));
    for (const c of commands) if (!texts[`command.${c.name}.title`]) notes.push(`${nls}: add "command.${c.name}.title" (the palette's title of ${c.id})`);
  }
  return { files: out, notes };
}

if (process.argv[1] && resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  const check = process.argv.includes('--check');
  const { files, notes } = generateTables();
  const stale = files.filter((f) => f.text !== f.current);
  for (const f of stale) {
    if (check) console.error(`${f.path}: stale — run npm run gen:tables`);
    else {
      writeFileSync(join(ROOT, f.path), f.text);
      console.log(`wrote ${f.path}`);
    }
  }
  for (const n of notes) console.error(n);
  if (!check && stale.length === 0) console.log('the tables are up to date');
  process.exitCode = check && stale.length > 0 ? 1 : 0;
}
