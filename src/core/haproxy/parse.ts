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
}

export interface HaproxyConfig {
  sections: Section[];
  lineCount: number;
  /** Set when the input is not a text file; nothing else is parsed then. */
  binary?: boolean;
}

/** Tokenizes one line of haproxy.cfg with HAProxy's quoting and escaping rules. */
export function tokenizeLine(line: string, rel = 0): ParsedLine {
  const tokens: Token[] = [];
  const n = line.length > 0 && line.charCodeAt(line.length - 1) === 13 ? line.length - 1 : line.length;
  let i = 0;
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
      comment = i;
      break;
    }
    if (indent < 0) indent = i;
    const start = i;
    let text = '';
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
        if (next === 'x' && /^[0-9a-fA-F]{2}$/.test(line.slice(i + 2, i + 4))) {
          text += String.fromCharCode(parseInt(line.slice(i + 2, i + 4), 16));
          i += 4;
        } else {
          text += next === 'r' ? '\r' : next === 'n' ? '\n' : next === 't' ? '\t' : next;
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
        quoteStart = i;
        i++;
        continue;
      }
      if (ch === 32 || ch === 9 || ch === 35) break;
      if ((ch < 32 && ch !== 9) || ch === 127) {
        error ??= { message: `unexpected control character 0x${ch.toString(16).padStart(2, '0')}`, column: i };
      }
      text += line[i];
      i++;
    }
    if (quote) {
      error ??= { message: `unmatched quote at position ${quoteStart}`, column: quoteStart };
    }
    tokens.push({ text, start, end: i });
    if (quote) break;
  }
  const length = n;
  const parsed: ParsedLine = { rel, indent: indent < 0 ? length : indent, length, tokens };
  if (comment !== undefined) parsed.comment = comment;
  if (error) parsed.error = error;
  return parsed;
}

/** Cheap test of a raw line: does it open a section? (first word is a section keyword) */
function sectionKeywordOf(line: string): string | undefined {
  let i = 0;
  while (i < line.length && (line.charCodeAt(i) === 32 || line.charCodeAt(i) === 9)) i++;
  let j = i;
  while (j < line.length) {
    const c = line.charCodeAt(j);
    if (c === 32 || c === 9 || c === 35 || c === 13) break;
    j++;
  }
  if (j === i || j - i > 11) return undefined;
  const word = line.slice(i, j);
  return SECTION_KEYWORDS.has(word) ? word : undefined;
}

interface CachedSection {
  lines: ParsedLine[];
  type: string;
  name?: string;
}

/** Parsed sections keyed by their text; bounded so a long editing session does not grow it forever. */
const sectionCache = new Map<string, CachedSection>();
const CACHE_LIMIT = 20_000;

function parseSectionText(text: string, preamble: boolean): CachedSection {
  const key = (preamble ? 'P' : 'S') + text;
  const hit = sectionCache.get(key);
  if (hit) return hit;
  const raw = text.split('\n');
  if (raw.length > 1 && raw[raw.length - 1] === '') raw.pop();
  const lines = raw.map((l, rel) => tokenizeLine(l, rel));
  const header = lines[0]?.tokens;
  const result: CachedSection = { lines, type: preamble ? '' : (header?.[0]?.text ?? '') };
  if (!preamble && header?.[1]) result.name = header[1].text;
  if (sectionCache.size >= CACHE_LIMIT) sectionCache.clear();
  sectionCache.set(key, result);
  return result;
}

/** True when the text is not a text file (NUL bytes, or mostly control characters). */
export function looksBinary(text: string): boolean {
  const sample = text.slice(0, 8192);
  if (sample.includes('\u0000')) return true;
  let control = 0;
  for (let i = 0; i < sample.length; i++) {
    const c = sample.charCodeAt(i);
    if ((c < 32 && c !== 9 && c !== 10 && c !== 13) || c === 0xfffd) control++;
  }
  return sample.length > 0 && control / sample.length > 0.1;
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
    const section: Section = { type: parsed.type, startLine: sectionLine, lines: parsed.lines, text: body };
    if (parsed.name !== undefined) section.name = parsed.name;
    sections.push(section);
  };
  while (pos <= text.length) {
    let nl = text.indexOf('\n', pos);
    if (nl < 0) nl = text.length;
    const kw = sectionKeywordOf(text.slice(pos, Math.min(nl, pos + 64)));
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

/** Lines of a section that carry a keyword (not blank, not comment-only), header excluded. */
export function bodyLines(section: Section): ParsedLine[] {
  return section.lines.filter((l) => l.rel > 0 && l.tokens.length > 0);
}

/** The first body line whose words start with `words` (e.g. ['timeout', 'client']). */
export function findLine(section: Section, ...words: string[]): ParsedLine | undefined {
  return section.lines.find((l) => l.rel > 0 && words.every((w, i) => l.tokens[i]?.text === w));
}

export function findLines(section: Section, ...words: string[]): ParsedLine[] {
  return section.lines.filter((l) => l.rel > 0 && words.every((w, i) => l.tokens[i]?.text === w));
}
