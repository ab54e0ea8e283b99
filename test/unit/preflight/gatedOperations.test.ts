/**
 * Every operation that reaches hosts passes the shared preflight first (issue 33: "one preflight, before any question,
 * shared by every operation that touches hosts or the cluster, the same in the editor and the CLI"). This test parses
 * the editor's commands (src/commands) and the CLI's verbs (src/cli) with TypeScript and, for each command or verb
 * (a `defineCommand(…)` / `defineVerb(…)` call, with the functions of its file it calls), checks:
 *   A. one that opens an SSH pool (the editor's sessions, the CLI's `ssh()` / `cliSshPool` / `planRun()`) runs a
 *      preflight: its own gate (editorPreflight, preflightStep, planRun's `preflight`, verbPreflight) or a workflow
 *      that runs it before its first question or read (found in src/engine/workflows, below);
 *   B. one that hands the pool to an engine function that is not such a workflow (a read such as readEtcdStatus or
 *      readDrift, or a workflow whose front-ends gate it, such as the backup's) runs its own gate;
 *   C. its own text asks nothing (a pick, an input, the sudo password) before that gate.
 * The exceptions are listed with their reason. A workflow "runs the preflight first" when its function (with the
 * functions of its file it calls) calls preflightStep before any question, progress, document or plan run.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import ts from 'typescript';

const SRC = join(__dirname, '../../../src');

/** Commands and verbs that reach hosts without the shared gate, each with why (file → reason). */
const EXCEPTIONS: Record<string, string> = {
  'cli/sshCheck.ts': 'it is the preflight (`ssh-check`, `preflight`): runPreflight itself, its table and --json',
  'commands/drainNode.ts': 'a drain goes through the API; the SSH pool is opened only for the maintenance command typed after it — not gated yet (follow-up of issue 33)',
  'cli/drain.ts': '`drain --then CMD`: the API first; the pool is only for the maintenance command after the drain — not gated yet (follow-up of issue 33)',
  'cli/status.ts': 'a monitoring verb (cron, CI) read through the API: `--ssh` adds the nodes\' own reads, non-interactive, each host not read said in its row — it reports a degraded cluster rather than refuse',
  'cli/timeline.ts': 'the pod timeline is read through the API; the machines\' journals over SSH are an optional extra (a host not read is said, never a refusal)',
};

/** The editor's and the CLI's own gates (commands/preflightGate.ts, engine/workflows/preflightStep.ts, cli/planRun.ts, cli/verbPreflight.ts). */
const GATES = new Set(['editorPreflight', 'preflightStep', 'preflight', 'verbPreflight']);

/** Opening an SSH pool. */
const OPENS_HOSTS = /\bsessions\.open\(|\bcliSshPool\(|\bpoolFromFlags\(|\bssh\(\)|\bplanRun\(\)/;

/** An argument that carries the SSH pool (or the session a view service then uses). */
const CARRIES_POOL = /\bssh\s*:|\bssh\(\)|\bpool\b|\bsession\b/;

/** Engine functions given the pool's user names only, which reach no host. */
const NOT_HOST_READERS = new Set(['sudoUnlessRoot', 'stateFolderFor', 'remoteExecOver']);

/** A question to the user in a command's or verb's own text (the sudo password asked up front by a read-only verb too). */
const QUESTION = /\.(pick|pickMany|input|confirm|secret)\(|\baskBecomePassword\(|\bshowQuickPick\(|\bshowInputBox\(/;

/** Questions, progress, documents and plan runs: a workflow's gate comes before the first of them. */
const BEFORE_GATE = /\bui\.(confirm|pick|pickMany|input|secret|progress|show|message|openRun)\(|\bplanRunWorkflow\(/;

function sourceFiles(dir: string): string[] {
  return readdirSync(join(SRC, dir)).filter((f) => f.endsWith('.ts')).map((f) => `${dir}/${f}`);
}

function parse(file: string): ts.SourceFile {
  return ts.createSourceFile(file, readFileSync(join(SRC, file), 'utf8'), ts.ScriptTarget.ES2022, true);
}

/** The file's named functions: declarations and `const name = (…) => …` / `function` expressions. */
function functionsOf(source: ts.SourceFile): Map<string, ts.Node> {
  const out = new Map<string, ts.Node>();
  const visit = (n: ts.Node): void => {
    if (ts.isFunctionDeclaration(n) && n.name) out.set(n.name.text, n);
    if (ts.isVariableDeclaration(n) && ts.isIdentifier(n.name) && n.initializer && (ts.isArrowFunction(n.initializer) || ts.isFunctionExpression(n.initializer) || ts.isCallExpression(n.initializer))) out.set(n.name.text, n.initializer);
    ts.forEachChild(n, visit);
  };
  visit(source);
  return out;
}

function calleeName(call: ts.CallExpression): string | undefined {
  const e = call.expression;
  if (ts.isIdentifier(e)) return e.text;
  if (ts.isPropertyAccessExpression(e)) return e.name.text;
  return undefined;
}

/** The node and, transitively, the file's functions it names (called or passed on). */
function reach(node: ts.Node, functions: Map<string, ts.Node>): ts.Node[] {
  const seen = new Set<ts.Node>([node]);
  const queue = [node];
  while (queue.length) {
    const n = queue.shift()!;
    const visit = (x: ts.Node): void => {
      if (ts.isIdentifier(x) && functions.has(x.text) && !seen.has(functions.get(x.text)!)) {
        seen.add(functions.get(x.text)!);
        queue.push(functions.get(x.text)!);
      }
      ts.forEachChild(x, visit);
    };
    visit(n);
  }
  return [...seen];
}

function calls(nodes: readonly ts.Node[]): ts.CallExpression[] {
  const out: ts.CallExpression[] = [];
  for (const root of nodes) {
    const visit = (x: ts.Node): void => {
      if (ts.isCallExpression(x)) out.push(x);
      ts.forEachChild(x, visit);
    };
    visit(root);
  }
  return out;
}

/** Local names imported from the engine (src/engine/…). */
function engineImports(source: ts.SourceFile): Set<string> {
  const out = new Set<string>();
  for (const st of source.statements) {
    if (!ts.isImportDeclaration(st) || !ts.isStringLiteral(st.moduleSpecifier) || !/(^|\/)engine\//.test(st.moduleSpecifier.text)) continue;
    const b = st.importClause?.namedBindings;
    if (b && ts.isNamedImports(b)) for (const el of b.elements) if (!el.isTypeOnly) out.add(el.name.text);
  }
  return out;
}

/** The workflows (src/engine/workflows) whose exported functions run the preflight before anything else. */
export function gatedWorkflows(): Set<string> {
  const out = new Set<string>();
  for (const file of sourceFiles('engine/workflows')) {
    const source = parse(file);
    const functions = functionsOf(source);
    for (const st of source.statements) {
      if (!ts.isFunctionDeclaration(st) || !st.name || !st.modifiers?.some((m) => m.kind === ts.SyntaxKind.ExportKeyword)) continue;
      // The function's own body first, then the file's functions it calls (its body runs them in that order here).
      const text = reach(st, functions).map((n) => n.getText(source)).join('\n');
      const gate = text.search(/\bpreflightStep\(/);
      const before = text.search(BEFORE_GATE);
      if (st.name.text !== 'preflightStep' && gate >= 0 && (before < 0 || gate < before)) out.add(st.name.text);
    }
  }
  return out;
}

export interface Finding {
  file: string;
  line: number;
  what: string;
}

/** What each command or verb of a file lacks (empty: every one that reaches hosts is gated). */
export function ungated(file: string, source: ts.SourceFile, gated: ReadonlySet<string>): Finding[] {
  const functions = functionsOf(source);
  const engine = engineImports(source);
  const out: Finding[] = [];
  const visit = (n: ts.Node): void => {
    if (ts.isCallExpression(n) && ts.isIdentifier(n.expression) && (n.expression.text === 'defineCommand' || n.expression.text === 'defineVerb')) {
      const nodes = reach(n, functions);
      const text = nodes.map((x) => x.getText(source)).join('\n');
      const all = calls(nodes);
      const gate = all.some((c) => GATES.has(calleeName(c) ?? ''));
      const line = source.getLineAndCharacterOfPosition(n.getStart(source)).line + 1;
      const usesGated = [...gated].some((w) => new RegExp(`\\b${w}\\b`).test(text));
      if (OPENS_HOSTS.test(text) && !gate && !usesGated) out.push({ file, line, what: 'opens an SSH pool and runs no preflight' });
      const readers = all.filter((c) => {
        const name = calleeName(c);
        return name !== undefined && ts.isIdentifier(c.expression) && engine.has(name) && !gated.has(name) && !NOT_HOST_READERS.has(name) && c.arguments.some((a) => CARRIES_POOL.test(a.getText(source)));
      });
      // The gate comes before the first question of the definition's own text (a pick, an input, the sudo password).
      const own = n.getText(source);
      const asked = own.search(QUESTION);
      const gatedAt = Math.min(...[...GATES, ...gated].map((g) => own.search(new RegExp(`\\b${g}\\b`))).filter((i) => i >= 0));
      if (asked >= 0 && Number.isFinite(gatedAt) && asked < gatedAt) out.push({ file, line, what: `asks (${own.slice(asked, asked + 40).replace(/\s+/g, ' ').trim()}…) before its preflight` });
      if (readers.length && !gate) out.push({ file, line, what: `hands the pool to ${[...new Set(readers.map((c) => calleeName(c)))].join(', ')} without its own preflight` });
    }
    ts.forEachChild(n, visit);
  };
  visit(source);
  return out;
}

test('the workflows that touch hosts without a front-end gate run the preflight before their first question or read', () => {
  const gated = gatedWorkflows();
  for (const w of ['etcdDefragWorkflow', 'etcdNospaceWorkflow', 'reconfigureWorkflow', 'kubeletConfWorkflow']) assert.ok(gated.has(w), `${w} runs the preflight first (gated: ${[...gated].join(', ')})`);
  // The plan run offers the preflight after a failure: that is no gate before its question.
  assert.ok(!gated.has('planRunWorkflow'));
});

test('every command and verb that opens an SSH pool passes the shared preflight first (the exceptions say why)', () => {
  const gated = gatedWorkflows();
  const files = [...sourceFiles('commands'), ...sourceFiles('cli')];
  const findings = files.filter((f) => !(f in EXCEPTIONS)).flatMap((f) => ungated(f, parse(f), gated));
  assert.deepEqual(findings.map((f) => `src/${f.file}:${f.line}: ${f.what}`), []);
  // Each exception is still a file that reaches hosts (a stale entry would hide nothing and mislead).
  for (const f of Object.keys(EXCEPTIONS)) assert.match(readFileSync(join(SRC, f), 'utf8'), /sessions\.open\(|cliSshPool\(|poolFromFlags\(|openSsh\(|runPreflight\(/, `${f} is listed as an exception but opens no pool`);
});

test('the scan finds an ungated verb and an ungated command (it would catch the day-2 operations as they were)', () => {
  const gated = gatedWorkflows();
  const verb = ts.createSourceFile('cli/x.ts', `import { readEtcdStatus } from '../engine/etcdMaintenance';
    export const v = defineVerb({ run: async ({ ssh }) => { const pool = ssh(); await readEtcdStatus({ ssh: pool }); return 0; } });`, ts.ScriptTarget.ES2022, true);
  assert.deepEqual(ungated('cli/x.ts', verb, gated).map((f) => f.what), ['opens an SSH pool and runs no preflight', 'hands the pool to readEtcdStatus without its own preflight']);
  const command = ts.createSourceFile('commands/y.ts', `import { readDrift } from '../engine/drift';
    function read(ctx) { const pool = ctx.sessions.open(ctx.inv); return readDrift({ ssh: pool }); }
    export const c = defineCommand({}, (ctx) => () => read(ctx));`, ts.ScriptTarget.ES2022, true);
  assert.equal(ungated('commands/y.ts', command, gated).length, 2);
  const gatedCommand = ts.createSourceFile('commands/z.ts', `import { etcdDefragWorkflow } from '../engine/workflows/etcdWorkflow';
    export const c = defineCommand({}, (ctx) => () => etcdDefragWorkflow(ui, { run: { ssh: ctx.sessions.open(ctx.inv) } }));`, ts.ScriptTarget.ES2022, true);
  assert.deepEqual(ungated('commands/z.ts', gatedCommand, gated), []);
  // The kubelet.conf fix as it was: the node picked from the palette, then the workflow (and its gate).
  const askingFirst = ts.createSourceFile('commands/k.ts', `import { kubeletConfWorkflow } from '../engine/workflows/kubeletConfWorkflow';
    export const c = defineCommand({}, (ctx) => async () => { const node = await ui.pick('which node?', []); const pool = ctx.sessions.open(ctx.inv); await kubeletConfWorkflow(ui, { node, run: { ssh: pool } }); });`, ts.ScriptTarget.ES2022, true);
  assert.deepEqual(ungated('commands/k.ts', askingFirst, gated).map((f) => f.what.replace(/\(.*\)/, '(…)')), ['asks (…) before its preflight']);
});
