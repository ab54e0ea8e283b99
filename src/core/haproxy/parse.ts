/**
 * haproxy.cfg parser that keeps positions. A section starts on a line whose first word is a section keyword
 * (global, defaults, frontend, backend, listen, ...) and runs until the next one; the lines are tokenized by
 * ./lines.ts.
 *
 * Sections are parsed independently and cached by their text, with line numbers relative to the section, so a
 * one-line edit re-tokenizes only the section it touches (the incremental path of the linter).
 */
import type { Finding } from '../findings';
import { looksBinary } from '../lint/textGuard';
import { SECTION_KEYWORDS } from './keywords';
import { type LineCursor, LineStore, type ParsedLine } from './lines';
import { fingerprint, SectionCache } from './sectionCache';
import { SectionStore } from './sectionStore';
import { COMMON_WORDS } from './words';

export { LineCursor, ParsedLine, tokenizeLine } from './lines';
export type { LineProblem, Token } from './lines';

/** Sections that are proxies (carry traffic) and share the proxy keyword set. */
export const PROXY_SECTIONS = new Set(['defaults', 'frontend', 'backend', 'listen']);

/** What find() returns when nothing matches: shared, so frozen. */
const NO_LINES: readonly ParsedLine[] = Object.freeze([]);

/** A section of one parse: a cached section's records (a SectionStore and an index in it) placed at a line of the file. */
export class Section {
  /** The section keyword: `global`, `frontend`, ...; `''` for lines before the first section. */
  readonly type: string;
  /** The section's name argument (frontend/backend/listen/defaults/peers/...), when given. */
  readonly name: string | undefined;
  /** Lines of the section, header included. */
  readonly lineCount: number;
  /** The store index of the section's first line, and the keywords of its body lines (LineStore.keywordMask). */
  private readonly firstLine: number;
  private readonly keywords: number;
  /** sections.lines, read by every lookup of a line. */
  private readonly store: LineStore;

  constructor(
    private readonly sections: SectionStore,
    private readonly index: number,
    /** Absolute 0-based line of the section's header (or of its first line for the preamble). */
    readonly startLine: number,
  ) {
    this.type = sections.type(index);
    this.name = sections.name(index);
    this.lineCount = sections.lineCount(index);
    this.firstLine = sections.firstLine(index);
    this.keywords = sections.keywords(index);
    this.store = sections.lines;
  }

  /** The section's raw text (its cache key). */
  get text(): string {
    return this.sections.text(this.index);
  }

  /** Whether both are the same cached parse of a section text (wherever each is placed). */
  sameParse(other: Section): boolean {
    return this.sections === other.sections && this.index === other.index;
  }

  /** The findings the linter derived from this text alone (lines relative to the section), kept with the cached parse; undefined until kept or for another line ending. */
  localFindings(eol: string): Finding[] | undefined {
    return this.sections.localFindings(this.index, eol);
  }
  keepLocalFindings(eol: string, findings: Finding[]): void {
    this.sections.keepLocalFindings(this.index, eol, findings);
  }

  /** Line `rel` of the section (0 = the header). */
  line(rel: number): ParsedLine {
    return this.store.line(this.firstLine + rel, rel);
  }

  /** A cursor on line `rel`, to move over the section's lines (see LineCursor). */
  cursor(rel: number): LineCursor {
    return this.store.cursor(this.firstLine, rel);
  }

  /** The same parsed section with its header at line `startLine`. */
  placedAt(startLine: number): Section {
    return new Section(this.sections, this.index, startLine);
  }

  /**
   * The store index of the first body line after line `rel` (-1: from the first; the header is not a body line,
   * except in the preamble) whose words start with `first` (and `second`), or -1.
   */
  private nextMatch(rel: number, first: string, second: string | undefined): number {
    const { store, firstLine, lineCount, keywords } = this;
    const from = Math.max(this.type === '' ? firstLine : firstLine + 1, firstLine + rel + 1);
    return store.findLine(from, firstLine + lineCount, 1, first, second, keywords);
  }

  /** Body lines whose words start with `first` (and `second`), e.g. ('timeout', 'client'), in order. */
  find(first: string, second?: string): readonly ParsedLine[] {
    let at = this.nextMatch(-1, first, second);
    if (at < 0) return NO_LINES;
    const { store, firstLine } = this;
    const out: ParsedLine[] = [];
    for (; at >= 0; at = this.nextMatch(at - firstLine, first, second)) out.push(store.line(at, at - firstLine));
    return out;
  }

  /** The next body line after line `rel` (-1: from the first) whose words start with `first` (and `second`). */
  findAfter(rel: number, first: string, second?: string): ParsedLine | undefined {
    const at = this.nextMatch(rel, first, second);
    return at < 0 ? undefined : this.store.line(at, at - this.firstLine);
  }

  /**
   * Moves a cursor of this section (cursor(-1) to start before the first line) to the next body line after its
   * line whose words start with `first` (and `second`); false, leaving it where it is, when there is none.
   */
  advance(cursor: LineCursor, first: string, second?: string): boolean {
    const at = this.nextMatch(cursor.rel, first, second);
    if (at < 0) return false;
    cursor.moveTo(at - this.firstLine);
    return true;
  }

  /** The last body line whose words start with `first` (and `second`). */
  last(first: string, second?: string): ParsedLine | undefined {
    const { store, firstLine, lineCount, keywords } = this;
    const at = store.findLine(this.type === '' ? firstLine : firstLine + 1, firstLine + lineCount, -1, first, second, keywords);
    return at < 0 ? undefined : store.line(at, at - firstLine);
  }

  /** Whether a body line starts with `first` (and `second`). */
  has(first: string, second?: string): boolean {
    return this.nextMatch(-1, first, second) >= 0;
  }
}

export interface HaproxyConfig {
  readonly sections: readonly Section[];
  readonly lineCount: number;
  /** Set when the input is not a text file; nothing else is parsed then. */
  readonly binary?: boolean;
}

/**
 * Parsed sections by their text (the lines before the first section parse as no section, and are told apart): at
 * most 20,000, and keeping at most 16 M characters of edited texts alive (about 66 edits of a 10,000-line file that
 * each missed a section). Then it starts over at the first section a lint misses: that lint re-parses the sections
 * after it, the next one those before it — each about as long as a cold lint (about 10 ms for that file) or less.
 */
const sectionCache = new SectionCache(20_000, 16_000_000);

/** What the section cache holds (sections, stores, characters of text kept alive): for tests and benchmarks. */
export function sectionCacheSize(): { sections: number; stores: number; chars: number } {
  return sectionCache.size;
}

/**
 * The last text parsed whole and its parse: the linter and the cross-file check (../lint/crossFile.ts) both parse
 * the file they are given, one after the other; the second is answered here instead of by a walk over the section
 * cache, which took about 1 ms of a 4–5 ms cold lint of 10,000 lines. Sections are immutable, so the parse is shared.
 */
let lastParse: { text: string; cfg: HaproxyConfig } | undefined;

/** Drops the parsed-section cache (benchmarks measure cold runs with it). */
export function clearSectionCache(): void {
  sectionCache.clear();
  lastParse = undefined;
}

/**
 * The line after a LF that opens a section: blanks, a section keyword, then a blank, `#`, CR, LF or the end. The
 * regular expression engine finds them in one pass over the text, without a call or a string per line; `^` with
 * the m flag is avoided, as it also matches after a CR (a line is what ends at LF).
 */
const HEADER_AFTER_LF = new RegExp(`\\n[ \\t]*(?:${[...SECTION_KEYWORDS].join('|')})(?![^ \\t#\\r\\n])`, 'g');
/** The same at one line start (sticky: tried at lastIndex only). */
const HEADER_AT = new RegExp(`[ \\t]*(?:${[...SECTION_KEYWORDS].join('|')})(?![^ \\t#\\r\\n])`, 'y');

/** Whether the line that starts at `from` opens a section. */
function opensSection(text: string, from: number): boolean {
  HEADER_AT.lastIndex = from;
  return HEADER_AT.test(text);
}

/** The offsets of the lines that open a section (their first word is a section keyword), in order. */
function sectionHeaders(text: string): number[] {
  const headers: number[] = opensSection(text, 0) ? [0] : [];
  // test() makes no match object: the header line starts after the LF before where the match ended
  HEADER_AFTER_LF.lastIndex = 0;
  while (HEADER_AFTER_LF.test(text)) headers.push(text.lastIndexOf('\n', HEADER_AFTER_LF.lastIndex - 1) + 1);
  return headers;
}

/** By interned word id (./words.ts): 1 for the section keywords. */
const SECTION_KEYWORD_IDS = new Uint8Array(COMMON_WORDS.size);
for (const k of SECTION_KEYWORDS) SECTION_KEYWORD_IDS[COMMON_WORDS.id(k)] = 1;

/**
 * The parse of a text when the section cache holds nothing (the first lint of a file in a lint worker, every lint
 * of the command line): no section can be found there, so the lines are tokenized in one pass and the sections
 * cut where a line opens one, instead of a pass of HEADER_AFTER_LF over the text first (7 % of such a lint of
 * 10,000 lines). A line's first word tells the candidates without another look at its characters: a header's
 * keyword is a plain word with the keyword's id, or, with a control character after it, a word with a problem;
 * opensSection() then decides with the pattern of the pass it replaces. The sections go into the cache as an
 * incremental parse puts them.
 */
function parseCold(text: string): HaproxyConfig {
  const store = new SectionStore(new LineStore(text, text.length));
  const lines = store.lines;
  // where each section starts, as pairs of its offset in the text and its first line in the store: the loop over
  // the lines only notes them (no closure over its variables, which would keep them in a heap context)
  const starts: number[] = [];
  for (let pos = 0; pos < text.length; ) {
    let nl = text.indexOf('\n', pos);
    if (nl < 0) nl = text.length;
    const at = lines.add(pos, nl);
    const id = lines.wordId(at, 0);
    if (((id >= 0 && SECTION_KEYWORD_IDS[id] === 1) || lines.problem(at)) && opensSection(text, pos)) starts.push(pos, at);
    pos = nl + 1;
  }
  lines.fit();
  // the lines before the first header, if any, are the preamble
  if (lines.size > 0 && (starts.length === 0 || starts[1]! > 0)) starts.unshift(0, -1);
  const sections: Section[] = [];
  let line = 0;
  for (let k = 0; k < starts.length; k += 2) {
    const preamble = starts[k + 1] === -1;
    const from = starts[k]!;
    const firstLine = preamble ? 0 : starts[k + 1]!;
    const hasNext = k + 2 < starts.length;
    const to = hasNext ? starts[k + 2]! : text.length;
    const index = store.addTokenized(from, to, preamble, firstLine, (hasNext ? starts[k + 3]! : lines.size) - firstLine);
    sectionCache.set(fingerprint(text, from, to), store, index);
    const section = new Section(store, index, line);
    sections.push(section);
    line += section.lineCount;
  }
  return { sections, lineCount: text.endsWith('\n') || text.length === 0 ? line + 1 : line };
}

/** Parses the sections of one text, each cached by its text; missed ones are tokenized into the parse's store. */
class SectionParser {
  private store: SectionStore | undefined;
  private misses = 0;

  constructor(private readonly text: string) {}

  /** Ends the parse: the store keeps only the room its lines take. */
  finish(): void {
    this.store?.lines.fit();
  }

  /** The section whose text is text[from, to), placed at line `startLine`. */
  parse(from: number, to: number, preamble: boolean, startLine: number): Section {
    const fp = fingerprint(this.text, from, to);
    const hit = sectionCache.find(fp, this.text, from, to, preamble);
    if (hit >= 0) return new Section(sectionCache.store(hit), sectionCache.index(hit), startLine);
    // first sized for this section (an edit re-parses one); a second miss is a cold parse: room for the rest
    if (!this.store) this.store = new SectionStore(new LineStore(this.text, to - from));
    else if (++this.misses === 1) this.store.lines.reserve(this.text.length - from);
    const index = this.store.add(from, to, preamble);
    sectionCache.set(fp, this.store, index);
    return new Section(this.store, index, startLine);
  }
}

export function parseHaproxy(text: string): HaproxyConfig {
  // the same string object, or an equal one (compared only when the lengths match)
  if (lastParse && lastParse.text === text) return lastParse.cfg;
  const cfg = parseSections(text);
  lastParse = { text, cfg };
  return cfg;
}

function parseSections(text: string): HaproxyConfig {
  if (looksBinary(text)) return { sections: [], lineCount: 1, binary: true };
  if (sectionCache.empty) return parseCold(text);
  const headers = sectionHeaders(text);
  const parser = new SectionParser(text);
  const sections: Section[] = [];
  let line = 0;
  const add = (from: number, to: number, preamble: boolean) => {
    const section = parser.parse(from, to, preamble, line);
    sections.push(section);
    line += section.lineCount;
  };
  const firstHeader = headers.length ? headers[0]! : text.length;
  if (firstHeader > 0) add(0, firstHeader, true);
  for (let h = 0; h < headers.length; h++) add(headers[h]!, h + 1 < headers.length ? headers[h + 1]! : text.length, false);
  parser.finish();
  // the sections' lines, and the empty line after a final LF (or of an empty text), which belongs to none
  return { sections, lineCount: text.endsWith('\n') || text.length === 0 ? line + 1 : line };
}
