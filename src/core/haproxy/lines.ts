/**
 * The tokenized lines of haproxy.cfg in a compact form: a parse writes each line and each word as a few integers
 * into typed arrays (a LineStore) instead of an object per line and per word and a string per word. The parsed
 * sections stay in the linter's cache, and a young-generation GC copies whatever is alive when it runs; typed
 * arrays keep their contents outside the heap, so a cold lint of a large file leaves little for it to copy. A
 * word's string is made when a rule asks for it, and not even then for keywords and common values (./words.ts).
 *
 * HAProxy's format is line based: a line is a keyword followed by arguments separated by blanks; `#` outside
 * quotes starts a comment; `\` escapes the next character outside single quotes; `"..."` and `'...'` quote
 * (single quotes are strong); there is no line continuation.
 */
import { readQuotedWord } from './quotedWord';
import { COMMON_WORDS, TRIE_START } from './words';
import { t } from '../l10n';

/**
 * The word table and its trie, read once: in the CommonJS the tests and benchmarks run in, every use of an imported
 * name is a read through a getter, measurable in a loop that runs once per character.
 */
const commonWords = COMMON_WORDS;
const trieNext = COMMON_WORDS.next;
const trieClass = COMMON_WORDS.classOf;
const trieWidth = COMMON_WORDS.width;
const trieIdOf = COMMON_WORDS.idOf;
const trieStart = TRIE_START;

/** One word of a line: its unquoted, unescaped value and where its raw text sits on the line. */
export interface Token {
  text: string;
  /** 0-based column of the first raw character (a quote, when quoted). */
  start: number;
  /** 0-based column after the last raw character. */
  end: number;
}

/** A tokenizer problem on a line (unmatched quote, control character...). */
export interface LineProblem {
  message: string;
  column: number;
  /** A quote opened and not closed on the line (the rule offers to close it; the message is in the catalogue's language). */
  unmatchedQuote?: boolean;
}

// A line record: where the line starts in the store's text, its length (without CR/LF), indent, the column of its
// comment (-1: none), its first word record and word count, and its problem (an index in problems, -1: none).
const L_START = 0;
const L_LENGTH = 1;
const L_INDENT = 2;
const L_COMMENT = 3;
const L_FIRST_WORD = 4;
const L_WORDS = 5;
const L_PROBLEM = 6;
const LINE_STRIDE = 7;
// A word record: its raw columns on the line and its text: an interned word's id (>= 0), PLAIN when the text is
// the raw characters, else COOKED_BASE - i for cooked[i] (a word with quotes or escapes).
const W_START = 0;
const W_END = 1;
const W_TEXT = 2;
const WORD_STRIDE = 3;
const PLAIN = -1;
const COOKED_BASE = -2;

/** Characters per line and per word a store is first sized for (it grows when a text has more). */
const CHARS_PER_LINE = 24;
const CHARS_PER_WORD = 6;

/** The characters that end a plain word: a blank or `#` (the word ends), a quote, `\` or a control character (it is not plain). */
const ENDS_PLAIN_WORD = new Uint8Array(128);
for (let c = 0; c < 128; c++) if (c < 32 || c === 32 || c === 34 || c === 35 || c === 39 || c === 92 || c === 127) ENDS_PLAIN_WORD[c] = 1;

/** The lines one parse tokenized, all sections of it together, read by line index. */
export class LineStore {
  private lineRecords: Int32Array;
  private wordRecords: Int32Array;
  private lineCount = 0;
  private wordCount = 0;
  /** Texts of the words with quotes or escapes (differing from their raw characters). */
  private readonly cooked: string[] = [];
  private readonly problems: LineProblem[] = [];

  /** `text` is what the lines are read from; first sized for `chars` characters of lines (it grows as needed). */
  constructor(
    readonly text: string,
    chars: number,
  ) {
    this.lineRecords = new Int32Array(Math.max(1, Math.ceil(chars / CHARS_PER_LINE)) * LINE_STRIDE);
    this.wordRecords = new Int32Array(Math.max(1, Math.ceil(chars / CHARS_PER_WORD)) * WORD_STRIDE);
  }

  /** Lines tokenized so far: the index the next line gets. */
  get size(): number {
    return this.lineCount;
  }

  /** Makes room for about `chars` more characters of lines (one growth instead of repeated doubling). */
  reserve(chars: number): void {
    const lineSize = (this.lineCount + Math.ceil(chars / CHARS_PER_LINE)) * LINE_STRIDE;
    if (lineSize > this.lineRecords.length) this.lineRecords = grown(this.lineRecords, lineSize);
    const wordSize = (this.wordCount + Math.ceil(chars / CHARS_PER_WORD)) * WORD_STRIDE;
    if (wordSize > this.wordRecords.length) this.wordRecords = grown(this.wordRecords, wordSize);
  }

  /**
   * Gives back the room a reserve() did not use when that is most of it (a parse that missed a few sections of a
   * large text, an edit's): the cached sections keep the store as long as they are cached.
   */
  fit(): void {
    if (this.lineRecords.length > 2 * this.lineCount * LINE_STRIDE + 1024) this.lineRecords = this.lineRecords.slice(0, this.lineCount * LINE_STRIDE);
    if (this.wordRecords.length > 2 * this.wordCount * WORD_STRIDE + 1024) this.wordRecords = this.wordRecords.slice(0, this.wordCount * WORD_STRIDE);
  }

  /** Tokenizes the lines of text[from, to) (at least one); returns the index of the first. */
  addLines(from: number, to: number): number {
    const at = this.lineCount;
    for (let pos = from; pos < to || this.lineCount === at; ) {
      let nl = this.text.indexOf('\n', pos);
      if (nl < 0 || nl > to) nl = to;
      this.add(pos, nl);
      pos = nl + 1;
    }
    return at;
  }

  /** Tokenizes the line text[from, to) (without its LF) with HAProxy's quoting and escaping rules; returns its index. */
  add(from: number, to: number): number {
    const text = this.text;
    const n = to > from && text.charCodeAt(to - 1) === 13 ? to - 1 : to;
    const firstWord = this.wordCount;
    let i = from;
    let indent = -1;
    let comment = -1;
    let problem: LineProblem | undefined;
    while (i < n) {
      const c = text.charCodeAt(i);
      if (c === 32 || c === 9) {
        i++;
        continue;
      }
      if (c === 35 /* # */) {
        comment = i - from;
        break;
      }
      if (indent < 0) indent = i - from;
      const start = i - from;
      // fast path: a plain word (no quote, escape or control character) is the raw characters; the word table's
      // trie is walked along (COMMON_WORDS.idAt, inline: this loop runs once per character of the file)
      let j = i;
      let ch = 0;
      let state = trieStart;
      for (; j < n; j++) {
        ch = text.charCodeAt(j);
        if (ch >= 128) break;
        if (ENDS_PLAIN_WORD[ch] === 1) break;
        state = trieNext[state * trieWidth + trieClass[ch]!]!;
        if (state === 0) break;
      }
      if (j < n && (ch >= 128 || state === 0)) {
        // the trie is dead (no interned word goes on so): the rest of the word is only scanned for its end
        state = 0;
        for (j++; j < n; j++) {
          ch = text.charCodeAt(j);
          if (ch < 128 && ENDS_PLAIN_WORD[ch] === 1) break;
        }
      }
      if (j === n || ch === 32 || ch === 9 || ch === 35) {
        const id = trieIdOf[state]!;
        this.addWord(start, j - from, id >= 0 ? id : PLAIN);
        i = j;
        continue;
      }
      const quoted = readQuotedWord(text, j, n, from, text.slice(i, j));
      problem ??= quoted.problem;
      if (quoted.openQuote >= 0) problem ??= { message: t('unmatched quote at position {0}', quoted.openQuote), column: quoted.openQuote, unmatchedQuote: true };
      i = quoted.end;
      this.addWord(start, i - from, this.cookedText(quoted.text));
      if (quoted.openQuote >= 0) break;
    }
    const length = n - from;
    const at = this.lineCount++;
    if (this.lineCount * LINE_STRIDE > this.lineRecords.length) this.lineRecords = grown(this.lineRecords, this.lineCount * LINE_STRIDE);
    const r = at * LINE_STRIDE;
    const lines = this.lineRecords;
    lines[r + L_START] = from;
    lines[r + L_LENGTH] = length;
    lines[r + L_INDENT] = indent < 0 ? length : indent;
    lines[r + L_COMMENT] = comment;
    lines[r + L_FIRST_WORD] = firstWord;
    lines[r + L_WORDS] = this.wordCount - firstWord;
    lines[r + L_PROBLEM] = problem ? this.problems.push(problem) - 1 : -1;
    return at;
  }

  private addWord(start: number, end: number, textRef: number): void {
    const at = this.wordCount++;
    if (this.wordCount * WORD_STRIDE > this.wordRecords.length) this.wordRecords = grown(this.wordRecords, this.wordCount * WORD_STRIDE);
    const r = at * WORD_STRIDE;
    this.wordRecords[r + W_START] = start;
    this.wordRecords[r + W_END] = end;
    this.wordRecords[r + W_TEXT] = textRef;
  }

  /** The text reference of a word whose text is not its raw characters (interned when it is a common word). */
  private cookedText(word: string): number {
    const id = commonWords.id(word);
    if (id >= 0) return id;
    return COOKED_BASE - (this.cooked.push(word) - 1);
  }

  // ------------------------------------------------------------------------------------- reading, by line index

  /**
   * The first line of [from, end) (the last when `step` is -1) whose words start with `first` (and `second`), or -1;
   * `keywords` is the keywordMask of those lines.
   */
  findLine(from: number, end: number, step: 1 | -1, first: string, second: string | undefined, keywords: number): number {
    if ((keywords & keywordBit(first)) === 0) return -1;
    for (let line = step > 0 ? from : end - 1; line >= from && line < end; line += step) {
      if (this.wordIs(line, 0, first) && (second === undefined || this.wordIs(line, 1, second))) return line;
    }
    return -1;
  }

  /** The keywords of lines [from, end) as a bit set (keywordBit of each first word), for findLine. */
  keywordMask(from: number, end: number): number {
    let mask = 0;
    for (let line = from; line < end; line++) {
      const r = line * LINE_STRIDE;
      if (this.lineRecords[r + L_WORDS] === 0) continue;
      const ref = this.wordRecords[this.lineRecords[r + L_FIRST_WORD]! * WORD_STRIDE + W_TEXT]!;
      mask |= ref >= 0 ? keywordBits[ref]! : keywordBit(this.word(line, 0)!);
    }
    return mask;
  }

  /** A handle on line `at`, numbered `rel` in its section. */
  line(at: number, rel: number): ParsedLine {
    return new ParsedLine(this, at, rel);
  }

  /** A cursor on line `rel` of the section whose first line is `base` (see LineCursor). */
  cursor(base: number, rel: number): LineCursor {
    return new LineCursor(this, base, rel);
  }

  // the fields of a line (what ParsedLine shows)
  indent(line: number): number {
    return this.lineRecords[line * LINE_STRIDE + L_INDENT]!;
  }
  length(line: number): number {
    return this.lineRecords[line * LINE_STRIDE + L_LENGTH]!;
  }
  comment(line: number): number | undefined {
    const c = this.lineRecords[line * LINE_STRIDE + L_COMMENT]!;
    return c < 0 ? undefined : c;
  }
  problem(line: number): LineProblem | undefined {
    const p = this.lineRecords[line * LINE_STRIDE + L_PROBLEM]!;
    return p < 0 ? undefined : this.problems[p];
  }
  wordsOf(line: number): number {
    return this.lineRecords[line * LINE_STRIDE + L_WORDS]!;
  }

  /** The record offset of word i of a line, or -1 when the line has no such word. */
  private wordRecord(line: number, i: number): number {
    const r = line * LINE_STRIDE;
    return i >= 0 && i < this.lineRecords[r + L_WORDS]! ? (this.lineRecords[r + L_FIRST_WORD]! + i) * WORD_STRIDE : -1;
  }

  word(line: number, i: number): string | undefined {
    const w = this.wordRecord(line, i);
    if (w < 0) return undefined;
    const ref = this.wordRecords[w + W_TEXT]!;
    if (ref >= 0) return commonWords.word(ref);
    if (ref === PLAIN) {
      const at = this.lineRecords[line * LINE_STRIDE + L_START]!;
      return this.text.slice(at + this.wordRecords[w + W_START]!, at + this.wordRecords[w + W_END]!);
    }
    return this.cooked[COOKED_BASE - ref];
  }

  /** The interned id of word i of a line, -1 when it is not interned or there is no such word. */
  wordId(line: number, i: number): number {
    const w = this.wordRecord(line, i);
    const ref = w < 0 ? -1 : this.wordRecords[w + W_TEXT]!;
    return ref >= 0 ? ref : -1;
  }

  /** Whether word i of a line is `word`, without making a string of it. */
  wordIs(line: number, i: number, word: string): boolean {
    const w = this.wordRecord(line, i);
    if (w < 0) return false;
    const ref = this.wordRecords[w + W_TEXT]!;
    if (ref >= 0) return commonWords.word(ref) === word;
    if (ref === PLAIN) {
      const start = this.wordRecords[w + W_START]!;
      return this.wordRecords[w + W_END]! - start === word.length && this.text.startsWith(word, this.lineRecords[line * LINE_STRIDE + L_START]! + start);
    }
    return this.cooked[COOKED_BASE - ref] === word;
  }

  /**
   * The index of the first word from word `from` on that is `word`, or -1. An interned word is compared by id
   * (a word equal to an interned one has its id), others by text.
   */
  indexOfWord(line: number, word: string, from: number): number {
    const id = commonWords.id(word);
    const r = line * LINE_STRIDE;
    const first = this.lineRecords[r + L_FIRST_WORD]!;
    const count = this.lineRecords[r + L_WORDS]!;
    for (let i = Math.max(0, from); i < count; i++) {
      const ref = this.wordRecords[(first + i) * WORD_STRIDE + W_TEXT]!;
      if (id >= 0 ? ref === id : ref < 0 && this.wordIs(line, i, word)) return i;
    }
    return -1;
  }

  /** Column of the first raw character of word i (-1 when there is no such word). */
  wordStart(line: number, i: number): number {
    const w = this.wordRecord(line, i);
    return w < 0 ? -1 : this.wordRecords[w + W_START]!;
  }
  /** Column after the last raw character of word i (-1 when there is no such word). */
  wordEnd(line: number, i: number): number {
    const w = this.wordRecord(line, i);
    return w < 0 ? -1 : this.wordRecords[w + W_END]!;
  }
}

/**
 * The bit of an interned keyword in a section's keyword mask: a query for a keyword whose bit is clear skips the
 * section's lines (most sections have a few keywords; the cross-section rules ask each proxy for many).
 */
function keywordBit(keyword: string): number {
  return 1 << ((keyword.length + keyword.charCodeAt(0) * 5 + keyword.charCodeAt(keyword.length - 1) * 3) & 31);
}

/** keywordBit of each interned word, by id: a section's mask is made of its lines' keyword ids without a string. */
const keywordBits = Int32Array.from({ length: commonWords.size }, (_, id) => keywordBit(commonWords.word(id)));

/** A copy of the records with room for at least `size` entries (doubling, so appends stay linear). */
export function grown(records: Int32Array, size: number): Int32Array {
  const bigger = new Int32Array(Math.max(size, records.length * 2));
  bigger.set(records);
  return bigger;
}

/**
 * One line of a section: a handle on its records (made when a rule asks for the line, not kept by the parse).
 * Words are read by index; `token(i)` makes the object of one word for a finding's range.
 */
export class ParsedLine {
  constructor(
    protected readonly store: LineStore,
    /** The line's index in the store (changed only by a LineCursor). */
    protected at: number,
    protected relLine: number,
  ) {}

  /** Line number relative to the first line of its section (0 = the header line). */
  get rel(): number {
    return this.relLine;
  }

  /** This line as a handle that outlives a loop over lines: the handle itself, a copy of a cursor. */
  lasting(): ParsedLine {
    return this;
  }

  /** Column where the line's content starts (after indentation); the line's length when blank. */
  get indent(): number {
    return this.store.indent(this.at);
  }
  /** Column after the last raw character of the line (without CR/LF). */
  get length(): number {
    return this.store.length(this.at);
  }
  /** Column of the `#` that starts a comment, if any. */
  get comment(): number | undefined {
    return this.store.comment(this.at);
  }
  /** Tokenizer problem on this line (unmatched quote, control character...). */
  get error(): LineProblem | undefined {
    return this.store.problem(this.at);
  }
  /** How many words the line has. */
  get count(): number {
    return this.store.wordsOf(this.at);
  }
  /** Word i (0 = the keyword), undefined past the last word. */
  word(i: number): string | undefined {
    return this.store.word(this.at, i);
  }
  /** The interned id of word i (./words.ts), -1 when it is not interned or past the last word. */
  wordId(i: number): number {
    return this.store.wordId(this.at, i);
  }
  /** The index of the first word from word `from` on that is `word`, or -1. */
  indexOf(word: string, from = 0): number {
    return this.store.indexOfWord(this.at, word, from);
  }
  /** Whether word i is `word` (no string is made). */
  is(i: number, word: string): boolean {
    return this.store.wordIs(this.at, i, word);
  }
  /** Column of the first raw character of word i (a quote, when quoted); -1 past the last word. */
  start(i: number): number {
    return this.store.wordStart(this.at, i);
  }
  /** Column after the last raw character of word i; -1 past the last word. */
  end(i: number): number {
    return this.store.wordEnd(this.at, i);
  }
  /** Word i with its columns, undefined past the last word. */
  token(i: number): Token | undefined {
    const text = this.store.word(this.at, i);
    return text === undefined ? undefined : { text, start: this.store.wordStart(this.at, i), end: this.store.wordEnd(this.at, i) };
  }
  /** The words from word `from` on, with their columns. */
  tokens(from = 0): Token[] {
    const out: Token[] = [];
    for (let i = from; i < this.count; i++) out.push(this.token(i)!);
    return out;
  }
  /** The texts of the words from word `from` on. */
  words(from = 0): string[] {
    const out: string[] = [];
    for (let i = from; i < this.count; i++) out.push(this.word(i)!);
    return out;
  }
}

/**
 * A ParsedLine that a loop over many lines moves from line to line instead of making a handle per line (a rule
 * that looks at each line of a large file once would otherwise allocate as much in handles as in everything
 * else). What outlives an iteration must not keep the cursor itself but a copy (copy()).
 */
export class LineCursor extends ParsedLine {
  constructor(
    store: LineStore,
    /** The store index of the section's first line. */
    private readonly base: number,
    rel: number,
  ) {
    super(store, base + rel, rel);
  }

  /** Moves to line `rel` of the section. */
  moveTo(rel: number): void {
    this.at = this.base + rel;
    this.relLine = rel;
  }

  override lasting(): ParsedLine {
    return new ParsedLine(this.store, this.at, this.relLine);
  }
}

/** Tokenizes one line of haproxy.cfg with HAProxy's quoting and escaping rules. */
export function tokenizeLine(line: string, rel = 0): ParsedLine {
  const store = new LineStore(line, line.length);
  return new ParsedLine(store, store.add(0, line.length), rel);
}
