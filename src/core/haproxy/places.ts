/**
 * Where a haproxy.cfg finding points and how its fix edits: token and line ranges, inserted and deleted
 * lines, and the small value checks (times, ports, host:port) the rules share.
 */
import type { Range, TextEdit } from '../findings';
import type { ParsedLine, Section, Token } from './parse';

// ---------------------------------------------------------------------------------------------- helpers

/** Parses an HAProxy time (`5s`, `1h`, `300` = ms); undefined when malformed. */
export function parseTime(value: string): number | undefined {
  // digits, then an optional unit (what /^(\d+)(us|ms|s|m|h|d)?$/ matches), read without a match array
  let digits = 0;
  while (digits < value.length && value.charCodeAt(digits) >= 48 && value.charCodeAt(digits) <= 57) digits++;
  if (digits === 0) return undefined;
  const factor = digits === value.length ? 1 : TIME_UNITS.get(value.slice(digits));
  return factor === undefined ? undefined : Number(digits === value.length ? value : value.slice(0, digits)) * factor;
}
const TIME_UNITS = new Map([
  ['us', 0.001],
  ['ms', 1],
  ['s', 1000],
  ['m', 60_000],
  ['h', 3_600_000],
  ['d', 86_400_000],
]);

export function formatMs(ms: number): string {
  if (ms >= 3_600_000 && ms % 3_600_000 === 0) return `${ms / 3_600_000}h`;
  if (ms >= 60_000 && ms % 60_000 === 0) return `${ms / 60_000}m`;
  if (ms >= 1000 && ms % 1000 === 0) return `${ms / 1000}s`;
  return `${ms}ms`;
}

export interface Place {
  section: Section;
  line: ParsedLine;
}

export function abs(p: Place): number {
  return p.section.startLine + p.line.rel;
}

export function tokenRange(p: Place, t: Token | undefined): Range {
  const line = abs(p);
  if (!t) return { start: { line, character: p.line.indent }, end: { line, character: p.line.length } };
  return { start: { line, character: t.start }, end: { line, character: t.end } };
}

/** The range of word i of the place's line (the line's content when it has no such word). */
export function wordRange(p: Place, i: number): Range {
  const line = abs(p);
  if (i >= p.line.count) return { start: { line, character: p.line.indent }, end: { line, character: p.line.length } };
  return { start: { line, character: p.line.start(i) }, end: { line, character: p.line.end(i) } };
}

export function lineRange(p: Place): Range {
  const line = abs(p);
  const words = p.line.count;
  return { start: { line, character: p.line.indent }, end: { line, character: words ? p.line.end(words - 1) : p.line.length } };
}

export function replaceToken(p: Place, t: Token, text: string): TextEdit {
  return { range: tokenRange(p, t), newText: text };
}

export function bodyIndent(section: Section): string {
  let indent = 0;
  for (let rel = 1; rel < section.lineCount && indent === 0; rel++) {
    const l = section.line(rel);
    if (l.count > 0) indent = l.indent > 0 ? l.indent : -1;
  }
  return ' '.repeat(indent > 0 ? indent : 4);
}

/** Inserts lines right after a line of a section (at the end of that line, so no trailing-line edge case). */
export function insertAfter(p: Place, lines: string[], eol: string): TextEdit {
  const line = abs(p);
  const indent = bodyIndent(p.section);
  return { range: { start: { line, character: p.line.length }, end: { line, character: p.line.length } }, newText: lines.map((l) => eol + indent + l).join('') };
}

export function deleteLine(p: Place): TextEdit {
  const line = abs(p);
  return { range: { start: { line, character: 0 }, end: { line: line + 1, character: 0 } }, newText: '' };
}

export function header(section: Section): Place {
  return { section, line: section.line(0) };
}

/** The places of the section's body lines that start with `first` (and `second`). */
export function placesOf(section: Section, first: string, second?: string): Place[] {
  return section.find(first, second).map((line) => ({ section, line }));
}

/** The place of the section's last body line that starts with `first` (and `second`). */
export function lastPlace(section: Section, first: string, second?: string): Place | undefined {
  const line = section.last(first, second);
  return line ? { section, line } : undefined;
}

/** Splits `host:port` (IPv6 in brackets or with several colons); port undefined when absent. */
export function splitHostPort(text: string): { host: string; port?: string } {
  let addr = text;
  const at = addr.indexOf('@');
  if (at >= 0) addr = addr.slice(at + 1);
  if (addr.startsWith('[')) {
    const close = addr.indexOf(']');
    if (close > 0) {
      const rest = addr.slice(close + 1);
      return rest.startsWith(':') ? { host: addr.slice(1, close), port: rest.slice(1) } : { host: addr.slice(1, close) };
    }
  }
  const i = addr.indexOf(':');
  if (i < 0) return { host: addr };
  if (addr.indexOf(':', i + 1) < 0) return { host: addr.slice(0, i), port: addr.slice(i + 1) };
  // bare IPv6: the last group is the port only when haproxy would read it so (ipv6@ or ends with ':port')
  const last = addr.lastIndexOf(':');
  return { host: addr.slice(0, last), port: addr.slice(last + 1) };
}

/** Digits and dots only, with at least one dot: meant as an IPv4 address (then isIPv4 decides). */
export function looksLikeIPv4(s: string): boolean {
  let dot = false;
  for (let i = 0; i < s.length; i++) {
    const c = s.charCodeAt(i);
    if (c === 46) dot = true;
    else if (c < 48 || c > 57) return false;
  }
  return dot;
}
export const WILDCARDS = new Set(['', '*', '0.0.0.0', '::']);

export function validPort(p: string, allowRange: boolean): boolean {
  const dash = allowRange ? p.indexOf('-') : -1;
  if (dash < 0) return portNumber(p);
  return p.indexOf('-', dash + 1) < 0 && portNumber(p.slice(0, dash)) && portNumber(p.slice(dash + 1));
}
function portNumber(x: string): boolean {
  return digitsValue(x, 5) <= 65535;
}

/**
 * The value of `s` when it is 1 to `maxDigits` decimal digits (what /^\d{1,maxDigits}$/ matches), else NaN: the
 * rules check a number on every server line, and a loop is several times cheaper than a regular expression and
 * Number(). Beyond 2^53 the value may differ from Number(s) in its last bits; the rules only compare it with
 * small bounds.
 */
export function digitsValue(s: string, maxDigits = Infinity): number {
  if (s.length === 0 || s.length > maxDigits) return NaN;
  let value = 0;
  for (let i = 0; i < s.length; i++) {
    const d = s.charCodeAt(i) - 48;
    if (d < 0 || d > 9) return NaN;
    value = value * 10 + d;
  }
  return value;
}
