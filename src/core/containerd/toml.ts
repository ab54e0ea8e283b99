/**
 * containerd's config.toml: the values through smol-toml, the positions by a line scan that maps each
 * table header and `key = value` line to its full dotted path (smol-toml keeps no positions).
 */
import type * as SmolToml from 'smol-toml' with { 'resolution-mode': 'import' };
import { errorMessage } from '../errors';

// smol-toml is an ES module with a CommonJS build; the core compiles to CommonJS, so load that build.
// eslint-disable-next-line @typescript-eslint/no-require-imports
const { parse, TomlError } = require('smol-toml') as typeof SmolToml;

export interface TomlLine {
  /** Full key path (table path + key). */
  path: string[];
  line: number;
  /** Character range of the value on the line (for a key) or of the header (for a table). */
  start: number;
  end: number;
  isTable: boolean;
  /** Indentation of the line. */
  indent: string;
}

export interface TomlParse {
  data?: Record<string, unknown>;
  error?: { message: string; line: number; column: number };
  lines: TomlLine[];
}

const KEY_PART = String.raw`(?:[A-Za-z0-9_-]+|"(?:[^"\\]|\\.)*"|'[^']*')`;
const DOTTED = new RegExp(String.raw`^${KEY_PART}(?:\s*\.\s*${KEY_PART})*`);

export function splitKey(key: string): string[] {
  const parts: string[] = [];
  const re = new RegExp(KEY_PART, 'g');
  for (const m of key.matchAll(re)) {
    const p = m[0];
    parts.push(p.startsWith('"') ? (JSON.parse(p) as string) : p.startsWith("'") ? p.slice(1, -1) : p);
  }
  return parts;
}

export function pathKey(path: string[]): string {
  return path.join('\u0000');
}

export function parseToml(text: string): TomlParse {
  const lines = scan(text);
  try {
    return { data: parse(text) as Record<string, unknown>, lines };
  } catch (e) {
    if (e instanceof TomlError) return { error: { message: e.message.split('\n')[0]!, line: Math.max(0, e.line - 1), column: Math.max(0, e.column - 1) }, lines };
    return { error: { message: errorMessage(e), line: 0, column: 0 }, lines };
  }
}

function scan(text: string): TomlLine[] {
  const out: TomlLine[] = [];
  let table: string[] = [];
  let inMultiline: string | undefined;
  const rows = text.split('\n');
  for (let i = 0; i < rows.length; i++) {
    const raw = rows[i]!.replace(/\r$/, '');
    if (inMultiline) {
      if (raw.includes(inMultiline)) inMultiline = undefined;
      continue;
    }
    const indent = /^[ \t]*/.exec(raw)![0];
    const body = raw.slice(indent.length);
    if (!body || body.startsWith('#')) continue;
    const header = /^\[\[?\s*([^\]]*?)\s*\]\]?/.exec(body);
    if (header) {
      table = splitKey(header[1]!);
      out.push({ path: table, line: i, start: indent.length, end: indent.length + header[0].length, isTable: true, indent });
      continue;
    }
    const key = DOTTED.exec(body);
    if (!key) continue;
    const rest = body.slice(key[0].length);
    const eq = /^\s*=\s*/.exec(rest);
    if (!eq) continue;
    const valueStart = indent.length + key[0].length + eq[0].length;
    const valueText = raw.slice(valueStart);
    const end = valueStart + valueText.replace(/\s+#[^"']*$/, '').trimEnd().length;
    out.push({ path: [...table, ...splitKey(key[0])], line: i, start: valueStart, end: Math.max(end, valueStart), isTable: false, indent });
    for (const q of ['"""', "'''"]) {
      const first = valueText.indexOf(q);
      if (first >= 0 && valueText.indexOf(q, first + 3) < 0) inMultiline = q;
    }
  }
  return out;
}

/** The value at a path in parsed TOML data. */
export function getIn(data: unknown, path: string[]): unknown {
  let cur = data;
  for (const p of path) {
    if (!cur || typeof cur !== 'object' || Array.isArray(cur)) return undefined;
    cur = (cur as Record<string, unknown>)[p];
  }
  return cur;
}
