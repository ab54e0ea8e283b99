/**
 * The editor-free half of quick fixes and hovers: which findings sit at a position or range, and how a
 * Finding's Fix becomes per-file edit lists (the fix's own file plus `otherFiles`). Unit-tested in plain
 * Node; src/editor/configProviders.ts turns the plans into a vscode.WorkspaceEdit.
 */
import type { Finding, Fix, Position, Range, TextEdit } from '../findings';
import { t } from '../l10n';

export interface FilePlan {
  /** The path as the finding or fix names it (workspace-relative in the editor). */
  path: string;
  edits: TextEdit[];
}

export interface FixPlan {
  title: string;
  files: FilePlan[];
  /** Set when the linter's fix is the only one for its finding: the editor marks it preferred. */
  preferred: boolean;
  rule: string;
}

export function comparePositions(a: Position, b: Position): number {
  return a.line - b.line || a.character - b.character;
}

/** True when the ranges share a point (touching counts, like VS Code's Range.intersection). */
export function rangesTouch(a: Range, b: Range): boolean {
  return comparePositions(a.start, b.end) <= 0 && comparePositions(b.start, a.end) <= 0;
}

export function rangeContains(range: Range, pos: Position): boolean {
  return comparePositions(range.start, pos) <= 0 && comparePositions(pos, range.end) <= 0;
}

/** Overlapping edits make a WorkspaceEdit fail as a whole; such a fix is not offered. */
export function editsOverlap(edits: TextEdit[]): boolean {
  const sorted = [...edits].sort((x, y) => comparePositions(x.range.start, y.range.start));
  for (let i = 1; i < sorted.length; i++) {
    if (comparePositions(sorted[i]!.range.start, sorted[i - 1]!.range.end) < 0) return true;
  }
  return false;
}

/** One fix as per-file edit lists; undefined when it has no edits or its edits collide. */
export function planFix(fix: Fix, finding: Finding, documentPath: string): FixPlan | undefined {
  const byFile = new Map<string, TextEdit[]>();
  const add = (path: string, edits: readonly TextEdit[] | undefined): void => {
    if (!edits?.length) return;
    byFile.set(path, [...(byFile.get(path) ?? []), ...edits]);
  };
  add(finding.file ?? documentPath, fix.edits);
  for (const [path, edits] of Object.entries(fix.otherFiles ?? {})) add(path, edits);
  if (byFile.size === 0) return undefined;
  for (const edits of byFile.values()) if (editsOverlap(edits)) return undefined;
  return {
    title: fix.title,
    files: [...byFile].map(([path, edits]) => ({ path, edits })),
    preferred: (finding.fixes?.length ?? 0) === 1,
    rule: finding.rule,
  };
}

/** The quick fixes for the findings touching `range`, in finding order. */
export function planFixes(findings: readonly Finding[], range: Range, documentPath: string): { finding: Finding; plan: FixPlan }[] {
  const out: { finding: Finding; plan: FixPlan }[] = [];
  for (const finding of findings) {
    if (!finding.fixes?.length || !rangesTouch(finding.range, range)) continue;
    for (const fix of finding.fixes) {
      const plan = planFix(fix, finding, documentPath);
      if (plan) out.push({ finding, plan });
    }
  }
  return out;
}

/** Findings whose range contains the position; a zero-width finding counts on its whole line. */
export function findingsAt(findings: readonly Finding[], pos: Position): Finding[] {
  return findings.filter((f) => {
    const empty = comparePositions(f.range.start, f.range.end) === 0;
    return empty ? f.range.start.line === pos.line : rangeContains(f.range, pos);
  });
}

/** Dedupe key for a finding (the same finding reached through two sources is shown once). */
export function findingKey(f: Finding): string {
  const r = f.range;
  return `${f.rule}|${r.start.line}:${r.start.character}-${r.end.line}:${r.end.character}|${f.message}`;
}

/** Words a keyword hover never explains (they appear in every rule title). */
const STOP_WORDS = new Set(['the', 'and', 'for', 'not', 'with', 'has', 'are', 'its', 'every', 'each', 'one', 'must', 'file', 'from', 'that', 'this', 'true', 'false', 'yes', 'no']);

export interface KeywordRule {
  id: string;
  title: string;
  why: string;
  docs?: string;
}

/**
 * Rules that mention a keyword: the word appears as a whole token in the rule's title or as a segment of
 * its id (`haproxy/balance-valid` explains `balance`). Case-insensitive; at most `limit` rules.
 */
export function rulesForKeyword<R extends KeywordRule>(rules: readonly R[], word: string, limit = 3): R[] {
  const w = word.trim();
  if (w.length < 3 || STOP_WORDS.has(w.toLowerCase()) || /^\d/.test(w)) return [];
  const escaped = w.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
  // A dotted path in a title (`apiServer.certSANs`) explains its last parts too.
  const inTitle = new RegExp(`(^|[^A-Za-z0-9_-])${escaped}($|[^A-Za-z0-9_-])`, 'i');
  const lower = w.toLowerCase();
  // `sandbox_image` and `sandboxImage` name the rule `containerd/sandbox-image`.
  const kebab = w.replace(/([a-z0-9])([A-Z])/g, '$1-$2').replace(/_/g, '-').toLowerCase();
  const hits = rules.filter((r) => {
    const id = r.id.toLowerCase();
    return inTitle.test(r.title) || id.split(/[/-]/).includes(lower) || id.slice(id.indexOf('/') + 1) === kebab;
  });
  return hits.slice(0, limit);
}

/** A file edited into nonsense can yield tens of thousands of findings; the editor shows the first ones. */
export const MAX_FINDINGS_PER_FILE = 500;

export function capFindings(findings: Finding[]): Finding[] {
  if (findings.length <= MAX_FINDINGS_PER_FILE) return findings;
  const kept = [...findings].sort((a, b) => a.range.start.line - b.range.start.line || a.range.start.character - b.range.start.character).slice(0, MAX_FINDINGS_PER_FILE);
  const last = kept[kept.length - 1]!.range.start.line;
  kept.push({
    rule: 'lint/too-many-findings',
    severity: 'info',
    message: t('{0} more findings after line {1} are not shown; fix the first ones (the file may be cut off or unbalanced) or run kubeadm-workbench lint for all of them.', findings.length - MAX_FINDINGS_PER_FILE, last + 1),
    range: { start: { line: last, character: 0 }, end: { line: last, character: 0 } },
  });
  return kept;
}

/**
 * The edits `lint --fix` applies in one pass: the fix of every finding that has exactly one, touches only its
 * own file, and does not overlap an edit already chosen (the rest waits for the next pass after a re-lint).
 */
export function chooseAutoFixes(findings: readonly Finding[], path: string): { edits: TextEdit[]; fixed: number } {
  const chosen: TextEdit[] = [];
  let fixed = 0;
  const candidates = findings.filter((f) => f.fixes?.length === 1 && (!f.file || f.file === path) && !Object.keys(f.fixes[0]!.otherFiles ?? {}).length && f.fixes[0]!.edits.length);
  for (const f of candidates) {
    const edits = f.fixes![0]!.edits;
    if (editsOverlap([...chosen, ...edits])) continue;
    chosen.push(...edits);
    fixed++;
  }
  return { edits: chosen, fixed };
}

/** Applies non-overlapping edits (0-based line/character positions) to a text. */
export function applyTextEdits(text: string, edits: readonly TextEdit[]): string {
  const starts = [0];
  for (let i = 0; i < text.length; i++) if (text.charCodeAt(i) === 10) starts.push(i + 1);
  const offset = (p: Position): number => (p.line >= starts.length ? text.length : Math.min(text.length, starts[p.line]! + p.character));
  const sorted = [...edits].sort((a, b) => comparePositions(b.range.start, a.range.start));
  let out = text;
  for (const e of sorted) out = out.slice(0, offset(e.range.start)) + e.newText + out.slice(offset(e.range.end));
  return out;
}

/** The line break a file is written with: CRLF when most of its line feeds follow a carriage return, else LF. */
export function lineBreakOf(text: string): '\r\n' | '\n' {
  let lf = 0;
  let crlf = 0;
  for (let i = text.indexOf('\n'); i >= 0; i = text.indexOf('\n', i + 1)) {
    lf++;
    if (i > 0 && text.charCodeAt(i - 1) === 13) crlf++;
  }
  return lf > 0 && crlf * 2 >= lf ? '\r\n' : '\n';
}

/**
 * The edits as they go into this file without changing its line breaks: the line breaks an edit inserts are the
 * file's own (a fix in a CRLF file adds CRLF lines), an edit never lands between a CR and its LF (it moves before the
 * CR), and an edit whose range would remove a lone CR (one the linters, which break lines at LF, see inside a line)
 * is left out — `skipped` counts those.
 */
export function editsKeepingLineBreaks(text: string, edits: readonly TextEdit[]): { edits: TextEdit[]; skipped: number } {
  const eol = lineBreakOf(text);
  const starts = [0];
  for (let i = 0; i < text.length; i++) if (text.charCodeAt(i) === 10) starts.push(i + 1);
  const offset = (p: Position): number => (p.line >= starts.length ? text.length : Math.min(text.length, starts[p.line]! + p.character));
  const back = (o: number): Position => {
    let line = 0;
    while (line + 1 < starts.length && starts[line + 1]! <= o) line++;
    return { line, character: o - starts[line]! };
  };
  // Between a CR and its LF: the edit goes before the CR, so the pair stays whole.
  const whole = (o: number): number => (o > 0 && text.charCodeAt(o - 1) === 13 && text.charCodeAt(o) === 10 ? o - 1 : o);
  const out: TextEdit[] = [];
  let skipped = 0;
  for (const e of edits) {
    const start = whole(offset(e.range.start));
    const end = Math.max(start, whole(offset(e.range.end)));
    if (/\r(?!\n)/.test(text.slice(start, end))) {
      skipped++;
      continue;
    }
    out.push({ range: { start: back(start), end: back(end) }, newText: e.newText.replace(/\r\n|\n/g, eol) });
  }
  return { edits: out, skipped };
}
