/**
 * A translation bundle checked before use. It is a file we ship, but a bundle edited by hand, truncated on disk or
 * from another version must never crash a command or show a placeholder unfilled: an entry that is not a string,
 * is empty, or whose `{0}`-style placeholders differ from its English key's is dropped — that message stays
 * English — and named; text that is not a JSON object gives no messages at all.
 */
import { errorMessage } from '../errors';

export interface BundleProblem {
  /** The English key, or undefined for a problem of the whole file. */
  key?: string;
  problem: string;
}

/** A bundle larger than this is not one we ship (ours is a few hundred kilobytes): refused unread. */
export const MAX_BUNDLE_CHARS = 8 * 1024 * 1024;

const POSITIONAL = /{(\d+)}/g;

/** The positional placeholders of a text, sorted and without repeats: `{1} or {0}, {0}` → `0,1`. */
export function placeholdersOf(text: string): string {
  if (!text.includes('{')) return '';
  const seen: number[] = [];
  for (const m of text.matchAll(POSITIONAL)) {
    const n = Number(m[1]);
    if (!seen.includes(n)) seen.push(n);
  }
  return seen.sort((a, b) => a - b).join(',');
}

/** The usable entries of a parsed bundle (`vscode.l10n.bundle`, or a bundle file's JSON) and what was dropped. */
export function checkedMessages(bundle: unknown): { messages: Map<string, string>; problems: BundleProblem[] } {
  const messages = new Map<string, string>();
  const problems: BundleProblem[] = [];
  if (bundle === null || typeof bundle !== 'object' || Array.isArray(bundle)) {
    problems.push({ problem: 'the bundle is not a JSON object of English text → translation' });
    return { messages, problems };
  }
  for (const [key, value] of Object.entries(bundle as Record<string, unknown>)) {
    if (typeof value !== 'string') problems.push({ key, problem: `its translation is ${value === null ? 'null' : typeof value}, not text` });
    else if (value.trim() === '') problems.push({ key, problem: 'its translation is empty' });
    else if (placeholdersOf(value) !== placeholdersOf(key)) problems.push({ key, problem: `its translation has the placeholders {${placeholdersOf(value)}}, the English text {${placeholdersOf(key)}}` });
    else messages.set(key, value);
  }
  return { messages, problems };
}

/** A bundle file's text, parsed and checked; never throws. */
export function parseBundleText(text: string): { messages: Map<string, string>; problems: BundleProblem[] } {
  if (text.length > MAX_BUNDLE_CHARS) return { messages: new Map(), problems: [{ problem: `the bundle is larger than ${MAX_BUNDLE_CHARS} characters` }] };
  let parsed: unknown;
  try {
    parsed = JSON.parse(text.charCodeAt(0) === 0xfeff ? text.slice(1) : text);
  } catch (e) {
    return { messages: new Map(), problems: [{ problem: `the bundle is not valid JSON (${errorMessage(e)})` }] };
  }
  return checkedMessages(parsed);
}
