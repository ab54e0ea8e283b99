/**
 * Findings of unchanged text: the editor re-lints a file on every focus, save and sibling change, mostly with
 * the same text and context. A result is reused when the file's content hash, its kind and the context (the
 * same inventory object, inventory path and sibling texts) are unchanged; one entry per path, a bounded number of paths.
 */
import { createHash } from 'node:crypto';
import type { Finding } from '../findings';
import type { FileKind, LintContext, SourceFile } from './types';

interface Entry {
  kind: FileKind;
  hash: string;
  context: LintContext;
  siblings: Array<{ path: string; text: string }>;
  findings: Finding[];
}

const MAX_ENTRIES = 256;
const entries = new Map<string, Entry>();

export function contentHash(text: string): string {
  return createHash('sha1').update(text).digest('base64');
}

function sameContext(e: Entry, context: LintContext): boolean {
  if (e.context.inventory !== context.inventory || e.context.inventoryPath !== context.inventoryPath) return false;
  const sib = context.siblings ?? [];
  if (sib.length !== e.siblings.length) return false;
  // sibling texts compare by value (equal strings are compared without hashing them again)
  return sib.every((s, i) => s.path === e.siblings[i]!.path && s.text === e.siblings[i]!.text);
}

export function cachedLint(file: SourceFile, context: LintContext, kind: FileKind, run: () => Finding[]): Finding[] {
  const hash = contentHash(file.text);
  const hit = entries.get(file.path);
  if (hit && hit.kind === kind && hit.hash === hash && sameContext(hit, context)) return [...hit.findings];
  const findings = run();
  entries.delete(file.path);
  if (entries.size >= MAX_ENTRIES) entries.delete(entries.keys().next().value!);
  entries.set(file.path, { kind, hash, context: { ...context }, siblings: (context.siblings ?? []).map((s) => ({ path: s.path, text: s.text })), findings });
  return [...findings];
}

export function clearLintResultCache(): void {
  entries.clear();
}
