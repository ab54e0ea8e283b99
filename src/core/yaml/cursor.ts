/**
 * Where the cursor is in a YAML file that is being typed — often not valid YAML yet (`  na` with no colon, an open
 * `{`): the path of keys and item indexes from the document root, whether a key or a value is being typed, the word
 * typed so far, and the keys the mapping already has (before and after the cursor). Block and flow style both: an
 * inventory's hosts are usually `- { name: …, roles: [worker] }`. Read by indentation and brackets, not by a parser
 * that would give up on the half-typed line; for completion and hovers (./fieldDocs.ts), editor-free.
 */

export type PathSegment = string | number;

export interface YamlCursor {
  /** The mapping being typed into ('key'), or the key (or sequence item) whose value is being typed ('value'). */
  path: PathSegment[];
  at: 'key' | 'value';
  /** The word typed so far and the offset where it starts (what a completion replaces). */
  prefix: string;
  prefixStart: number;
  /** Inside `{ }` or `[ ]`: a key is completed as `key: `, never followed by a new line. */
  flow: boolean;
  /** The keys the mapping at `path` (for 'key') already has, anywhere in it; the word being typed is left out. */
  existingKeys: string[];
  /** The document's top-level scalars the cursor is in (`apiVersion`, `kind`), for multi-document kubeadm files. */
  documentRoot: Record<string, string>;
}

interface Frame {
  kind: 'map' | 'seq';
  flow: boolean;
  /** Column of a block mapping's keys or a block sequence's dashes; -1 in flow style. */
  indent: number;
  path: PathSegment[];
  /** Mapping: the key seen last. */
  key?: string;
  /** Mapping: the cursor is after the current key's colon (flow), or the key's value is on the next lines (block). */
  afterColon: boolean;
  /** Sequence: the current item. */
  index: number;
}

const KEY_PLAIN = /^([^\s#'"{}[\],&*!|>%@`-][^#]*?|-[^\s#][^#]*?)\s*:(?=\s|$)/;
const KEY_DOUBLE = /^"((?:[^"\\]|\\.)*)"\s*:(?=\s|$)/;
const KEY_SINGLE = /^'((?:[^']|'')*)'\s*:(?=\s|$)/;

/** A key at the start of `rest` and the length up to and with its colon. */
function keyAt(rest: string): { key: string; length: number } | undefined {
  const m = KEY_DOUBLE.exec(rest) ?? KEY_SINGLE.exec(rest) ?? KEY_PLAIN.exec(rest);
  if (!m) return undefined;
  const raw = m[1]!;
  const key = m[0].startsWith('"') ? raw.replace(/\\(.)/g, '$1') : m[0].startsWith("'") ? raw.replace(/''/g, "'") : raw.trim();
  return { key, length: m[0].length };
}

function unquote(s: string): string {
  const t = s.trim();
  if (t.length >= 2 && ((t.startsWith('"') && t.endsWith('"')) || (t.startsWith("'") && t.endsWith("'")))) return t.slice(1, -1);
  return t;
}

function stripComment(s: string): string {
  const m = /(^|\s)#/.exec(s);
  return m ? s.slice(0, m.index) : s;
}

const keyOf = (doc: number, path: readonly PathSegment[]): string => `${doc}|${JSON.stringify(path)}`;

class Scanner {
  frames: Frame[] = [];
  doc = 0;
  /** Lines more indented than this belong to a block scalar (`|`, `>`). */
  blockScalar: number | undefined;
  readonly keys = new Map<string, string[]>();
  readonly roots = new Map<number, Record<string, string>>();

  top(): Frame | undefined {
    return this.frames[this.frames.length - 1];
  }

  private childPath(parent: Frame | undefined): PathSegment[] {
    if (!parent) return [];
    return parent.kind === 'map' ? [...parent.path, parent.key ?? ''] : [...parent.path, Math.max(0, parent.index)];
  }

  private push(kind: Frame['kind'], flow: boolean, indent: number): Frame {
    const f: Frame = { kind, flow, indent, path: this.childPath(this.top()), afterColon: false, index: 0 };
    this.frames.push(f);
    return f;
  }

  addKey(f: Frame, key: string): void {
    f.key = key;
    const k = keyOf(this.doc, f.path);
    const list = this.keys.get(k) ?? [];
    if (!list.includes(key)) list.push(key);
    this.keys.set(k, list);
  }

  flowDepth(): number {
    return this.frames.filter((f) => f.flow).length;
  }

  popTo(col: number): void {
    for (let t = this.top(); t && !t.flow && t.indent > col; t = this.top()) this.frames.pop();
  }

  seqAt(c: number): void {
    const t = this.top();
    if (t && !t.flow && t.kind === 'seq' && t.indent === c) {
      t.index++;
      return;
    }
    this.push('seq', false, c);
  }

  mapAt(c: number): Frame {
    let t = this.top();
    if (t && !t.flow && t.kind === 'seq' && t.indent === c) {
      // A sequence at its parent key's own column (`hosts:` then `- a` at column 0) ends with the next key there.
      this.frames.pop();
      t = this.top();
    }
    if (t && !t.flow && t.kind === 'map' && t.indent === c) return t;
    return this.push('map', false, c);
  }

  /** One whole line in block context (not inside brackets). */
  line(line: string): void {
    const indent = /^ */.exec(line)![0].length;
    const content = line.slice(indent);
    if (this.blockScalar !== undefined) {
      if (content === '' || indent > this.blockScalar) return;
      this.blockScalar = undefined;
    }
    if (content === '' || content.startsWith('#')) return;
    if (/^(---|\.\.\.)(\s|$)/.test(line)) {
      this.frames = [];
      this.doc++;
      return;
    }
    this.popTo(indent);
    let c = indent;
    while (/^-( |$)/.test(line.slice(c))) {
      this.seqAt(c);
      c += 1 + /^ */.exec(line.slice(c + 1))![0].length;
    }
    const rest = line.slice(c);
    const k = keyAt(rest);
    if (k) {
      const map = this.mapAt(c);
      this.addKey(map, k.key);
      const v = c + k.length + /^ */.exec(line.slice(c + k.length))![0].length;
      const value = stripComment(line.slice(v));
      map.afterColon = value.trim() === '';
      if (/^[{[]/.test(value)) this.flow(line, v);
      else if (/^[|>]/.test(value)) this.blockScalar = c;
      else if (map.path.length === 0 && value.trim()) this.root()[k.key] = unquote(value);
      return;
    }
    if (/^[{[]/.test(rest)) this.flow(line, c);
  }

  root(): Record<string, string> {
    let r = this.roots.get(this.doc);
    if (!r) this.roots.set(this.doc, (r = {}));
    return r;
  }

  /** Characters in flow context from `start`, until the brackets close or the line ends (they go on next line). */
  flow(line: string, start: number): number {
    let i = start;
    while (i < line.length) {
      const ch = line[i]!;
      const top = this.top();
      if (ch === ' ' || ch === '\t') i++;
      else if (ch === '#' && (i === 0 || /\s/.test(line[i - 1]!))) return line.length;
      else if (ch === '{' || ch === '[') {
        this.push(ch === '{' ? 'map' : 'seq', true, -1);
        i++;
      } else if (ch === '}' || ch === ']') {
        if (top?.flow) this.frames.pop();
        i++;
        if (!this.flowDepth()) return line.length;
      } else if (ch === ',') {
        if (top?.kind === 'map') {
          top.afterColon = false;
          top.key = undefined;
        } else if (top) top.index++;
        i++;
      } else if (ch === ':' && top?.kind === 'map' && (i + 1 >= line.length || /[\s,\]}]/.test(line[i + 1]!))) {
        top.afterColon = true;
        i++;
      } else {
        let j = i;
        let token: string;
        if (ch === '"' || ch === "'") {
          j = i + 1;
          while (j < line.length && !(line[j] === ch && (ch === "'" ? line[j + 1] !== "'" : line[j - 1] !== '\\'))) j += ch === "'" && line[j] === "'" ? 2 : 1;
          token = unquote(line.slice(i, j + 1));
          j = Math.min(line.length, j + 1);
        } else {
          while (j < line.length && !/[,[\]{}]/.test(line[j]!) && !(line[j] === ':' && (j + 1 >= line.length || /[\s,\]}]/.test(line[j + 1]!))) && !(line[j] === '#' && /\s/.test(line[j - 1] ?? ' '))) j++;
          token = line.slice(i, j).trim();
        }
        if (top?.kind === 'map' && !top.afterColon && token) this.addKey(top, token);
        i = Math.max(j, i + 1);
      }
    }
    return i;
  }

  /** The whole text, line by line. */
  all(text: string): void {
    for (const line of text.split(/\r?\n/)) {
      if (this.flowDepth()) this.flow(line, 0);
      else this.line(line);
    }
  }
}

/** The word typed before the cursor on its line (no spaces, brackets, commas or quotes). */
function wordBefore(line: string): string {
  return /[^\s{}[\],'"]*$/.exec(line)![0];
}

/**
 * The cursor at `offset`, or undefined where nothing is completed (a comment, a block scalar's text).
 */
export function yamlCursor(text: string, offset: number): YamlCursor | undefined {
  const before = text.slice(0, offset);
  const lineStart = before.lastIndexOf('\n') + 1;
  const line = before.slice(lineStart).replace(/\r$/, '');
  const s = new Scanner();
  s.all(before.slice(0, lineStart === 0 ? 0 : lineStart - 1));
  if (lineStart === 0) s.frames = [];
  const full = new Scanner();
  full.all(text);
  const finish = (path: PathSegment[], at: 'key' | 'value', flow: boolean): YamlCursor => {
    const prefix = wordBefore(line).replace(/^-$/, '');
    const existing = at === 'key' ? (full.keys.get(keyOf(s.doc, path)) ?? []).filter((k) => k !== prefix) : [];
    return { path, at, prefix, prefixStart: offset - prefix.length, flow, existingKeys: existing, documentRoot: full.roots.get(s.doc) ?? {} };
  };
  const inFlow = (): YamlCursor | undefined => {
    const t = s.top()!;
    if (t.kind === 'seq') return finish([...t.path, t.index], 'value', true);
    return t.afterColon ? finish([...t.path, t.key ?? ''], 'value', true) : finish(t.path, 'key', true);
  };
  if (s.flowDepth()) {
    s.flow(line, 0);
    return s.flowDepth() ? inFlow() : undefined;
  }
  const indent = /^ */.exec(line)![0].length;
  if (s.blockScalar !== undefined && indent > s.blockScalar) return undefined;
  if (/(^|\s)#/.test(line) || /^(---|\.\.\.)/.test(line)) return undefined;
  s.popTo(indent);
  let c = indent;
  let item = false;
  while (/^-( |$)/.test(line.slice(c)) && c < line.length) {
    s.seqAt(c);
    c += 1 + /^ */.exec(line.slice(c + 1))![0].length;
    item = true;
  }
  const rest = line.slice(c);
  const k = keyAt(rest);
  if (k) {
    const map = s.mapAt(c);
    map.key = k.key;
    const v = c + k.length + /^ */.exec(line.slice(c + k.length))![0].length;
    if (/^[{[]/.test(line.slice(v))) {
      map.afterColon = false;
      s.flow(line, v);
      return s.flowDepth() ? inFlow() : undefined;
    }
    if (/^[|>]/.test(line.slice(v))) return undefined;
    return finish([...map.path, k.key], 'value', false);
  }
  if (/^[{[]/.test(rest)) {
    s.flow(line, c);
    return s.flowDepth() ? inFlow() : undefined;
  }
  if (item) {
    const seq = s.top()!;
    return finish([...seq.path, seq.index], 'value', false);
  }
  // A key being typed (or an empty line): the mapping at this column, or a new one under a key whose value is pending.
  let t = s.top();
  if (t && !t.flow && t.kind === 'seq' && t.indent === c) {
    s.frames.pop();
    t = s.top();
  }
  if (!t) return finish([], 'key', false);
  if (t.kind === 'map' && t.indent === c) return finish(t.path, 'key', false);
  if (t.kind === 'map') return finish([...t.path, t.key ?? ''], 'key', false);
  return finish([...t.path, t.index], 'key', false);
}

export interface YamlField {
  /** The key's path (on a key), or the path of the key whose value it is (on a value). */
  path: PathSegment[];
  on: 'key' | 'value';
  /** The word's offsets in the text. */
  start: number;
  end: number;
  documentRoot: Record<string, string>;
}

const WORD = /[^\s{}[\],:'"#]/;

/** The key or value word under `offset` and the field it belongs to (for hovers). */
export function yamlFieldAt(text: string, offset: number): YamlField | undefined {
  const lineStart = text.lastIndexOf('\n', offset - 1) + 1;
  const lineEnd = text.indexOf('\n', offset) < 0 ? text.length : text.indexOf('\n', offset);
  const line = text.slice(lineStart, lineEnd);
  let a = offset - lineStart;
  let b = a;
  // A key may hold dots, dashes and slashes; a colon ends it only when a space, bracket or the line's end follows.
  const inWord = (i: number): boolean => i >= 0 && i < line.length && (WORD.test(line[i]!) || (line[i] === ':' && i + 1 < line.length && !/[\s,\]}]/.test(line[i + 1]!)));
  while (inWord(a - 1)) a--;
  while (inWord(b)) b++;
  if (a === b || /(^|\s)#/.test(line.slice(0, a))) return undefined;
  const isKey = /^\s*:(\s|$|[,\]}])/.test(line.slice(b));
  const cursor = yamlCursor(text, lineStart + b);
  if (!cursor) return undefined;
  const word = line.slice(a, b);
  if (isKey && cursor.at === 'key') return { path: [...cursor.path, word], on: 'key', start: lineStart + a, end: lineStart + b, documentRoot: cursor.documentRoot };
  if (!isKey && cursor.at === 'value') return { path: cursor.path, on: 'value', start: lineStart + a, end: lineStart + b, documentRoot: cursor.documentRoot };
  return undefined;
}
