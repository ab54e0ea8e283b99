/**
 * keepalived.conf parser that keeps positions.
 *
 * Keepalived's format: whitespace-separated words; `#` or `!` starts a comment; `"..."` quotes a word;
 * `{` and `}` open and close a block (also when glued to a word, and the `{` may sit alone on the next line);
 * `include GLOB` pulls other files in at any level (resolved here through a callback, never the file system);
 * `$NAME=value` lines define parameters and `@name` prefixes make a line conditional on the router id.
 */

import { BLOCK_KEYWORDS } from './keywords';
import { looksBinary } from '../lint/textGuard';
import { t } from '../l10n';

export interface KToken {
  text: string;
  line: number;
  start: number;
  end: number;
  quoted?: boolean;
}

export interface KNode {
  keyword: KToken;
  args: KToken[];
  /** Set when the keyword opens a block. */
  children?: KNode[];
  open?: KToken;
  close?: KToken;
  /** Path of the file the node comes from, when it came through an include. */
  file?: string;
  parent?: KNode;
}

export interface KProblem {
  message: string;
  token: KToken;
  kind: 'unclosed' | 'extra-close' | 'unmatched-quote' | 'include' | 'binary' | 'depth';
  file?: string;
}

export interface KeepalivedConfig {
  nodes: KNode[];
  problems: KProblem[];
  /** Files pulled in by include, in order. */
  included: string[];
  binary?: boolean;
}

/** Returns the files (path and text) an include pattern names, relative to the including file. */
export type IncludeResolver = (pattern: string, fromPath: string | undefined) => { path: string; text: string }[];

const MAX_DEPTH = 64;
const MAX_INCLUDE_DEPTH = 8;

export function tokenize(text: string): { lines: KToken[][]; problems: KProblem[] } {
  const lines: KToken[][] = [];
  const problems: KProblem[] = [];
  const raw = text.split('\n');
  for (let ln = 0; ln < raw.length; ln++) {
    let line = raw[ln]!;
    if (line.endsWith('\r')) line = line.slice(0, -1);
    const toks: KToken[] = [];
    let i = 0;
    const n = line.length;
    while (i < n) {
      const c = line[i]!;
      if (c === ' ' || c === '\t') {
        i++;
        continue;
      }
      if (c === '#' || c === '!') break;
      if (c === '{' || c === '}') {
        toks.push({ text: c, line: ln, start: i, end: i + 1 });
        i++;
        continue;
      }
      if (c === '"') {
        const close = line.indexOf('"', i + 1);
        if (close < 0) {
          const tok = { text: line.slice(i + 1), line: ln, start: i, end: n, quoted: true };
          problems.push({ message: t('Unmatched quote'), token: tok, kind: 'unmatched-quote' });
          toks.push(tok);
          i = n;
          continue;
        }
        toks.push({ text: line.slice(i + 1, close), line: ln, start: i, end: close + 1, quoted: true });
        i = close + 1;
        continue;
      }
      const start = i;
      while (i < n) {
        const d = line[i]!;
        // '#' ends a word and starts a comment; '!' starts a comment only at the start of a word
        if (d === ' ' || d === '\t' || d === '{' || d === '}' || d === '"' || d === '#') break;
        i++;
      }
      toks.push({ text: line.slice(start, i), line: ln, start, end: i });
    }
    lines.push(toks);
  }
  return { lines, problems };
}

interface Frame {
  node?: KNode;
  children: KNode[];
}

export function parseKeepalived(text: string, path?: string, resolve?: IncludeResolver): KeepalivedConfig {
  const result: KeepalivedConfig = { nodes: [], problems: [], included: [] };
  if (looksBinary(text)) {
    result.binary = true;
    return result;
  }
  const root: Frame = { children: result.nodes };
  const stack: Frame[] = [root];
  parseInto(text, path, resolve, stack, result, 0);
  // unclosed blocks
  for (let i = stack.length - 1; i >= 1; i--) {
    const node = stack[i]!.node!;
    const p: KProblem = { message: t("'{0}' block is never closed: a '}' is missing", node.keyword.text), token: node.open ?? node.keyword, kind: 'unclosed' };
    if (node.file) p.file = node.file;
    result.problems.push(p);
  }
  return result;
}

function parseInto(text: string, path: string | undefined, resolve: IncludeResolver | undefined, stack: Frame[], result: KeepalivedConfig, includeDepth: number): void {
  const { lines, problems } = tokenize(text);
  for (const p of problems) result.problems.push(path ? { ...p, file: path } : p);
  let pending: KNode | undefined; // a keyword line without '{' that may be followed by a lone '{'
  for (let ln = 0; ln < lines.length; ln++) {
    let toks = lines[ln]!;
    if (toks.length === 0) continue;
    if (toks[0]!.text.startsWith('@') && toks[0]!.text.length > 1) toks = toks.slice(1); // @router_id conditional
    if (toks.length === 0) continue;
    if (/^\$\w+=/.test(toks[0]!.text)) continue; // parameter definition
    let i = 0;
    if (toks[0]!.text === '{' && pending && !pending.children && (BLOCK_KEYWORDS.has(pending.keyword.text) || !pending.parent)) {
      openBlock(pending, toks[0]!, stack, result);
      i = 1;
    }
    pending = undefined;
    while (i < toks.length) {
      const tok = toks[i]!;
      const frame = stack[stack.length - 1]!;
      if (tok.text === '}') {
        if (stack.length === 1) {
          const p: KProblem = { message: t("Extra '}' with no block to close"), token: tok, kind: 'extra-close' };
          if (path) p.file = path;
          result.problems.push(p);
        } else {
          const top = stack.pop()!;
          top.node!.close = tok;
        }
        i++;
        continue;
      }
      if (tok.text === '{') {
        // a stray '{' (after a value-only line): an anonymous block so the braces still balance
        const node: KNode = { keyword: tok, args: [] };
        if (path) node.file = path;
        if (frame.node) node.parent = frame.node;
        frame.children.push(node);
        openBlock(node, tok, stack, result);
        i++;
        continue;
      }
      // keyword with args up to '{', '}' or end of line
      const node: KNode = { keyword: tok, args: [] };
      if (path) node.file = path;
      if (frame.node) node.parent = frame.node;
      i++;
      while (i < toks.length && toks[i]!.text !== '{' && toks[i]!.text !== '}') node.args.push(toks[i++]!);
      frame.children.push(node);
      if (tok.text === 'include' && !tok.quoted) {
        handleInclude(node, path, resolve, stack, result, includeDepth);
        continue;
      }
      if (i < toks.length && toks[i]!.text === '{') {
        openBlock(node, toks[i]!, stack, result);
        i++;
      } else if (i >= toks.length) {
        pending = node;
      }
    }
  }
}

function openBlock(node: KNode, brace: KToken, stack: Frame[], result: KeepalivedConfig): void {
  node.children = [];
  node.open = brace;
  if (stack.length > MAX_DEPTH) {
    const p: KProblem = { message: t('Blocks nested deeper than {0} levels', MAX_DEPTH), token: brace, kind: 'depth' };
    if (node.file) p.file = node.file;
    if (!result.problems.some((x) => x.kind === 'depth')) result.problems.push(p);
  }
  stack.push({ node, children: node.children });
}

function handleInclude(node: KNode, path: string | undefined, resolve: IncludeResolver | undefined, stack: Frame[], result: KeepalivedConfig, depth: number): void {
  const pattern = node.args[0]?.text;
  if (!pattern || !resolve) return;
  if (depth >= MAX_INCLUDE_DEPTH) {
    const p: KProblem = { message: t('include nested deeper than {0} levels (a loop?)', MAX_INCLUDE_DEPTH), token: node.keyword, kind: 'include' };
    if (path) p.file = path;
    result.problems.push(p);
    return;
  }
  for (const f of resolve(pattern, path)) {
    result.included.push(f.path);
    parseInto(f.text, f.path, resolve, stack, result, depth + 1);
  }
}

/** Children of `node` with a given keyword. */
export function childrenNamed(node: KNode | undefined, keyword: string): KNode[] {
  return node?.children?.filter((c) => c.keyword.text === keyword) ?? [];
}

export function child(node: KNode | undefined, keyword: string): KNode | undefined {
  const all = childrenNamed(node, keyword);
  return all[all.length - 1];
}

/** All nodes of a config, depth first. */
export function* walk(nodes: readonly KNode[]): Generator<KNode> {
  const stack: KNode[] = [...nodes].reverse();
  while (stack.length) {
    const n = stack.pop()!;
    yield n;
    if (n.children) for (let i = n.children.length - 1; i >= 0; i--) stack.push(n.children[i]!);
  }
}
