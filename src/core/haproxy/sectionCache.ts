/**
 * The parsed sections of haproxy.cfg kept by their text, so a re-lint re-parses only the sections an edit touched.
 *
 * A Map keyed by the text hashes all of it on every lookup, which on a cold lint of a large file cost as much as
 * tokenizing it. Entries are found instead by a fingerprint of a few dozen characters — the text's length, both
 * ends of its first line (a section's header, which names it) and its last characters — and a lookup then
 * compares the texts of the entries with that fingerprint. Two sections share one only with the same length and
 * the same characters there.
 */
import { grown } from './lines';
import type { SectionStore } from './sectionStore';

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

/**
 * Sections (a SectionStore and an index in it) by the fingerprint of their text, in an open-addressing table of
 * integers: a Map of an object per section was, with the records themselves, what a GC had to copy after a cold
 * lint (./sectionStore.ts). Bounded, so a long editing session does not grow it forever: when full, it starts over.
 */
export class SectionCache {
  /** Entry + 1 by slot, 0 for an empty slot; more than twice as many slots as entries. */
  private slots: Int32Array;
  private fps: Int32Array;
  private storeIds: Int32Array;
  private indexes: Int32Array;
  private count = 0;
  /** The stores the entries are in (few: one per parse that missed a section). */
  private stores: SectionStore[] = [];
  /** Characters of the texts those stores keep alive (each store reads its lines from the whole text it parsed). */
  private chars = 0;

  /**
   * At most `limit` sections, and stores that keep at most about `charLimit` characters of text alive: every edit of
   * a file that misses a section makes a store of the edited text, so without this bound an editing session of a
   * large file would keep a copy of the file per edit (20,000 entries of a 240 KB file: gigabytes).
   */
  constructor(
    private readonly limit: number,
    private readonly charLimit: number,
  ) {
    this.slots = new Int32Array(1024);
    this.fps = new Int32Array(256);
    this.storeIds = new Int32Array(256);
    this.indexes = new Int32Array(256);
  }

  /**
   * The entry for text[from, to) parsed as the preamble or not, whose fingerprint is fp, or -1; its section is
   * store(entry), index(entry).
   */
  find(fp: number, text: string, from: number, to: number, preamble: boolean): number {
    const mask = this.slots.length - 1;
    for (let slot = firstSlot(fp, mask); ; slot = (slot + 1) & mask) {
      const e = this.slots[slot]! - 1;
      if (e < 0) return -1;
      if (this.fps[e] === fp && this.stores[this.storeIds[e]!]!.isText(this.indexes[e]!, text, from, to, preamble)) return e;
    }
  }
  store(entry: number): SectionStore {
    return this.stores[this.storeIds[entry]!]!;
  }
  index(entry: number): number {
    return this.indexes[entry]!;
  }

  /** Keeps section `index` of `store` (not already kept) under fp, the fingerprint of its text. */
  set(fp: number, store: SectionStore, index: number): void {
    const newStore = this.stores[this.stores.length - 1] !== store;
    if (this.count >= this.limit || (newStore && this.chars > 0 && this.chars + store.lines.text.length > this.charLimit)) this.clear();
    if (2 * (this.count + 1) > this.slots.length) this.grow();
    // after a clear() the store is new to the cache again
    if (this.stores[this.stores.length - 1] !== store) {
      this.stores.push(store);
      this.chars += store.lines.text.length;
    }
    const storeId = this.stores.length - 1;
    const e = this.count++;
    if (e >= this.fps.length) {
      this.fps = grown(this.fps, e + 1);
      this.storeIds = grown(this.storeIds, e + 1);
      this.indexes = grown(this.indexes, e + 1);
    }
    this.fps[e] = fp;
    this.storeIds[e] = storeId;
    this.indexes[e] = index;
    this.place(e);
  }

  /** Empties the cache; it keeps the room it grew to (a cold lint of the same file fills it again). */
  clear(): void {
    this.slots.fill(0);
    this.count = 0;
    this.stores = [];
    this.chars = 0;
  }

  /** Whether the cache holds no section (a parse then has nothing to look up). */
  get empty(): boolean {
    return this.count === 0;
  }

  /** What the cache holds: sections, stores and the characters of text they keep alive. */
  get size(): { sections: number; stores: number; chars: number } {
    return { sections: this.count, stores: this.stores.length, chars: this.chars };
  }

  private place(e: number): void {
    const mask = this.slots.length - 1;
    let slot = firstSlot(this.fps[e]!, mask);
    while (this.slots[slot] !== 0) slot = (slot + 1) & mask;
    this.slots[slot] = e + 1;
  }

  private grow(): void {
    this.slots = new Int32Array(this.slots.length * 2);
    for (let e = 0; e < this.count; e++) this.place(e);
  }
}

/** The slot a fingerprint's probe starts at: its high bits mixed in (h * 31 + c leaves the low bits to the last characters). */
function firstSlot(fp: number, mask: number): number {
  return (fp ^ (fp >>> 13)) & mask;
}
