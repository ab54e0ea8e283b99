/**
 * haproxy.cfg parser that keeps positions.
 *
 * HAProxy's format is line based: a line is a keyword followed by arguments separated by blanks; `#` outside
 * quotes starts a comment; `\` escapes the next character outside single quotes; `"..."` and `'...'` quote
 * (single quotes are strong); there is no line continuation. A section starts on a line whose first word is a
 * section keyword (global, defaults, frontend, backend, listen, ...) and runs until the next one.
 *
 * Sections are parsed independently and cached by their text, with line numbers relative to the section, so a
 * one-line edit re-tokenizes only the section it touches (the incremental path of the linter).
 */
import type { Finding } from '../findings';
import { looksBinary } from '../lint/textGuard';
import { BALANCE_ALGORITHMS, BIND_KEYWORDS, GLOBAL_KEYWORDS, LOG_FACILITIES, LOG_LEVELS, MODES, OPTIONS, OTHER_SECTION_KEYWORDS, PROXY_KEYWORDS, SERVER_KEYWORDS, TIMEOUTS } from './keywords';

export const SECTION_KEYWORDS = new Set([
  'global',
  'defaults',
  'frontend',
  'backend',
  'listen',
  'peers',
  'resolvers',
  'userlist',
  'mailers',
  'program',
  'http-errors',
  'ring',
  'cache',
  'fcgi-app',
  'log-forward',
]);

/** Sections that are proxies (carry traffic) and share the proxy keyword set. */
export const PROXY_SECTIONS = new Set(['defaults', 'frontend', 'backend', 'listen']);

/** One word of a line: its unquoted, unescaped value and where its raw text sits on the line. */
export interface Token {
  text: string;
  /** 0-based column of the first raw character (a quote, when quoted). */
  start: number;
  /** 0-based column after the last raw character. */
  end: number;
}

export interface ParsedLine {
  /** Line number relative to the first line of its section (0 = the header line). */
  rel: number;
  /** Column where the line's content starts (after indentation); the line's length when blank. */
  indent: number;
  /** Column after the last raw character of the line (without CR/LF). */
  length: number;
  tokens: Token[];
  /** Column of the `#` that starts a comment, if any. */
  comment?: number;
  /** Tokenizer problem on this line (unmatched quote, control character...). */
  error?: { message: string; column: number };
}

export interface Section {
  /** The section keyword: `global`, `frontend`, ...; `''` for lines before the first section. */
  type: string;
  /** The section's name argument (frontend/backend/listen/defaults/peers/...), when given. */
  name?: string;
  /** Absolute 0-based line of the section's header (or of its first line for the preamble). */
  startLine: number;
  /** Lines of the section, header first; `rel` is relative to startLine. Shared read-only through the cache. */
  lines: readonly ParsedLine[];
  /** The section's raw text (its cache key). */
  text: string;
  /** Body lines by keyword (first word), in order; shared read-only through the cache. */
  index: ReadonlyMap<string, readonly ParsedLine[]>;
  /** What the linter derived from this text alone, kept with the cached parse (see SectionMemo). */
  memo: SectionMemo;
}

/** The section-local findings (lines relative to the section) for the line ending they were computed with. */
export interface SectionMemo {
  local?: { eol: string; findings: Finding[] };
}

export interface HaproxyConfig {
  sections: Section[];
  lineCount: number;
  /** Set when the input is not a text file; nothing else is parsed then. */
  binary?: boolean;
}

/** Characters a backslash escapes (anything else keeps its backslash). */
const ESCAPED = new Set(['\\', ' ', '#', "'", '"', '$', 'r', 'n', 't', '\t']);

/** The word list of a line without words, shared (parsed lines are read-only). */
const NO_WORDS: Token[] = [];

/**
 * The words most lines are made of — keywords, small numbers, common times — by a hash of their characters, so
 * a parsed file (which stays in the section cache) shares one string per such word instead of one per occurrence.
 */
const COMMON_WORDS: (string | undefined)[] = new Array(4096);
const COMMON_MASK = 4095;
function wordHash(word: string): number {
  let h = 0;
  for (let i = 0; i < word.length; i++) h = (Math.imul(h, 31) + word.charCodeAt(i)) | 0;
  return h;
}
function commonSlot(h: number): number {
  return (h ^ (h >>> 12)) & COMMON_MASK;
}
{
  const times = ['1', '2', '3', '5', '10', '15', '20', '30', '60'].flatMap((n) => [n, `${n}s`, `${n}m`, `${n}h`, `${n}ms`]);
  const numbers = ['0', '4', '6', '7', '8', '9', '100', '256', '1000', '2000', '3000', '5000', '10000', '4096', '6443', '80', '443', '8080'];
  const lists: Iterable<string>[] = [SECTION_KEYWORDS, PROXY_KEYWORDS, SERVER_KEYWORDS.keys(), BIND_KEYWORDS.keys(), OPTIONS, TIMEOUTS, MODES, BALANCE_ALGORITHMS, GLOBAL_KEYWORDS, LOG_FACILITIES, LOG_LEVELS, ...Object.values(OTHER_SECTION_KEYWORDS), times, numbers, ['global', 'none', 'haproxy', 'admin', 'httpchk', 'GET', '/readyz', '/healthz', 'expect', 'status', '200', '/dev/log', 'local0']];
  for (const list of lists) {
    for (const w of list) {
      const slot = commonSlot(wordHash(w));
      COMMON_WORDS[slot] ??= w;
    }
  }
}

/** The shared string for line[i, i+len) when it is a common word (h = its wordHash), else undefined. */
function commonWord(line: string, i: number, len: number, h: number): string | undefined {
  const w = COMMON_WORDS[commonSlot(h)];
  return w !== undefined && w.length === len && line.startsWith(w, i) ? w : undefined;
}

/** Tokenizes one line of haproxy.cfg with HAProxy's quoting and escaping rules. */
export function tokenizeLine(line: string, rel = 0): ParsedLine {
  return tokenizeRange(line, 0, line.length, rel);
}

/**
 * Tokenizes the line text[from, to) (without its LF) in place: columns are relative to `from`, and no string is
 * made of the line itself, only of its words (a section is tokenized line by line straight from its text).
 */
function tokenizeRange(line: string, from: number, to: number, rel: number): ParsedLine {
  const tokens: Token[] = [];
  const n = to > from && line.charCodeAt(to - 1) === 13 ? to - 1 : to;
  let i = from;
  let indent = -1;
  let comment: number | undefined;
  let error: ParsedLine['error'];
  while (i < n) {
    const c = line.charCodeAt(i);
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
    // fast path: a plain word (no quote, escape or control character) is a slice of the line
    let j = i;
    let ch = 0;
    let h = 0;
    for (; j < n; j++) {
      ch = line.charCodeAt(j);
      if (ch <= 39 || ch === 92 || ch === 127) {
        if (ch === 32 || ch === 9 || ch === 35 || ch === 34 || ch === 39 || ch < 32 || ch === 127 || ch === 92) break;
      }
      h = (Math.imul(h, 31) + ch) | 0;
    }
    if (j === n || ch === 32 || ch === 9 || ch === 35) {
      tokens.push({ text: commonWord(line, i, j - i, h) ?? line.slice(i, j), start, end: j - from });
      i = j;
      continue;
    }
    let text = line.slice(i, j);
    i = j;
    let quote = 0;
    let quoteStart = 0;
    while (i < n) {
      const ch = line.charCodeAt(i);
      if (quote === 39 /* ' */) {
        if (ch === 39) quote = 0;
        else text += line[i];
        i++;
        continue;
      }
      if (ch === 92 /* \ */ && i + 1 < n) {
        const next = line[i + 1]!;
        if (next === 'x' && i + 3 < n && /^[0-9a-fA-F]{2}$/.test(line.slice(i + 2, i + 4))) {
          text += String.fromCharCode(parseInt(line.slice(i + 2, i + 4), 16));
          i += 4;
        } else if (ESCAPED.has(next)) {
          text += next === 'r' ? '\r' : next === 'n' ? '\n' : next === 't' ? '\t' : next;
          i += 2;
        } else {
          // HAProxy keeps an unknown escape as written (backslash included)
          text += '\\' + next;
          i += 2;
        }
        continue;
      }
      if (quote === 34 /* " */) {
        if (ch === 34) quote = 0;
        else text += line[i];
        i++;
        continue;
      }
      if (ch === 34 || ch === 39) {
        quote = ch;
        quoteStart = i - from;
        i++;
        continue;
      }
      if (ch === 32 || ch === 9 || ch === 35) break;
      if ((ch < 32 && ch !== 9) || ch === 127) {
        error ??= { message: `unexpected control character 0x${ch.toString(16).padStart(2, '0')}`, column: i - from };
      }
      text += line[i];
      i++;
    }
    if (quote) {
      error ??= { message: `unmatched quote at position ${quoteStart}`, column: quoteStart };
    }
    tokens.push({ text, start, end: i - from });
    if (quote) break;
  }
  const length = n - from;
  const parsed: ParsedLine = { rel, indent: indent < 0 ? length : indent, length, tokens: tokens.length ? tokens : NO_WORDS };
  if (comment !== undefined) parsed.comment = comment;
  if (error) parsed.error = error;
  return parsed;
}

/** Cheap test of a raw line: does it open a section? (first word is a section keyword) */
/** First letters of the section keywords, to reject most lines without building a string. */
const SECTION_INITIALS = new Set([...SECTION_KEYWORDS].map((k) => k.charCodeAt(0)));

/** Does the line text[from, to) open a section? (its first word is a section keyword) */
function sectionKeywordAt(text: string, from: number, to: number): string | undefined {
  let i = from;
  while (i < to && (text.charCodeAt(i) === 32 || text.charCodeAt(i) === 9)) i++;
  if (i >= to || !SECTION_INITIALS.has(text.charCodeAt(i))) return undefined;
  let j = i;
  while (j < to && j - i <= 11) {
    const c = text.charCodeAt(j);
    if (c === 32 || c === 9 || c === 35 || c === 13) break;
    j++;
  }
  if (j - i > 11) return undefined;
  const word = text.slice(i, j);
  return SECTION_KEYWORDS.has(word) ? word : undefined;
}

interface CachedSection {
  lines: ParsedLine[];
  type: string;
  name?: string;
  index: Map<string, ParsedLine[]>;
  memo: SectionMemo;
}

/** Parsed sections keyed by their text; bounded so a long editing session does not grow it forever. */
const sectionCache = new Map<string, CachedSection>();
const preambleCache = new Map<string, CachedSection>();
const CACHE_LIMIT = 20_000;

function parseSectionText(text: string, preamble: boolean): CachedSection {
  const cache = preamble ? preambleCache : sectionCache;
  const hit = cache.get(text);
  if (hit) return hit;
  const lines: ParsedLine[] = [];
  for (let pos = 0, rel = 0; pos < text.length || rel === 0; rel++) {
    let nl = text.indexOf('\n', pos);
    if (nl < 0) nl = text.length;
    lines.push(tokenizeRange(text, pos, nl, rel));
    pos = nl + 1;
  }
  const header = lines[0]?.tokens;
  const index = new Map<string, ParsedLine[]>();
  for (const l of lines) {
    const kw = l.tokens[0]?.text;
    if (kw === undefined || (l.rel === 0 && !preamble)) continue;
    const list = index.get(kw);
    if (list) list.push(l);
    else index.set(kw, [l]);
  }
  const result: CachedSection = { lines, type: preamble ? '' : (header?.[0]?.text ?? ''), index, memo: {} };
  if (!preamble && header?.[1]) result.name = header[1].text;
  if (cache.size >= CACHE_LIMIT) cache.clear();
  cache.set(text, result);
  return result;
}

/** Drops the parsed-section cache (benchmarks measure cold runs with it). */
export function clearSectionCache(): void {
  sectionCache.clear();
  preambleCache.clear();
}

export function parseHaproxy(text: string): HaproxyConfig {
  if (looksBinary(text)) return { sections: [], lineCount: 1, binary: true };
  const sections: Section[] = [];
  let sectionStart = 0;
  let sectionLine = 0;
  let line = 0;
  let pos = 0;
  let preamble = true;
  const flush = (endOffset: number) => {
    if (endOffset <= sectionStart && !(preamble === false)) return;
    const body = text.slice(sectionStart, endOffset);
    const parsed = parseSectionText(body, preamble);
    const section: Section = { type: parsed.type, startLine: sectionLine, lines: parsed.lines, text: body, index: parsed.index, memo: parsed.memo };
    if (parsed.name !== undefined) section.name = parsed.name;
    sections.push(section);
  };
  while (pos <= text.length) {
    let nl = text.indexOf('\n', pos);
    if (nl < 0) nl = text.length;
    const kw = sectionKeywordAt(text, pos, nl);
    if (kw) {
      if (pos > sectionStart || !preamble) flush(pos);
      sectionStart = pos;
      sectionLine = line;
      preamble = false;
    }
    if (nl >= text.length) break;
    pos = nl + 1;
    line++;
  }
  flush(text.length);
  return { sections, lineCount: line + 1 };
}

/** Body lines whose words start with `words` (e.g. ['timeout', 'client']), in order. */
export function findLines(section: Section, ...words: string[]): ParsedLine[] {
  const byKeyword = section.index.get(words[0] ?? '') ?? [];
  if (words.length === 1) return byKeyword as ParsedLine[];
  return byKeyword.filter((l) => words.every((w, i) => l.tokens[i]?.text === w));
}
