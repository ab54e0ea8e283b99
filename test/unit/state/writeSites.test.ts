/**
 * Every file the product writes or reads goes through one helper (src/adapters/fs/safeFile.ts: no-follow, O_EXCL,
 * unique temp + rename, regular files only, byte limits before reading). This test parses every source file of src/
 * with TypeScript, lists each call of a file-system function — node:fs in all its import forms, and VS Code's
 * workspace.fs — and fails on one that writes or reads file contents anywhere but in the helper. Looking at a path
 * (stat, lstat, readdir, realpath, exists) is not a read of its contents and stays allowed everywhere.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readdirSync, readFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import ts from 'typescript';

const SRC = join(__dirname, '../../../src');

/**
 * The only files that may call write or read functions directly. Each entry says why.
 */
const ALLOWED: Record<string, string> = {
  // The helper itself: every open, write, rename and remove of the product happens here, under its checks.
  'adapters/fs/safeFile.ts': 'the safe-file helper',
};

/** Functions that change the file system or a file. */
const WRITES = new Set([
  'writeFile', 'writeFileSync', 'appendFile', 'appendFileSync', 'createWriteStream', 'rename', 'renameSync', 'mkdir', 'mkdirSync',
  'mkdtemp', 'mkdtempSync', 'rm', 'rmSync', 'rmdir', 'rmdirSync', 'unlink', 'unlinkSync', 'chmod', 'chmodSync', 'chown', 'chownSync',
  'lchown', 'copyFile', 'copyFileSync', 'cp', 'cpSync', 'symlink', 'symlinkSync', 'link', 'linkSync', 'truncate', 'truncateSync',
  'utimes', 'utimesSync', 'lutimes', 'write', 'writeSync', 'writev', 'open', 'openSync', 'opendir',
  // vscode.workspace.fs
  'createDirectory', 'delete', 'copy',
]);
/** Functions that read a file's contents (where a FIFO hangs and a huge file is read whole). */
const READS = new Set(['readFile', 'readFileSync', 'createReadStream', 'read', 'readSync', 'readv', 'readvSync']);
const FS_MODULES = new Set(['fs', 'node:fs', 'fs/promises', 'node:fs/promises']);

export interface CallSite {
  file: string;
  line: number;
  call: string;
  kind: 'write' | 'read';
}

/** The fs write and read calls of one source text (exported for the check that this scanner finds them). */
export function fsCallSites(file: string, text: string): CallSite[] {
  const source = ts.createSourceFile(file, text, ts.ScriptTarget.ES2022, true);
  const named = new Map<string, string>(); // local name → fs function
  const namespaces = new Set<string>(); // local names of the fs module or its promises object
  for (const st of source.statements) {
    if (!ts.isImportDeclaration(st) || !ts.isStringLiteral(st.moduleSpecifier) || !FS_MODULES.has(st.moduleSpecifier.text)) continue;
    const clause = st.importClause;
    if (!clause) continue;
    if (clause.name) namespaces.add(clause.name.text);
    const bindings = clause.namedBindings;
    if (bindings && ts.isNamespaceImport(bindings)) namespaces.add(bindings.name.text);
    if (bindings && ts.isNamedImports(bindings)) {
      for (const el of bindings.elements) {
        const imported = (el.propertyName ?? el.name).text;
        if (imported === 'promises') namespaces.add(el.name.text);
        else named.set(el.name.text, imported);
      }
    }
  }
  const out: CallSite[] = [];
  const visit = (node: ts.Node): void => {
    if (ts.isCallExpression(node)) {
      const callee = node.expression;
      let fn: string | undefined;
      let shown = callee.getText(source);
      if (ts.isIdentifier(callee)) fn = named.get(callee.text);
      else if (ts.isPropertyAccessExpression(callee)) {
        const target = callee.expression;
        const name = callee.name.text;
        if (ts.isIdentifier(target) && namespaces.has(target.text)) fn = name;
        else if (ts.isPropertyAccessExpression(target) && target.name.text === 'promises' && ts.isIdentifier(target.expression) && namespaces.has(target.expression.text)) fn = name;
        else if (/\bworkspace\.fs$/.test(target.getText(source))) {
          fn = name === 'readFile' ? 'readFile' : ['writeFile', 'delete', 'rename', 'copy', 'createDirectory'].includes(name) ? name : undefined;
        }
      }
      if (fn && (WRITES.has(fn) || READS.has(fn))) {
        shown = shown.replace(/\s+/g, ' ');
        out.push({ file, line: source.getLineAndCharacterOfPosition(node.getStart(source)).line + 1, call: shown, kind: WRITES.has(fn) ? 'write' : 'read' });
      }
    }
    ts.forEachChild(node, visit);
  };
  visit(source);
  return out;
}

function sourceFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((d) => {
    const p = join(dir, d.name);
    if (d.isDirectory()) return sourceFiles(p);
    return d.name.endsWith('.ts') ? [p] : [];
  });
}

test('the scanner sees every form of an fs call: named, renamed, namespace, promises, default, workspace.fs', () => {
  const text = [
    "import { writeFile as wf, readFileSync, existsSync } from 'node:fs';",
    "import { promises as fsp, createWriteStream } from 'fs';",
    "import * as fsx from 'node:fs/promises';",
    "import fsd from 'node:fs';",
    "import * as vscode from 'vscode';",
    'wf("a", "b"); readFileSync("a"); existsSync("a"); fsp.rename("a", "b"); createWriteStream("a");',
    'fsx.appendFile("a", "b"); fsd.promises.unlink("a"); fsd.statSync("a"); fsx.open("a", "r");',
    'vscode.workspace.fs.writeFile(u, b); vscode.workspace.fs.readFile(u); vscode.workspace.fs.stat(u);',
  ].join('\n');
  const calls = fsCallSites('x.ts', text).map((c) => `${c.kind} ${c.call}`);
  assert.deepEqual(calls, [
    'write wf', 'read readFileSync', 'write fsp.rename', 'write createWriteStream',
    'write fsx.appendFile', 'write fsd.promises.unlink', 'write fsx.open',
    'write vscode.workspace.fs.writeFile', 'read vscode.workspace.fs.readFile',
  ]);
});

test('no file of src/ writes or reads file contents but through the safe-file helper', () => {
  const all: CallSite[] = [];
  for (const path of sourceFiles(SRC)) all.push(...fsCallSites(relative(SRC, path).split('\\').join('/'), readFileSync(path, 'utf8')));
  const bypass = all.filter((c) => !(c.file in ALLOWED));
  const inHelper = all.filter((c) => c.file in ALLOWED);
  console.log(`fs call sites in src/: ${all.length} (${inHelper.filter((c) => c.kind === 'write').length} writes and ${inHelper.filter((c) => c.kind === 'read').length} reads in the helper, ${bypass.length} elsewhere)`);
  assert.deepEqual(bypass.map((c) => `${c.file}:${c.line}: ${c.kind} ${c.call}`), [], 'these bypass src/adapters/fs/safeFile.ts: route them through it');
  assert.ok(inHelper.some((c) => c.kind === 'write') && inHelper.some((c) => c.kind === 'read'), 'the helper itself is found by the scan');
});
