/**
 * The slow path of the haproxy.cfg tokenizer (./lines.ts): a word with quotes, escapes or control characters, whose
 * text differs from its raw characters. HAProxy's rules: `"..."` and `'...'` quote (single quotes are strong: no
 * escapes inside), `\` escapes the next character outside single quotes (`\xHH` a byte), and a blank or `#` outside
 * quotes ends the word.
 */
import type { LineProblem } from './lines';
import { t } from '../l10n';

/** Characters a backslash escapes (anything else keeps its backslash). */
const ESCAPED = new Set(['\\', ' ', '#', "'", '"', '$', 'r', 'n', 't', '\t']);

export interface QuotedWord {
  /** The word's text, unquoted and unescaped. */
  text: string;
  /** Where its raw characters end in the text. */
  end: number;
  /** The line column of a quote that is never closed (the line ends inside it), else -1. */
  openQuote: number;
  /** The first problem found in it (a control character). */
  problem: LineProblem | undefined;
}

/**
 * Reads the rest of a word from text[at, n) of the line that starts at `lineStart`; `prefix` is its text so far
 * (the plain characters before the first quote, escape or control character).
 */
export function readQuotedWord(text: string, at: number, n: number, lineStart: number, prefix: string): QuotedWord {
  let word = prefix;
  let i = at;
  let quote = 0;
  let quoteStart = 0;
  let problem: LineProblem | undefined;
  while (i < n) {
    const ch = text.charCodeAt(i);
    if (quote === 39 /* ' */) {
      if (ch === 39) quote = 0;
      else word += text[i];
      i++;
      continue;
    }
    if (ch === 92 /* \ */ && i + 1 < n) {
      const next = text[i + 1]!;
      if (next === 'x' && i + 3 < n && /^[0-9a-fA-F]{2}$/.test(text.slice(i + 2, i + 4))) {
        word += String.fromCharCode(parseInt(text.slice(i + 2, i + 4), 16));
        i += 4;
      } else if (ESCAPED.has(next)) {
        word += next === 'r' ? '\r' : next === 'n' ? '\n' : next === 't' ? '\t' : next;
        i += 2;
      } else {
        // HAProxy keeps an unknown escape as written (backslash included)
        word += '\\' + next;
        i += 2;
      }
      continue;
    }
    if (quote === 34 /* " */) {
      if (ch === 34) quote = 0;
      else word += text[i];
      i++;
      continue;
    }
    if (ch === 34 || ch === 39) {
      quote = ch;
      quoteStart = i - lineStart;
      i++;
      continue;
    }
    if (ch === 32 || ch === 9 || ch === 35) break;
    if ((ch < 32 && ch !== 9) || ch === 127) {
      problem ??= { message: t('unexpected control character 0x{0}', ch.toString(16).padStart(2, '0')), column: i - lineStart };
    }
    word += text[i];
    i++;
  }
  return { text: word, end: i, openQuote: quote ? quoteStart : -1, problem };
}
