/**
 * Findings of unchanged text: the editor re-lints a file on every focus, save and sibling change, mostly with
 * the same text and context. A result is reused when the file's text, its kind and the context (the same
 * inventory object, inventory path and sibling texts) are unchanged; one entry per path, a bounded number of paths.
 *
 * The entry keeps the text it was made from and compares it whole, instead of a hash of it: comparing two strings
 * of equal length is one pass over memory and no comparison at all when they are one object (the editor sends the
 * same document text again), where SHA-1 of a 10,000-line haproxy.cfg took about 0.35 ms of every lint that
 * missed; and an equal result is never reused for a different text. The texts are the files the editor holds open.
 */
import type { Finding } from '../findings';
import type { FileKind, LintContext, SourceFile } from './types';
import { onCatalogueChange } from '../l10n';

interface Entry {
  kind: FileKind;
  text: string;
  context: LintContext;
  siblings: Array<{ path: string; text: string }>;
  /** The keepalived files of other config sets the context carried (compared like the siblings). */
  elsewhere: Array<{ path: string; text: string }>;
  findings: Finding[];
}

/**
 * At most 256 paths, and at most 32 M characters of texts kept (a workspace of large files would otherwise keep a
 * copy of each of them as long as the extension runs); the least recently linted path goes first.
 */
const MAX_ENTRIES = 256;
const MAX_CHARS = 32_000_000;
const entries = new Map<string, Entry>();
let chars = 0;
// the findings' messages are in the language of the catalogue when they were made: another language re-lints
onCatalogueChange(() => {
  entries.clear();
  chars = 0;
});

const charsOf = (e: Entry): number => [...e.siblings, ...e.elsewhere].reduce((n, s) => n + s.text.length, e.text.length);

function drop(path: string): void {
  const e = entries.get(path);
  if (!e) return;
  chars -= charsOf(e);
  entries.delete(path);
}

function sameContext(e: Entry, context: LintContext): boolean {
  if (e.context.inventory !== context.inventory || e.context.inventoryPath !== context.inventoryPath) return false;
  return sameFiles(context.siblings ?? [], e.siblings) && sameFiles(context.vrrpElsewhere ?? [], e.elsewhere);
}

function sameFiles(now: readonly SourceFile[], then: ReadonlyArray<{ path: string; text: string }>): boolean {
  return now.length === then.length && now.every((s, i) => s.path === then[i]!.path && s.text === then[i]!.text);
}

export function cachedLint(file: SourceFile, context: LintContext, kind: FileKind, run: () => Finding[]): Finding[] {
  const hit = entries.get(file.path);
  if (hit && hit.kind === kind && hit.text === file.text && sameContext(hit, context)) {
    // the most recently linted path goes last, the first to go is the least recently linted
    entries.delete(file.path);
    entries.set(file.path, hit);
    return [...hit.findings];
  }
  const findings = run();
  drop(file.path);
  const entry: Entry = { kind, text: file.text, context: { ...context }, siblings: (context.siblings ?? []).map((s) => ({ path: s.path, text: s.text })), elsewhere: (context.vrrpElsewhere ?? []).map((s) => ({ path: s.path, text: s.text })), findings };
  const size = charsOf(entry);
  while (entries.size && (entries.size >= MAX_ENTRIES || chars + size > MAX_CHARS)) drop(entries.keys().next().value!);
  entries.set(file.path, entry);
  chars += size;
  return [...findings];
}

export function clearLintResultCache(): void {
  entries.clear();
  chars = 0;
}

/** What the cache holds: paths and the characters of text (files and siblings) kept: for tests. */
export function lintResultCacheSize(): { paths: number; chars: number } {
  return { paths: entries.size, chars };
}
