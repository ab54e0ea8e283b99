/**
 * The parsed sections of haproxy.cfg kept by their text, so a re-lint re-parses only the sections an edit touched.
 *
 * A Map keyed by the text hashes all of it on every lookup, which on a cold lint of a large file cost as much as
 * tokenizing it. Entries are found instead by a fingerprint of a few dozen characters — the text's length, both
 * ends of its first line (a section's header, which names it) and its last characters — and a lookup then
 * compares the texts of the entries with that fingerprint. Two sections share one only with the same length and
 * the same characters there.
 */

/** How much of each end of the first line, and of the end of the text, the fingerprint reads. */
const HEADER_END_CHARS = 16;
const TAIL_CHARS = 8;

/** The fingerprint of text[from, to). */
export function fingerprint(text: string, from: number, to: number): number {
  let headerEnd = text.indexOf('\n', from);
  if (headerEnd < 0 || headerEnd > to) headerEnd = to;
  // a long header line is read at both ends: names often share a long prefix or a long suffix, rarely both
  const headStart = Math.min(headerEnd, from + HEADER_END_CHARS);
  let h = to - from;
  for (let i = from; i < headStart; i++) h = (Math.imul(h, 31) + text.charCodeAt(i)) | 0;
  for (let i = Math.max(headStart, headerEnd - HEADER_END_CHARS); i < headerEnd; i++) h = (Math.imul(h, 31) + text.charCodeAt(i)) | 0;
  for (let i = Math.max(from, to - TAIL_CHARS); i < to; i++) h = (Math.imul(h, 31) + text.charCodeAt(i)) | 0;
  // 30 bits: a small integer to V8 (a Map key that is not a boxed number)
  return h & 0x3fffffff;
}

/** Values with the text they were made from, by fingerprint; bounded so a long editing session does not grow it forever. */
export class TextCache<T extends { readonly text: string }> {
  /** One value per fingerprint, or all of those that share it. */
  private readonly entries = new Map<number, T | T[]>();
  private count = 0;

  constructor(private readonly limit: number) {}

  /** The value made from text[from, to), whose fingerprint is fp. */
  get(fp: number, text: string, from: number, to: number): T | undefined {
    const entry = this.entries.get(fp);
    if (entry === undefined) return undefined;
    if (!Array.isArray(entry)) return sameText(entry.text, text, from, to) ? entry : undefined;
    return entry.find((v) => sameText(v.text, text, from, to));
  }

  /** Keeps a value (not already kept) under the fingerprint of its text. */
  set(fp: number, value: T): void {
    if (this.count >= this.limit) this.clear();
    this.count++;
    const entry = this.entries.get(fp);
    if (entry === undefined) this.entries.set(fp, value);
    else if (Array.isArray(entry)) entry.push(value);
    else this.entries.set(fp, [entry, value]);
  }

  clear(): void {
    this.entries.clear();
    this.count = 0;
  }
}

function sameText(kept: string, text: string, from: number, to: number): boolean {
  return kept.length === to - from && text.startsWith(kept, from);
}
