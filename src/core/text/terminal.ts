/**
 * Text on its way to a terminal. What we print comes from files, hosts and backup manifests, any of which may hold
 * control characters: an ESC starts a sequence that moves the cursor, rewrites lines or sets the window title (OSC),
 * a carriage return or backspace overwrites what is already shown, bidi controls reorder what is read. Each becomes
 * a visible `\uXXXX` — the JSON escape, so JSON output stays valid JSON with the same value (a JSON string may hold
 * DEL, C1 and bidi characters raw; JSON.stringify escapes only C0) — and text output shows what was there.
 */

/**
 * C0 but tab and newline, DEL, C1, the bidi controls (ALM, LRM, RLM, LRE…RLO, LRI…PDI), the line/paragraph
 * separators, and the zero-width characters (ZWSP, ZWNJ, ZWJ, word joiner, BOM), which make two different names
 * print alike.
 */
const CONTROLS = /[\u0000-\u0008\u000b-\u001f\u007f-\u009f\u061c\u200b-\u200f\u202a-\u202e\u2060\u2066-\u2069\u2028\u2029\ufeff]/g;
const CONTROLS_AND_BREAKS = /[\u0000-\u001f\u007f-\u009f\u061c\u200b-\u200f\u202a-\u202e\u2060\u2066-\u2069\u2028\u2029\ufeff]/g;

const escape = (c: string): string => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`;

/** Every control and bidi character as a visible `\uXXXX`; newlines and tabs are kept. */
export function escapeControls(text: string): string {
  return text.replace(CONTROLS, escape);
}

/** The same for text that must stay on one line (a finding's message): newlines and tabs are escaped too. */
export function oneLine(text: string): string {
  return text.replace(CONTROLS_AND_BREAKS, (c) => (c === '\n' ? '\\n' : c === '\t' ? '\\t' : escape(c)));
}

/** Whether printing `text` as it is could move the cursor, forge a line or reorder what is read. */
export function hasControls(text: string): boolean {
  CONTROLS_AND_BREAKS.lastIndex = 0;
  const found = CONTROLS_AND_BREAKS.test(text);
  CONTROLS_AND_BREAKS.lastIndex = 0;
  return found;
}

/**
 * A file name as printed: as it is when it is plain, quoted as a JSON string (every control character escaped)
 * when it holds a newline or any other control — so a name cannot forge a line of `file:line:col: …` output.
 */
export function shownPath(path: string): string {
  return hasControls(path) ? escapeControls(JSON.stringify(path)) : path;
}
