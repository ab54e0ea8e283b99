/**
 * `kubeadm-workbench lint [--inventory FILE] [--format text|json|sarif] [--timeout-ms N] [--fix] PATH...`
 *
 * Lints every supported file (kind detected by name and content through the registry, like the editor)
 * with the inventory as context and the other files found as siblings for cross-file rules. Directories
 * are walked. Each file is linted under a time limit, on this thread (../engine/inProcessLint.ts: starting a worker
 * cost a one-shot run more than the lint; after a file is stopped the rest go to a fresh worker). Exit 1 when any
 * error, 0 otherwise, 2 on usage errors. `--fix` applies the unambiguous fixes (a finding with exactly one fix in its own file), re-linting
 * between passes, writes the files back and then reports what is left.
 */
import { promises as fs } from 'node:fs';
import { dirname, join, relative, resolve, sep } from 'node:path';
import { pathToFileURL } from 'node:url';
import type { Finding, Severity } from '../core/findings';
import type { Inventory } from '../core/inventory/types';
import type { FileKind, LintContext, RuleInfo, SourceFile } from '../core/lint/types';
import { applyTextEdits, chooseAutoFixes, editsKeepingLineBreaks } from '../core/lint/fixPlan';
import { siblingsOf, vrrpFilesElsewhere } from '../core/lint/siblings';
import { DEFAULT_LINT_TIMEOUT_MS, RUNNER_RULES, type LintRunner } from '../engine/lintRunner';
import { InProcessLintRunner } from '../engine/inProcessLint';
import { EXIT_FAILED, EXIT_OK, EXIT_USAGE, formatFinding, DEFAULT_READ_BYTES, INVENTORY_READ, type CliIo } from './io';
import { shownPath } from '../core/text/terminal';
import { readRegular, readRegularText } from '../adapters/fs/safeFile';
import { compileCacheDir } from './compileCache';
import { errorMessage } from '../core/errors';
import { catalogueLanguage, inEnglish, t } from '../core/l10n';
import { codePointOrderHolds, nameOrder } from '../core/text/nameOrder';
import { UsageError } from './args';
import { defineVerb, ownGrammar, usageText, type ListedVerbs } from './verb';

const usage = (): string => usageText(['kubeadm-workbench lint [--inventory FILE] [--format text|json|sarif] [--timeout-ms N] [--fix] PATH...']);

type Format = 'text' | 'json' | 'sarif';

export interface LintArgs {
  inventory?: string;
  format: Format;
  timeoutMs: number;
  /** Apply the fixes that are unambiguous (one fix, own file) and write the files back. */
  fix?: boolean;
  paths: string[];
}

/** One row of `--format json`: 1-based line and column. */
export interface JsonRow {
  file: string;
  line: number;
  column: number;
  severity: Severity;
  rule: string;
  /** English: the stable text scripts and CI match on, whatever the locale. */
  message: string;
  /** The message in the locale's language (LANG/LC_MESSAGES), when that is not English. */
  localizedMessage?: string;
}

/** A finding to report: in English for json/sarif with the localised text beside it, else as the locale says. */
interface Row {
  path: string;
  finding: Finding;
  localized?: Finding;
}

export function parseLintArgs(args: string[]): LintArgs | string {
  const out: LintArgs = { format: 'text', timeoutMs: DEFAULT_LINT_TIMEOUT_MS, paths: [] };
  for (let i = 0; i < args.length; i++) {
    const arg = args[i]!;
    const [flag, inline] = arg.startsWith('--') && arg.includes('=') ? [arg.slice(0, arg.indexOf('=')), arg.slice(arg.indexOf('=') + 1)] : [arg, undefined];
    const value = (): string | undefined => inline ?? args[++i];
    if (flag === '--inventory') {
      const v = value();
      if (!v) return t('--inventory needs a FILE');
      out.inventory = v;
    } else if (flag === '--format') {
      const v = value();
      if (v !== 'text' && v !== 'json' && v !== 'sarif') return v === undefined ? t('--format must be text, json or sarif (got nothing)') : t('--format must be text, json or sarif (got {0})', v);
      out.format = v;
    } else if (flag === '--timeout-ms') {
      const v = Number(value());
      if (!Number.isInteger(v) || v < 1) return t('--timeout-ms needs a positive whole number of milliseconds');
      out.timeoutMs = v;
    } else if (flag === '--fix') {
      out.fix = true;
    } else if (flag === '--') {
      out.paths.push(...args.slice(i + 1));
      break;
    } else if (flag.startsWith('-') && flag !== '-') {
      return t('unknown option {0}', flag);
    } else {
      out.paths.push(arg);
    }
  }
  if (out.paths.length === 0) return t('no PATH given');
  return out;
}

/** Folders a walk never enters. */
const SKIP_DIRS = new Set(['node_modules', '.git', '.hg', '.svn', 'dist', 'out', '.vscode-test']);
/** Larger files are reported as unsupported by a walk (a file named explicitly is still linted). */
const MAX_WALK_BYTES = 8 * 1024 * 1024;
/** Context files (siblings read from the inventory's folder) are fewer and smaller. */
const MAX_CONTEXT_FILES = 500;
const MAX_CONTEXT_BYTES = 1024 * 1024;
const MAX_FIX_PASSES = 5;
/**
 * Detecting the files' kinds and parsing the inventory run under a limit of their own, not --timeout-ms,
 * which is the files' (a small limit would otherwise skip files as unsupported or lose the inventory).
 */
const SETUP_TIMEOUT_MS = DEFAULT_LINT_TIMEOUT_MS;
const CONTEXT_NAME = /\.(cfg|conf|ya?ml|toml|json)$/i;

interface Candidate {
  path: string;
  explicit: boolean;
}

async function collect(paths: string[]): Promise<{ files: Candidate[]; missing: string[] }> {
  const files: Candidate[] = [];
  const missing: string[] = [];
  const seen = new Set<string>();
  const add = (path: string, explicit: boolean): void => {
    const key = resolve(path);
    if (seen.has(key)) return;
    seen.add(key);
    files.push({ path, explicit });
  };
  const walk = async (dir: string): Promise<void> => {
    const entries = await fs.readdir(dir, { withFileTypes: true }).catch(() => []);
    // localeCompare's order, without loading ICU's collation for plain names (../core/text/nameOrder.ts)
    const byName = nameOrder(codePointOrderHolds(process.env));
    entries.sort((a, b) => byName(a.name, b.name));
    for (const e of entries) {
      const p = join(dir, e.name);
      if (e.isDirectory()) {
        if (!SKIP_DIRS.has(e.name)) await walk(p);
      } else if (e.isFile()) {
        add(p, false);
      }
    }
  };
  for (const p of paths) {
    const st = await fs.stat(p).catch(() => undefined);
    if (!st) missing.push(p);
    else if (st.isDirectory()) await walk(p);
    else add(p, true);
  }
  return { files, missing };
}

/** inventory.yaml (or .yml) in the folder of the first path or any folder above it. */
export async function findInventoryAbove(path: string): Promise<string | undefined> {
  const st = await fs.stat(path).catch(() => undefined);
  let dir = resolve(st?.isDirectory() ? path : dirname(path));
  for (;;) {
    for (const name of ['inventory.yaml', 'inventory.yml']) {
      const candidate = join(dir, name);
      if ((await fs.stat(candidate).catch(() => undefined))?.isFile()) return candidate;
    }
    const up = dirname(dir);
    if (up === dir) return undefined;
    dir = up;
  }
}

interface Linted {
  file: SourceFile;
  kind: FileKind;
}

/**
 * Lint's grammar is its own (`--` ends the options, `-` is a path): the whole argv reaches parseLintArgs, whose
 * messages scripts match. Loads no SSH or cluster code (defineVerb loads those only for verbs that declare them).
 */
export const runLint = defineVerb({
  words: 'lint', needs: {}, usage,
  ...ownGrammar(parseLintArgs),
  run: async ({ options: parsed, io }) => {
    // The linters load first, so that the first file's time limit counts its lint only.
    const cacheDir = compileCacheDir();
    const runner = new InProcessLintRunner({ timeoutMs: parsed.timeoutMs, timeoutSeverity: 'error', ...(cacheDir ? { compileCacheDir: cacheDir } : {}) });
    runner.warmUp();
    try {
      return await lintFiles(parsed, runner, io);
    } finally {
      runner.dispose();
    }
  },
});

async function lintFiles(parsed: LintArgs, runner: LintRunner, io: CliIo): Promise<number> {
  const { files: candidates, missing } = await collect(parsed.paths);
  if (missing.length) throw new UsageError(t('no such file or directory: {0}', missing.map(shownPath).join(', ')));

  // The inventory: given, or found in or above the first path.
  const inventoryPath = parsed.inventory ?? (await findInventoryAbove(parsed.paths[0]!));
  const context: LintContext = {};
  if (inventoryPath) {
    let text: string;
    try {
      text = await io.readFile(inventoryPath, INVENTORY_READ);
    } catch (e) {
      io.stderr(`${t('cannot read inventory {0}: {1}', shownPath(inventoryPath), errorMessage(e))}\n`);
      return EXIT_USAGE;
    }
    const inventory: Inventory | undefined = (await runner.parseInventory({ path: inventoryPath, text }, SETUP_TIMEOUT_MS)).inventory;
    if (inventory) context.inventory = inventory;
    else io.stderr(`${t('{0}: not a usable inventory; rules that compare against it are skipped', shownPath(inventoryPath))}\n`);
    context.inventoryPath = inventoryPath;
  }

  // Read and detect (by name and content, so a binary haproxy.cfg is still reported); unsupported files of a
  // walk are skipped silently, named ones with a note.
  const supported: Linted[] = [];
  for (const c of candidates) {
    if (!c.explicit) {
      const size = (await fs.stat(c.path).catch(() => undefined))?.size ?? 0;
      if (size > MAX_WALK_BYTES) continue;
    }
    let text: string;
    try {
      text = await io.readFile(c.path);
    } catch (e) {
      io.stderr(`${t('cannot read {0}: {1}', shownPath(c.path), errorMessage(e))}\n`);
      return EXIT_USAGE;
    }
    const kind = await safeDetect(runner, c.path, text);
    if (!kind) {
      if (c.explicit) io.stderr(`${t('{0}: not a supported kind of file, skipped', shownPath(c.path))}\n`);
      continue;
    }
    supported.push({ file: { path: c.path, text }, kind });
  }

  // Cross-file rules see the other config files of the inventory's folder too, as the editor sees the
  // workspace, even when only one file is linted.
  const contextOnly = inventoryPath ? await readContextFiles(runner, dirname(inventoryPath), new Set(candidates.map((c) => resolve(c.path)))) : [];
  const pool = [...supported, ...contextOnly].filter((o) => o.kind !== 'inventory').map((o) => ({ path: resolve(o.file.path), file: o.file }));

  const hostNames = new Set(context.inventory?.hosts.map((h) => h.name) ?? []);
  const results: { path: string; findings: Finding[]; localized?: Finding[] }[] = [];
  // json and sarif keep English messages (what scripts match on) and add the locale's beside them
  const bilingual = parsed.format !== 'text' && catalogueLanguage() !== 'en';
  if (parsed.fix) {
    for (const s of supported) {
      const siblings = siblingsOf(resolve(s.file.path), pool, hostNames).map((o) => o.file);
      const vrrpElsewhere = vrrpFilesElsewhere(resolve(s.file.path), pool, hostNames).map((o) => o.file);
      // The fixes edit decoded text: written back, a file that is not valid UTF-8 would have every byte
      // the decoder replaced (0xE9 in a comment → EF BF BD) corrupted, far from what was fixed.
      const original = s.file.text;
      if (!(await decodesExactly(s.file.path, original))) {
        io.stderr(`${t('{0}: not valid UTF-8; --fix leaves it unchanged (convert it to UTF-8 to have it fixed)', shownPath(s.file.path))}\n`);
        continue;
      }
      if (!original.includes('\n') && original.includes('\r')) {
        // Lines broken by lone CRs (classic Mac): the rules see one line, and a fix would rewrite across them.
        io.stderr(`${t('{0}: its lines end with a lone CR; --fix leaves it unchanged (convert it to LF or CRLF line ends to have it fixed)', shownPath(s.file.path))}\n`);
        continue;
      }
      const fixed = await autoFix(s, runner, { ...context, siblings, ...(vrrpElsewhere.length ? { vrrpElsewhere } : {}) });
      if (!fixed) continue;
      try {
        // Never through a link: a linked file is refused here, its target left as it was.
        await io.writeFile(s.file.path, s.file.text);
      } catch (e) {
        io.stderr(`${t('--fix did not write {0}', errorMessage(e))}\n`);
        s.file.text = original; // what is reported is the file as it is
        continue;
      }
      io.stderr(`${fixed === 1 ? t('{0}: fixed 1 problem', shownPath(s.file.path)) : t('{0}: fixed {1} problems', shownPath(s.file.path), fixed)}\n`);
    }
  }
  for (const s of supported) {
    // Only the files of the same config set: a generated/ copy is not compared with the live files.
    const siblings = siblingsOf(resolve(s.file.path), pool, hostNames).map((o) => o.file);
    // A keepalived.conf is also paired by VRRP instance with the keepalived files of other config sets (lb1/, lb2/).
    const vrrpElsewhere = vrrpFilesElsewhere(resolve(s.file.path), pool, hostNames).map((o) => o.file);
    const outcome = await runner.lint(s.file, { ...context, siblings, ...(vrrpElsewhere.length ? { vrrpElsewhere } : {}) }, { kind: s.kind, english: bilingual });
    results.push(bilingual ? bilingualResult(s.file.path, outcome.findings, outcome.english) : { path: s.file.path, findings: sortFindings(outcome.findings) });
  }

  const rows: Row[] = results.flatMap((r) => r.findings.map((f, i) => ({ path: f.file ?? r.path, finding: f, ...(r.localized?.[i] ? { localized: r.localized[i] } : {}) })));
  if (parsed.format === 'json') io.stdout(JSON.stringify(rows.map((r) => toJsonRow(r.path, r.finding, r.localized)), null, 2) + '\n');
  else if (parsed.format === 'sarif') io.stdout(JSON.stringify(toSarif(rows, await lintRules()), null, 2) + '\n');
  else {
    for (const r of rows) io.stdout(formatFinding(r.path, r.finding) + '\n');
    const counts = countBySeverity(rows.map((r) => r.finding));
    io.stderr(`${supported.length === 1 ? t('1 file checked: {0} error(s), {1} warning(s), {2} info', counts.error, counts.warning, counts.info) : t('{0} files checked: {1} error(s), {2} warning(s), {3} info', supported.length, counts.error, counts.warning, counts.info)}\n`);
  }
  return rows.some((r) => r.finding.severity === 'error') ? EXIT_FAILED : EXIT_OK;
}

/** True when the file's bytes are exactly the UTF-8 encoding of `text` (nothing was replaced in decoding). */
async function decodesExactly(path: string, text: string): Promise<boolean> {
  const bytes = await readRegular(path, { maxBytes: DEFAULT_READ_BYTES }).catch(() => undefined);
  return bytes !== undefined && Buffer.from(text, 'utf8').equals(bytes);
}

/**
 * Applies unambiguous fixes to `s.file.text` in place, re-linting between passes; returns how many were fixed. The
 * file keeps its line breaks: a fix writes them as the file does (CRLF in a CRLF file), and a fix that would remove a
 * lone CR is left to the user (editsKeepingLineBreaks).
 */
async function autoFix(s: Linted, runner: LintRunner, context: LintContext): Promise<number> {
  let total = 0;
  for (let pass = 0; pass < MAX_FIX_PASSES; pass++) {
    const outcome = await runner.lint(s.file, context, { kind: s.kind });
    if (outcome.status !== 'ok') break;
    const keeping = outcome.findings.flatMap((f) => {
      if (f.fixes?.length !== 1) return [f];
      const kept = editsKeepingLineBreaks(s.file.text, f.fixes[0]!.edits);
      return kept.skipped ? [] : [{ ...f, fixes: [{ ...f.fixes[0]!, edits: kept.edits }] }];
    });
    const { edits, fixed } = chooseAutoFixes(keeping, s.file.path);
    if (!fixed) break;
    const next = applyTextEdits(s.file.text, edits);
    if (next === s.file.text) break;
    s.file.text = next;
    total += fixed;
  }
  return total;
}

/** Supported files under `dir` that are not linted themselves: context for cross-file rules only. */
async function readContextFiles(runner: LintRunner, dir: string, linted: Set<string>): Promise<Linted[]> {
  const { files } = await collect([dir]);
  const out: Linted[] = [];
  // Only names a config file can have (as the editor's workspace scan), so a big repository costs little.
  for (const f of files.filter((x) => CONTEXT_NAME.test(x.path)).slice(0, MAX_CONTEXT_FILES)) {
    if (linted.has(resolve(f.path))) continue;
    const size = (await fs.stat(f.path).catch(() => undefined))?.size ?? Infinity;
    if (size > MAX_CONTEXT_BYTES) continue;
    const text = await readRegularText(f.path, { maxBytes: MAX_CONTEXT_BYTES }).catch(() => undefined);
    const kind = text === undefined ? undefined : await safeDetect(runner, f.path, text);
    if (text !== undefined && kind) out.push({ file: { path: f.path, text }, kind });
  }
  return out;
}

/** The file's kind (undefined when none, or when detection failed), detected in the worker. */
function safeDetect(runner: LintRunner, path: string, text: string): Promise<FileKind | undefined> {
  // Detection is meant to be cheap; it only sees the start of very large files.
  return runner.detect({ path, text: text.length > 1_000_000 ? text.slice(0, 1_000_000) : text }, SETUP_TIMEOUT_MS);
}

/**
 * The English findings of a file with their localised twins. Both come from one worker, the English from a second
 * run in English, so they are the same findings in the same order; a timeout or a crash has no English run and its
 * one finding is reported as it is.
 */
function bilingualResult(path: string, localized: Finding[], english: Finding[] | undefined): { path: string; findings: Finding[]; localized?: Finding[] } {
  if (!english || english.length !== localized.length || english.some((e, i) => e.rule !== localized[i]!.rule)) return { path, findings: sortFindings(localized) };
  const pairs = [...english.map((e, i) => [e, localized[i]!] as const)].sort(([a], [b]) => a.range.start.line - b.range.start.line || a.range.start.character - b.range.start.character);
  return { path, findings: pairs.map((p) => p[0]), localized: pairs.map((p) => p[1]) };
}

function sortFindings(findings: Finding[]): Finding[] {
  return [...findings].sort((a, b) => a.range.start.line - b.range.start.line || a.range.start.character - b.range.start.character);
}

function countBySeverity(findings: Finding[]): Record<Severity, number> {
  const counts: Record<Severity, number> = { error: 0, warning: 0, info: 0 };
  for (const f of findings) counts[f.severity]++;
  return counts;
}

export function toJsonRow(path: string, f: Finding, localized?: Finding): JsonRow {
  return { file: path, line: f.range.start.line + 1, column: f.range.start.character + 1, severity: f.severity, rule: f.rule, message: f.message, ...(localized ? { localizedMessage: localized.message } : {}) };
}

const SARIF_LEVEL: Record<Severity, 'error' | 'warning' | 'note'> = { error: 'error', warning: 'warning', info: 'note' };

/** Every rule the tool can report: the registry's and the runner's own (the registry loads here, for SARIF only). */
export async function lintRules(): Promise<RuleInfo[]> {
  const { allRules } = await import('../core/lint/registry.js');
  const rules = new Map<string, RuleInfo>();
  for (const r of [...allRules(), ...RUNNER_RULES]) if (!rules.has(r.id)) rules.set(r.id, r);
  return [...rules.values()];
}

function artifactUri(path: string): string {
  const abs = resolve(path);
  const rel = relative(process.cwd(), abs);
  if (!rel.startsWith('..') && !rel.startsWith(sep) && rel !== '') return rel.split(sep).map(encodeURIComponent).join('/');
  return pathToFileURL(abs).href;
}

/**
 * SARIF 2.1.0, one run, the rules from the registry (lintRules()). The text is English (SARIF's default language, what
 * code scanning shows and matches); under another locale each rule and result carries the localised text in its
 * property bag (`localizedTitle`, `localizedWhy`, `localizedMessage`).
 */
export function toSarif(rows: Row[], known: readonly RuleInfo[]): unknown {
  const localizedRules = catalogueLanguage() === 'en' ? undefined : new Map(known.map((r) => [r.id, { localizedTitle: r.title, localizedWhy: r.why }]));
  // a declared rule's title and why are read when read: in English here
  const rules = inEnglish(() => known.map((r): RuleInfo => ({ ...r })));
  // Findings of rules a linter did not declare still get a rule entry, so ruleIndex is always valid.
  for (const { finding } of rows) {
    if (!rules.some((r) => r.id === finding.rule)) rules.push({ id: finding.rule, severity: finding.severity, title: finding.message, why: finding.why ?? finding.message, ...(finding.docs ? { docs: finding.docs } : {}) });
  }
  const index = new Map(rules.map((r, i) => [r.id, i]));
  return {
    $schema: 'https://json.schemastore.org/sarif-2.1.0.json',
    version: '2.1.0',
    runs: [
      {
        tool: {
          driver: {
            name: 'kubeadm-workbench',
            informationUri: 'https://kubernetes.io/docs/setup/production-environment/tools/kubeadm/high-availability/',
            rules: rules.map((r) => ({
              id: r.id,
              name: ruleName(r.id),
              shortDescription: { text: r.title },
              fullDescription: { text: r.why },
              ...(r.docs ? { helpUri: r.docs } : {}),
              help: { text: r.why },
              defaultConfiguration: { level: SARIF_LEVEL[r.severity] },
              ...(localizedRules?.has(r.id) ? { properties: localizedRules.get(r.id) } : {}),
            })),
          },
        },
        columnKind: 'utf16CodeUnits',
        results: rows.map(({ path, finding: f, localized }) => ({
          ruleId: f.rule,
          ruleIndex: index.get(f.rule)!,
          level: SARIF_LEVEL[f.severity],
          message: { text: f.why ? `${f.message} ${f.why}` : f.message },
          ...(localized ? { properties: { localizedMessage: localized.why ? `${localized.message} ${localized.why}` : localized.message } } : {}),
          locations: [
            {
              physicalLocation: {
                artifactLocation: { uri: artifactUri(path) },
                region: {
                  startLine: f.range.start.line + 1,
                  startColumn: f.range.start.character + 1,
                  endLine: Math.max(f.range.end.line, f.range.start.line) + 1,
                  endColumn: endColumn(f),
                },
              },
            },
          ],
        })),
      },
    ],
  };
}

function endColumn(f: Finding): number {
  const sameLine = f.range.end.line <= f.range.start.line;
  return sameLine ? Math.max(f.range.end.character, f.range.start.character) + 1 : f.range.end.character + 1;
}

/** `haproxy/frontend-mode-tcp` → `HaproxyFrontendModeTcp` (SARIF's optional readable name). */
function ruleName(id: string): string {
  return id
    .split(/[^A-Za-z0-9]+/)
    .filter(Boolean)
    .map((w) => w[0]!.toUpperCase() + w.slice(1))
    .join('');
}

/** What `kubeadm-workbench --help` lists of this file (ListedVerbs, ./verb.ts; npm run gen:tables copies it into main.ts). */
export const verbs = {
  lint: { summary: () => `lint [--inventory F] [--format text|json|sarif] [--fix] PATH...   ${t('check config files against the rules and the inventory')}`, run: runLint },
} satisfies ListedVerbs;
