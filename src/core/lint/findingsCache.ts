/**
 * The editor's findings of closed config files, kept across reloads so that Problems holds them again at once
 * instead of after the workspace is linted anew. An entry is keyed by a hash of everything a lint's result depends
 * on — the linter build, the file's kind, path and text, the inventory and the sibling files it is checked against —
 * so a hit is the result a new lint would give. The file lives in the extension's storage, which is untrusted state
 * like any file: every entry is validated field by field on read (types, bounds, declared rule ids, paths confined to
 * the workspace) and dropped when it does not pass; a file of another format or linter build is ignored whole.
 */
import { createHash } from 'node:crypto';
import type { Finding, Fix, Range, TextEdit } from '../findings';
import type { FileKind, LintContext, SourceFile } from './types';
import { catalogueLanguage, t } from '../l10n';

export const CACHE_FORMAT = 1;
/** Bounds of what is read (a larger file is not parsed) and written (the oldest files beyond are left out). */
export const MAX_CACHE_BYTES = 8 * 1024 * 1024;
export const MAX_CACHE_FILES = 500;
const MAX_FINDINGS = 1_000;
const MAX_FIXES = 20;
const MAX_EDITS = 500;
const MAX_TEXT = 64 * 1024;
const MAX_POSITION = 10_000_000;

export interface CachedLint {
  /** lintCacheKey of the lint that gave these findings. */
  key: string;
  findings: Finding[];
}

/** Path (workspace-relative, as the rules see it) → its last lint. */
export type FindingsCache = Map<string, CachedLint>;

/**
 * The hash of one lint's inputs. `linter` names the linter build (a change of the worker bundle is a miss for every
 * file); siblings count in path order, so the order the workspace was scanned in does not matter. The findings'
 * messages are in the catalogue's language, so a lint in another language is a miss.
 */
export function lintCacheKey(linter: string, kind: FileKind, file: SourceFile, context: LintContext): string {
  const siblings = [...(context.siblings ?? [])].sort((a, b) => (a.path < b.path ? -1 : a.path > b.path ? 1 : 0)).map((s) => [s.path, s.text]);
  const h = createHash('sha256');
  h.update(JSON.stringify([CACHE_FORMAT, linter, catalogueLanguage(), kind, file.path, file.text, context.inventoryPath ?? null, context.inventory ?? null, siblings]));
  return h.digest('hex');
}

const isObject = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);
const isText = (v: unknown, max = MAX_TEXT): v is string => typeof v === 'string' && v.length <= max;
const isCount = (v: unknown): v is number => Number.isInteger(v) && (v as number) >= 0 && (v as number) <= MAX_POSITION;

/** A workspace-relative path: no scheme, not absolute, no `..` segment, no control character. */
export function isConfinedPath(v: unknown): v is string {
  if (!isText(v, 1000) || v === '') return false;
  if (/^[a-z][a-z0-9+.-]*:/i.test(v) || v.startsWith('/') || v.startsWith('\\') || /[\u0000-\u001f]/.test(v)) return false;
  return !v.split(/[\\/]/).includes('..');
}

function range(v: unknown): Range | undefined {
  if (!isObject(v) || !isObject(v.start) || !isObject(v.end)) return undefined;
  const { start, end } = v;
  if (!isCount(start.line) || !isCount(start.character) || !isCount(end.line) || !isCount(end.character)) return undefined;
  return { start: { line: start.line, character: start.character }, end: { line: end.line, character: end.character } };
}

function edits(v: unknown): TextEdit[] | undefined {
  if (!Array.isArray(v) || v.length > MAX_EDITS) return undefined;
  const out: TextEdit[] = [];
  for (const e of v) {
    const r = isObject(e) ? range(e.range) : undefined;
    if (!r || !isObject(e) || !isText(e.newText)) return undefined;
    out.push({ range: r, newText: e.newText });
  }
  return out;
}

function fix(v: unknown): Fix | undefined {
  if (!isObject(v) || !isText(v.title, 500)) return undefined;
  const own = edits(v.edits);
  if (!own) return undefined;
  const out: Fix = { title: v.title, edits: own };
  if (v.otherFiles !== undefined) {
    if (!isObject(v.otherFiles)) return undefined;
    const other: Record<string, TextEdit[]> = {};
    for (const [path, list] of Object.entries(v.otherFiles)) {
      const e = edits(list);
      if (!isConfinedPath(path) || !e) return undefined;
      other[path] = e;
    }
    out.otherFiles = other;
  }
  return out;
}

function finding(v: unknown, isRule: (id: string) => boolean): Finding | undefined {
  if (!isObject(v) || !isText(v.rule, 200) || !isRule(v.rule)) return undefined;
  if (v.severity !== 'error' && v.severity !== 'warning' && v.severity !== 'info') return undefined;
  const r = range(v.range);
  if (!r || !isText(v.message, 8_000)) return undefined;
  const out: Finding = { rule: v.rule, severity: v.severity, message: v.message, range: r };
  if (v.why !== undefined) {
    if (!isText(v.why, 8_000)) return undefined;
    out.why = v.why;
  }
  if (v.docs !== undefined) {
    if (!isText(v.docs, 1000) || !/^https:\/\/[^\s]+$/.test(v.docs)) return undefined;
    out.docs = v.docs;
  }
  if (v.file !== undefined) {
    if (!isConfinedPath(v.file)) return undefined;
    out.file = v.file;
  }
  if (v.fixes !== undefined) {
    if (!Array.isArray(v.fixes) || v.fixes.length > MAX_FIXES) return undefined;
    const fixes: Fix[] = [];
    for (const f of v.fixes) {
      const ok = fix(f);
      if (!ok) return undefined;
      fixes.push(ok);
    }
    out.fixes = fixes;
  }
  return out;
}

export interface CacheReadReport {
  cache: FindingsCache;
  /** Entries dropped because they did not validate (for the log). */
  dropped: number;
  /** Why the whole file was ignored, when it was. */
  ignored?: string;
}

/**
 * Reads a cache file's text. `linter` must be the build that wrote it; `isRule` says which rule ids exist (a finding
 * naming another is dropped with its entry). Nothing of an entry that fails survives: the file is linted anew.
 */
export function parseFindingsCache(text: string, linter: string, isRule: (id: string) => boolean): CacheReadReport {
  const cache: FindingsCache = new Map();
  if (text.length > MAX_CACHE_BYTES) return { cache, dropped: 0, ignored: t('larger than {0} bytes', MAX_CACHE_BYTES) };
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch {
    return { cache, dropped: 0, ignored: t('not JSON') };
  }
  if (!isObject(json) || json.format !== CACHE_FORMAT) return { cache, dropped: 0, ignored: t('another format') };
  if (json.linter !== linter) return { cache, dropped: 0, ignored: t('written by another linter build') };
  if (!isObject(json.files)) return { cache, dropped: 0, ignored: t('no files') };
  let dropped = 0;
  for (const [path, entry] of Object.entries(json.files)) {
    if (cache.size >= MAX_CACHE_FILES) {
      dropped++;
      continue;
    }
    const ok = isConfinedPath(path) && isObject(entry) && typeof entry.key === 'string' && /^[0-9a-f]{64}$/.test(entry.key) && Array.isArray(entry.findings) && entry.findings.length <= MAX_FINDINGS;
    const findings = ok ? (entry.findings as unknown[]).map((f) => finding(f, isRule)) : [];
    if (!ok || findings.some((f) => f === undefined)) {
      dropped++;
      continue;
    }
    cache.set(path, { key: entry.key as string, findings: findings as Finding[] });
  }
  return { cache, dropped };
}

/** The cache file's text: at most MAX_CACHE_FILES files and MAX_CACHE_BYTES (files past the bound are left out). */
export function serializeFindingsCache(cache: FindingsCache, linter: string): string {
  const files: Record<string, CachedLint> = {};
  let bytes = 64;
  let n = 0;
  for (const [path, entry] of cache) {
    if (!isConfinedPath(path) || n >= MAX_CACHE_FILES) continue;
    const size = JSON.stringify(entry).length + path.length + 8;
    if (bytes + size > MAX_CACHE_BYTES) continue;
    files[path] = { key: entry.key, findings: entry.findings };
    bytes += size;
    n++;
  }
  return JSON.stringify({ format: CACHE_FORMAT, linter, files });
}
