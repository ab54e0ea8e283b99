/**
 * The words haproxy.cfg lines are mostly made of — keywords, options, small numbers, common times — interned once
 * by an id. The tokenizer records a word's id instead of making a string of it (found by a hash of its characters,
 * computed while scanning), so a parsed file retains no string per such word and reading one allocates nothing.
 */
import { BALANCE_ALGORITHMS, SECTION_KEYWORDS, BIND_KEYWORDS, GLOBAL_KEYWORDS, LOG_FACILITIES, LOG_LEVELS, MODES, OPTIONS, OPTIONS_NO_ARGS, OTHER_SECTION_KEYWORDS, PROXY_KEYWORDS, REMOVED_OPTIONS, SERVER_KEYWORDS, TIMEOUTS } from './keywords';

/** Slots of the open-addressing hash table, well above four times the number of words. */
const SLOTS = 4096;
const SLOT_MASK = SLOTS - 1;

/** The hash of a word's characters, h = h * 31 + charCode in 32 bits (the tokenizer folds it while scanning). */
export function hashOf(word: string): number {
  let h = 0;
  for (let i = 0; i < word.length; i++) h = (Math.imul(h, 31) + word.charCodeAt(i)) | 0;
  return h;
}

function firstSlot(h: number): number {
  return (h ^ (h >>> 12)) & SLOT_MASK;
}

/** Interned words by id, found by the hash of their characters without a string of them. */
export class WordTable {
  private readonly words: string[] = [];
  private readonly hashes: number[] = [];
  /** Ids by word, for id(): a string's hash is cached with it, so a keyword literal is found without hashing it. */
  private readonly ids = new Map<string, number>();
  /** Word ids by slot, -1 for an empty slot. */
  private readonly slots = new Int32Array(SLOTS).fill(-1);

  constructor(lists: Iterable<string>[]) {
    for (const list of lists) for (const w of list) this.intern(w);
    if (this.words.length * 4 > SLOTS) throw new Error('haproxy word table too small');
  }

  /** The id of the word text[from, from + length) whose hashOf is h, or -1 when it is not interned. */
  idAt(text: string, from: number, length: number, h: number): number {
    for (let slot = firstSlot(h); ; slot = (slot + 1) & SLOT_MASK) {
      const id = this.slots[slot]!;
      if (id < 0) return -1;
      if (this.hashes[id] === h && sameChars(this.words[id]!, text, from, length)) return id;
    }
  }

  /** The id of a word, or -1 when it is not interned. */
  id(word: string): number {
    return this.ids.get(word) ?? -1;
  }

  /** The interned word of an id. */
  word(id: number): string {
    return this.words[id]!;
  }

  /** How many words there are (ids are 0 to size - 1). */
  get size(): number {
    return this.words.length;
  }

  private intern(text: string): void {
    const word = internalized(text);
    const h = hashOf(word);
    if (this.idAt(word, 0, word.length, h) >= 0) return;
    let slot = firstSlot(h);
    while (this.slots[slot]! >= 0) slot = (slot + 1) & SLOT_MASK;
    this.slots[slot] = this.words.length;
    this.ids.set(word, this.words.length);
    this.words.push(word);
    this.hashes.push(h);
  }
}

/**
 * The string V8 keeps for a property name of this text, as it does for a string literal: equal ones are one object,
 * so a rule comparing an interned word with a literal (`kw === 'server'`, a switch) compares identities, and a
 * keyword Set finds it without comparing characters.
 */
function internalized(text: string): string {
  return Object.keys({ [text]: 0 })[0]!;
}

/** Whether text[from, from + length) is `word` (a loop: most words are a few characters, shorter than a call). */
function sameChars(word: string, text: string, from: number, length: number): boolean {
  if (word.length !== length) return false;
  for (let i = 0; i < length; i++) if (word.charCodeAt(i) !== text.charCodeAt(from + i)) return false;
  return true;
}

const times = ['1', '2', '3', '5', '10', '15', '20', '30', '60'].flatMap((n) => [n, `${n}s`, `${n}m`, `${n}h`, `${n}ms`]);
const numbers = ['0', '4', '6', '7', '8', '9', '100', '256', '1000', '2000', '3000', '5000', '10000', '4096', '6443', '80', '443', '8080'];
const values = ['none', 'haproxy', 'admin', 'GET', '/readyz', '/healthz', 'expect', 'status', '200', '/dev/log', 'from'];

export const COMMON_WORDS = new WordTable([SECTION_KEYWORDS, PROXY_KEYWORDS, SERVER_KEYWORDS.keys(), BIND_KEYWORDS.keys(), OPTIONS, OPTIONS_NO_ARGS, REMOVED_OPTIONS.keys(), TIMEOUTS, MODES, BALANCE_ALGORITHMS, GLOBAL_KEYWORDS, LOG_FACILITIES, LOG_LEVELS, ...Object.values(OTHER_SECTION_KEYWORDS), times, numbers, values]);

/**
 * Keywords (a set, or with a number each: their argument count) looked up by a word's id, one array read instead
 * of hashing the word, for the tables the rules consult on every line. All of them are interned, so a line's
 * word is one of them exactly when its id is.
 */
export class KeywordIds {
  /** The number of each id's keyword, -1 for ids that are not one. */
  private readonly numbers: Int16Array;

  constructor(keywords: Iterable<string> | ReadonlyMap<string, number>) {
    this.numbers = new Int16Array(COMMON_WORDS.size).fill(-1);
    const entries: Iterable<[string, number]> = keywords instanceof Map ? keywords.entries() : [...(keywords as Iterable<string>)].map((k) => [k, 0] as [string, number]);
    for (const [k, n] of entries) {
      const id = COMMON_WORDS.id(k);
      if (id < 0) throw new Error(`haproxy keyword '${k}' is not interned`);
      this.numbers[id] = n;
    }
  }

  /** Whether the word of an id (-1: not interned) is one of the keywords. */
  has(id: number): boolean {
    return id >= 0 && this.numbers[id]! >= 0;
  }

  /** The number of the keyword of an id, undefined when it is not one. */
  get(id: number): number | undefined {
    const n = id >= 0 ? this.numbers[id]! : -1;
    return n < 0 ? undefined : n;
  }
}
