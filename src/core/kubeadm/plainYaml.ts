/**
 * A reader for the plain subset of YAML most kubeadm documents are written in: block mappings with plain keys,
 * block sequences, and one-line plain, single- or double-quoted scalars without escapes. It builds the very nodes
 * the `yaml` library would (the library's own YAMLMap/YAMLSeq/Pair/Scalar classes, the same values, ranges,
 * scalar types, formats and blank-line flags, scalars resolved by the library's own core-schema tags), about ten
 * times faster than the library, whose lexer, CST and composer dominate a cold lint.
 *
 * It reads only what it is sure of: any character or construct outside the subset (a comment, tab, CR, anchor,
 * alias, tag, flow collection, block scalar, multi-line scalar, escape, explicit key, directive, odd indentation,
 * trailing space, a non-ASCII character...) makes it answer `undefined`, and the caller parses the document with
 * the library. test/unit/kubeadm/plainYaml.test.ts holds it to the library's tree on the corpus and on generated
 * and mutated documents.
 */
import { isMap, isScalar, Pair, parseDocument, Scalar, YAMLMap, YAMLSeq, type Document, type ParsedNode, type Schema } from 'yaml';

// The library's checks and constants, bound once: in a bundle every use of an import of the CommonJS `yaml` package
// goes through a property getter, which showed in the profile of a cold lint.
const scalarNode = isScalar;
const PLAIN = Scalar.PLAIN;
const QUOTE_DOUBLE = Scalar.QUOTE_DOUBLE;
const QUOTE_SINGLE = Scalar.QUOTE_SINGLE;

/** The options every kubeadm document is parsed with (by the library, and so the ones this reader mirrors). */
export const PARSE_OPTIONS = { prettyErrors: false, uniqueKeys: false, strict: true } as const;

interface ScalarTag {
  default?: boolean | 'key';
  test?: RegExp;
  format?: string;
  resolve: (value: string, onError: (message: string) => void, options: Document['options']) => unknown;
}

/**
 * Prototypes for the library's nodes that carry what its constructors give each node with Object.defineProperty —
 * the node type (`Symbol.for('yaml.node.type')`, which isMap, isScalar... read) and a collection's schema — below
 * the library's own prototypes. A node made with Object.create of one has the library's class, methods and own
 * enumerable properties, and answers isMap/isScalar/instanceof and schema alike; the defineProperty calls and the
 * dictionary work they left for the GC were a fifth of a cold kubeadm lint. Two differences, which nothing here
 * relies on (the linters only read these trees): Object.getPrototypeOf is not the library's class prototype, and
 * the library's clone() of such a collection copies its schema as an own enumerable property.
 */
interface NodePrototypes {
  map: YAMLMap;
  seq: YAMLSeq;
  scalar: Scalar;
  pair: Pair;
}
function nodePrototypes(schema: Schema): NodePrototypes {
  const NODE_TYPE = Symbol.for('yaml.node.type');
  const below = <T>(proto: T, type: string, withSchema: boolean): T =>
    Object.create(proto as object, {
      [NODE_TYPE]: { value: Symbol.for(type) },
      ...(withSchema ? { schema: { value: schema, configurable: true, enumerable: false, writable: true } } : {}),
    }) as T;
  return { map: below(YAMLMap.prototype, 'yaml.map', true), seq: below(YAMLSeq.prototype, 'yaml.seq', true), scalar: below(Scalar.prototype, 'yaml.scalar', false), pair: below(Pair.prototype, 'yaml.pair', false) };
}

/** The library's schema, options and scalar tags for these parse options, taken from one parse. */
let library: { schema: Schema; options: Document['options']; tags: ScalarTag[]; str: ScalarTag; keyTags: Map<string, ScalarTag>; valueTags: Map<string, ScalarTag>; nodes: NodePrototypes } | undefined;
function libraryContext(): NonNullable<typeof library> {
  if (!library) {
    const doc = parseDocument('a: 1\n', PARSE_OPTIONS);
    const schema = doc.schema;
    const tags = (schema.tags as unknown as (ScalarTag & { collection?: string })[]).filter((t) => !t.collection);
    const str = (schema as unknown as Record<symbol, ScalarTag>)[Symbol.for('yaml.scalar')]!;
    library = { schema, options: doc.options, tags, str, keyTags: new Map(), valueTags: new Map(), nodes: nodePrototypes(schema) };
  }
  return library;
}

/** Thrown (never outside this file) when the text leaves the subset. */
const OUTSIDE = new Error('outside the plain subset');

/** a-z A-Z 0-9 _ : the first character of a key this reader accepts. */
function keyStartChar(c: number): boolean {
  return (c >= 97 && c <= 122) || (c >= 65 && c <= 90) || (c >= 48 && c <= 57) || c === 95;
}
/** Key characters: the start ones and . / - */
function keyChar(c: number): boolean {
  return keyStartChar(c) || c === 46 || c === 47 || c === 45;
}
/** First character of a plain value: letters, digits, _ . / ~ + (a leading - is checked with the next one). */
function plainStartChar(c: number): boolean {
  return keyStartChar(c) || c === 46 || c === 47 || c === 126 || c === 43;
}

class Reader {
  private readonly ctx = libraryContext();
  /**
   * Per line: offset of its first character, where its content ends (before a trailing comment and the blanks
   * before it), offset of its LF (or the text's end), indentation (-1 when blank), its comment's `#` (or -1).
   */
  private readonly starts: number[] = [];
  private readonly ends: number[] = [];
  private readonly breaks: number[] = [];
  private readonly indents: number[] = [];
  private readonly hashes: number[] = [];
  /** The next line not read yet. */
  private li = 0;
  /** The comment lines at the top of the document, without their `#`, when the first key follows them directly. */
  private commentBefore: string | undefined;

  constructor(private readonly text: string) {
    const n = text.length;
    const top = this.topComments();
    let start = top;
    let indent = -1;
    let hash = -1;
    for (let i = top; i <= n; i++) {
      const c = i < n ? text.charCodeAt(i) : 10;
      if (c === 10) {
        if (i > start && text.charCodeAt(i - 1) === 32) throw OUTSIDE; // trailing or whitespace-only line
        if (hash >= 0 && hash + 1 === i) throw OUTSIDE; // an empty comment is no comment to the library
        let end = hash < 0 ? i : hash;
        while (hash >= 0 && text.charCodeAt(end - 1) === 32) end--;
        this.line(start, end, i, indent, hash);
        start = i + 1;
        indent = -1;
        hash = -1;
        continue;
      }
      if (hash >= 0) {
        if (c < 32 || c === 127) throw OUTSIDE; // a comment's text: anything but control characters (a CR)
        continue;
      }
      // printable ASCII only; a # only to start a comment after the content of a line (blank before it)
      if (c < 32 || c > 126) throw OUTSIDE;
      if (c === 35) {
        if (indent < 0 || text.charCodeAt(i - 1) !== 32) throw OUTSIDE;
        hash = i;
        continue;
      }
      if (indent < 0 && c !== 32) indent = i - start;
    }
    // a final LF makes an empty last line that is no line of the document
    if (n > 0 && text.charCodeAt(n - 1) === 10) {
      for (const column of [this.starts, this.ends, this.breaks, this.indents, this.hashes]) column.pop();
    }
  }

  /**
   * Empty lines and then `#` comment lines at the top of the document (a file's header comment), entered as blank
   * lines; where the document goes on. The library gives such comments to the first key when it follows them
   * directly, and to the document (not to a node) after a blank line. Anything else about comments is left to it.
   */
  private topComments(): number {
    const t = this.text;
    const comments: string[] = [];
    let p = 0;
    for (;;) {
      const c = t.charCodeAt(p);
      if (c === 10 && comments.length === 0) {
        this.blankLine(p);
        p++;
        continue;
      }
      if (c !== 35) break;
      let nl = t.indexOf('\n', p);
      if (nl < 0) nl = t.length;
      const comment = t.slice(p + 1, nl);
      // a bare # and trailing blanks are written back differently; control characters (a CR) are not read here
      if (comment === '' || /[\x00-\x1f\x7f]|[ \t]$/.test(comment)) throw OUTSIDE;
      comments.push(comment);
      this.blankLine(p, nl);
      p = nl + 1;
      if (nl >= t.length) break;
    }
    if (comments.length && p < t.length && t.charCodeAt(p) !== 10) this.commentBefore = comments.join('\n');
    return Math.min(p, t.length);
  }

  private blankLine(start: number, end = start): void {
    this.line(start, end, end, -1, -1);
  }

  private line(start: number, end: number, lineBreak: number, indent: number, hash: number): void {
    this.starts.push(start);
    this.ends.push(end);
    this.breaks.push(lineBreak);
    this.indents.push(indent);
    this.hashes.push(hash);
  }

  /** The root node: a block mapping, with nothing left after it. */
  read(): ParsedNode {
    const first = this.nextContent();
    if (first < 0) throw OUTSIDE;
    const root = this.block(first, this.indents[first]!);
    if (!isMap(root) || this.nextContent() >= 0) throw OUTSIDE;
    if (this.commentBefore !== undefined) (root.items[0]!.key as Scalar).commentBefore = this.commentBefore;
    return root;
  }

  /** Skips blank lines from `li`; the index of the next line with content, or -1. */
  private nextContent(): number {
    while (this.li < this.starts.length && this.indents[this.li]! < 0) this.li++;
    return this.li < this.starts.length ? this.li : -1;
  }

  /** Whether a blank line comes right before `line` (the library's spaceBefore on what starts there). */
  private blankBefore(line: number): boolean {
    return line > 0 && this.indents[line - 1]! < 0;
  }

  private dashAt(line: number, col: number): boolean {
    const at = this.starts[line]! + col;
    return this.text.charCodeAt(at) === 45 && at + 1 < this.ends[line]! && this.text.charCodeAt(at + 1) === 32;
  }

  /** A block collection whose entries start at column `col` of line `line`. */
  private block(line: number, col: number): YAMLMap.Parsed | YAMLSeq.Parsed {
    const lineStart = this.starts[line]!;
    // document markers and directives at the start of a line are the library's business
    if (col === 0 && (this.text.startsWith('---', lineStart) || this.text.startsWith('...', lineStart))) throw OUTSIDE;
    return this.dashAt(line, col) ? this.seq(line, col) : this.map(line, col, lineStart + col, false);
  }

  /** Where the key starting at `at` ends (its `:`), when a key of this reader's kind is there; else -1. */
  private keyEnd(at: number, lineEnd: number): number {
    if (!keyStartChar(this.text.charCodeAt(at))) return -1;
    let k = at + 1;
    while (k < lineEnd && keyChar(this.text.charCodeAt(k))) k++;
    if (k >= lineEnd || this.text.charCodeAt(k) !== 58) return -1;
    if (k + 1 < lineEnd && this.text.charCodeAt(k + 1) !== 32) return -1;
    return k;
  }

  /**
   * A block mapping with keys at column `col`, its first key at offset `keyAt` of line `line` (after a `- ` when
   * it is a sequence entry's compact mapping).
   */
  private map(line: number, col: number, keyAt: number, compact: boolean): YAMLMap.Parsed {
    const map = Object.create(this.ctx.nodes.map) as YAMLMap.Parsed;
    map.items = [];
    let end = keyAt;
    let spaceBefore = false;
    for (;;) {
      const lineEnd = this.ends[line]!;
      const colon = this.keyEnd(keyAt, lineEnd);
      // the library limits implicit keys to 1024 characters in strict mode
      if (colon < 0 || colon - keyAt > 1000) throw OUTSIDE;
      const key = this.scalar(keyAt, colon, colon, true, 0);
      if (spaceBefore) key.spaceBefore = true;
      this.li = line + 1;
      let value: ParsedNode;
      if (colon + 1 === lineEnd) {
        // a comment after a key without a value on its line goes to one node or another: the library's business
        if (this.hashes[line]! >= 0) throw OUTSIDE;
        const next = this.nextContent();
        const nextIndent = next < 0 ? -1 : this.indents[next]!;
        if (nextIndent > col) value = this.nested(next, nextIndent);
        else if (nextIndent === col && !compact && this.dashAt(next, col)) value = this.nested(next, col);
        else {
          // the library gives blank lines after an empty value to it or to what follows, case by case: not read here
          if (line + 1 < this.starts.length && this.indents[line + 1]! < 0) throw OUTSIDE;
          value = this.scalar(colon + 1, colon + 1, colon + 1, false, 0);
          this.li = line + 1;
        }
      } else {
        let v = colon + 1;
        while (this.text.charCodeAt(v) === 32) v++;
        value = this.inline(v, line);
      }
      const pair = Object.create(this.ctx.nodes.pair) as Pair<ParsedNode, ParsedNode>;
      pair.key = key;
      pair.value = value;
      map.items.push(pair);
      end = value.range[2];
      const next = this.nextContent();
      if (next < 0 || this.indents[next]! < col) break;
      if (this.indents[next]! > col || this.dashAt(next, col)) throw OUTSIDE;
      spaceBefore = this.blankBefore(next);
      line = next;
      keyAt = this.starts[line]! + col;
    }
    map.range = [map.items[0]!.key.range[0], end, end];
    return map;
  }

  /** The block collection under a key (its lines start at `line`), which takes blank lines before it as its own. */
  private nested(line: number, col: number): ParsedNode {
    const spaceBefore = this.blankBefore(line);
    const node = this.block(line, col);
    if (spaceBefore) node.spaceBefore = true;
    return node;
  }

  /** A block sequence whose dashes are at column `col`, starting on line `line`. */
  private seq(line: number, col: number): YAMLSeq.Parsed {
    const seq = Object.create(this.ctx.nodes.seq) as YAMLSeq.Parsed;
    seq.items = [];
    const start = this.starts[line]! + col;
    let end = start;
    let spaceBefore = false;
    for (;;) {
      const lineStart = this.starts[line]!;
      const lineEnd = this.ends[line]!;
      let c = lineStart + col + 1;
      while (this.text.charCodeAt(c) === 32) c++;
      if (c >= lineEnd) throw OUTSIDE;
      this.li = line + 1;
      let item: ParsedNode;
      if (this.keyEnd(c, lineEnd) >= 0) item = this.map(line, c - lineStart, c, true);
      else item = this.inline(c, line);
      if (spaceBefore) item.spaceBefore = true;
      seq.items.push(item);
      end = item.range[2];
      const next = this.nextContent();
      if (next < 0 || this.indents[next]! < col) break;
      if (this.indents[next]! > col) throw OUTSIDE;
      if (!this.dashAt(next, col)) break;
      spaceBefore = this.blankBefore(next);
      line = next;
    }
    seq.range = [start, end, end];
    return seq;
  }

  /**
   * A scalar that fills the rest of line `line` from offset `v` (up to a comment, which it takes); the next line
   * must not continue it.
   */
  private inline(v: number, line: number): Scalar.Parsed {
    const node = this.inlineScalar(v, this.ends[line]!, this.breaks[line]!);
    const hash = this.hashes[line]!;
    if (hash >= 0) node.comment = this.text.slice(hash + 1, this.breaks[line]);
    return node;
  }

  private inlineScalar(v: number, lineEnd: number, lineBreak: number): Scalar.Parsed {
    const t = this.text;
    const c = t.charCodeAt(v);
    // the node ends after its line break (after the comment, when there is one)
    const nodeEnd = lineBreak < t.length ? lineBreak + 1 : lineBreak;
    if (c === 34 || c === 39) {
      // quoted: one line, no escape, no inner quote of its kind
      if (lineEnd - v < 2 || t.charCodeAt(lineEnd - 1) !== c) throw OUTSIDE;
      for (let i = v + 1; i < lineEnd - 1; i++) {
        const ch = t.charCodeAt(i);
        if (ch === c || ch === 92) throw OUTSIDE;
      }
      return this.scalar(v, lineEnd, nodeEnd, false, c);
    }
    if (!(plainStartChar(c) || (c === 45 && v + 1 < lineEnd && t.charCodeAt(v + 1) !== 32))) throw OUTSIDE;
    // `: ` would open a mapping and a final `:` a key; neither is a plain one-line value
    if (t.charCodeAt(lineEnd - 1) === 58) throw OUTSIDE;
    const colon = t.indexOf(': ', v);
    if (colon >= 0 && colon < lineEnd) throw OUTSIDE;
    return this.scalar(v, lineEnd, nodeEnd, false, 0);
  }

  /** The tag the library picks for a plain scalar (its findScalarTagByTest), memoised: the same words recur. */
  private tagOf(source: string, atKey: boolean): ScalarTag {
    const memo = atKey ? this.ctx.keyTags : this.ctx.valueTags;
    let tag = memo.get(source);
    if (tag === undefined) {
      tag = this.ctx.tags.find((t) => (t.default === true || (atKey && t.default === 'key')) && t.test?.test(source)) ?? this.ctx.str;
      if (memo.size >= 4096) memo.clear();
      memo.set(source, tag);
    }
    return tag;
  }

  /** The library's Scalar for source [start, end) (quote = the quote character, 0 when plain). */
  private scalar(start: number, end: number, nodeEnd: number, atKey: boolean, quote: number): Scalar.Parsed {
    const source = quote ? this.text.slice(start + 1, end - 1) : this.text.slice(start, end);
    const tag = quote ? this.ctx.str : this.tagOf(source, atKey);
    let failed = false;
    const res = tag.resolve(source, () => (failed = true), this.ctx.options);
    if (failed) throw OUTSIDE; // the library would report an error: leave it to the library
    let node: Scalar.Parsed;
    if (scalarNode(res)) node = res as Scalar.Parsed;
    else {
      node = Object.create(this.ctx.nodes.scalar) as Scalar.Parsed;
      node.value = res;
    }
    node.range = [start, end, nodeEnd];
    node.source = source;
    node.type = quote === 34 ? QUOTE_DOUBLE : quote === 39 ? QUOTE_SINGLE : PLAIN;
    if (tag.format) node.format = tag.format;
    return node;
  }
}

/**
 * The root mapping of a document the way `parseDocument(text, PARSE_OPTIONS).contents` has it, when the text is
 * inside the plain subset (and so parses without error or warning); `undefined` when the library must read it.
 */
export function readPlainYaml(text: string): ParsedNode | undefined {
  try {
    return new Reader(text).read();
  } catch (e) {
    if (e === OUTSIDE) return undefined;
    throw e;
  }
}
