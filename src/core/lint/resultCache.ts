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

interface Entry {
  kind: FileKind;
  text: string;
  context: LintContext;
  siblings: Array<{ path: string; text: string }>;
  findings: Finding[];
}

const MAX_ENTRIES = 256;
const entries = new Map<string, Entry>();

function sameContext(e: Entry, context: LintContext): boolean {
  if (e.context.inventory !== context.inventory || e.context.inventoryPath !== context.inventoryPath) return false;
  const sib = context.siblings ?? [];
  if (sib.length !== e.siblings.length) return false;
  return sib.every((s, i) => s.path === e.siblings[i]!.path && s.text === e.siblings[i]!.text);
}

export function cachedLint(file: SourceFile, context: LintContext, kind: FileKind, run: () => Finding[]): Finding[] {
  const hit = entries.get(file.path);
  if (hit && hit.kind === kind && hit.text === file.text && sameContext(hit, context)) return [...hit.findings];
  const findings = run();
  entries.delete(file.path);
  if (entries.size >= MAX_ENTRIES) entries.delete(entries.keys().next().value!);
  entries.set(file.path, { kind, text: file.text, context: { ...context }, siblings: (context.siblings ?? []).map((s) => ({ path: s.path, text: s.text })), findings });
  return [...findings];
}

export function clearLintResultCache(): void {
  entries.clear();
}
