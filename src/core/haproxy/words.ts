/**
 * The words haproxy.cfg lines are mostly made of — keywords, options, small numbers, common times — interned once
 * by an id. The tokenizer records a word's id instead of making a string of it (found by walking a trie while it
 * scans the word's characters), so a parsed file retains no string per such word and reading one allocates nothing.
 */
import { BALANCE_ALGORITHMS, SECTION_KEYWORDS, BIND_KEYWORDS, GLOBAL_KEYWORDS, LOG_FACILITIES, LOG_LEVELS, MODES, OPTIONS, OPTIONS_NO_ARGS, OTHER_SECTION_KEYWORDS, PROXY_KEYWORDS, REMOVED_OPTIONS, SERVER_KEYWORDS, TIMEOUTS } from './keywords';

/**
 * Interned words by id, found by walking a trie of their characters as the tokenizer scans a word: a step per
 * character is one read of `next`, so a keyword is known when its last character is read, with no hash to compute
 * and no characters to compare again (that lookup, a hash probe and a comparison per word, was an eighth of a cold
 * lint of a large file). The trie's states are rows of `next` indexed by character class; row 0 is the dead state
 * (every entry 0: a word no interned word starts with stays there), row 1 the start.
 */
export class WordTable {
  private readonly words: string[] = [];
  /** Ids by word, for id(): a string's hash is cached with it, so a keyword literal is found without hashing it. */
  private readonly ids = new Map<string, number>();
  /** The class of each ASCII character: 1 + its index among the characters of the interned words, 0 for others. */
  readonly classOf = new Uint8Array(128);
  /** Classes per state (a row of `next`). */
  readonly width: number;
  /** next[state * width + class]: the state after one more character. */
  readonly next: Int16Array;
  /** The id of the word that ends in a state, -1 where none does. */
  readonly idOf: Int16Array;

  constructor(lists: Iterable<string>[]) {
    for (const list of lists) for (const w of list) this.intern(w);
    const chars = [...new Set(this.words.join(''))].sort();
    if (chars.some((c) => c.charCodeAt(0) >= 128)) throw new Error('haproxy word table: interned words are ASCII');
    chars.forEach((c, i) => (this.classOf[c.charCodeAt(0)] = i + 1));
    this.width = chars.length + 1;
    const rows: Int16Array[] = [new Int16Array(this.width), new Int16Array(this.width)];
    const ids = [-1, -1];
    this.words.forEach((w, id) => {
      let state = TRIE_START;
      for (let i = 0; i < w.length; i++) {
        const c = this.classOf[w.charCodeAt(i)]!;
        if (rows[state]![c] === 0) {
          rows[state]![c] = rows.push(new Int16Array(this.width)) - 1;
          ids.push(-1);
        }
        state = rows[state]![c]!;
      }
      ids[state] = id;
    });
    if (rows.length > 0x7fff) throw new Error('haproxy word table: too many states for its rows');
    this.next = new Int16Array(rows.length * this.width);
    rows.forEach((row, state) => this.next.set(row, state * this.width));
    this.idOf = Int16Array.from(ids);
  }

  /** The id of the word text[from, from + length), or -1 when it is not interned: the walk the tokenizer inlines (lines.ts), kept as its reference. */
  idAt(text: string, from: number, length: number): number {
    let state = TRIE_START;
    for (let i = from; i < from + length; i++) {
      const c = text.charCodeAt(i);
      state = c < 128 ? this.next[state * this.width + this.classOf[c]!]! : 0;
    }
    return this.idOf[state]!;
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
    if (this.ids.has(word)) return;
    this.ids.set(word, this.words.length);
    this.words.push(word);
  }
}

/** The trie state a word's walk starts in. */
export const TRIE_START = 1;

/**
 * The string V8 keeps for a property name of this text, as it does for a string literal: equal ones are one object,
 * so a rule comparing an interned word with a literal (`kw === 'server'`, a switch) compares identities, and a
 * keyword Set finds it without comparing characters.
 */
function internalized(text: string): string {
  return Object.keys({ [text]: 0 })[0]!;
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
