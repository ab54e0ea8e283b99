/**
 * The kubeadm configuration file: several YAML documents separated by `---` (InitConfiguration,
 * ClusterConfiguration, KubeletConfiguration, ...). Each document is parsed on its own, with offsets
 * kept relative to the document so that a parse can be reused when only another document changed
 * (incremental re-lint while the user types).
 */
import { isMap, isScalar, parseDocument, type Node, type ParsedNode, type YAMLMap } from 'yaml';
import { errorMessage } from '../errors';
import { PARSE_OPTIONS, readPlainYaml } from './plainYaml';
import { t } from '../l10n';

export interface DocChunk {
  /** Offset of the chunk's first character in the file. */
  start: number;
  /** Offset just past the chunk (before the next `---` line). */
  end: number;
  text: string;
}

export interface YamlIssue {
  message: string;
  start: number;
  end: number;
}

export interface KubeadmDoc {
  chunk: DocChunk;
  /**
   * The document's top node, as the `yaml` library's parseDocument has it (null for no content); undefined when
   * the document could not be parsed at all (parser crashed on pathological input).
   */
  contents?: ParsedNode | null;
  errors: YamlIssue[];
  apiVersion?: string;
  kind?: string;
  /** The root mapping, when the document is one. */
  root?: YAMLMap;
  /** True for a document with nothing but comments and blank lines. */
  empty: boolean;
}

const MARKER = /^---(?=[ \t]|\r?$)/;

/** Splits at document markers (`---` at the start of a line); chunks exclude the marker line. */
export function splitDocuments(text: string): DocChunk[] {
  const chunks: DocChunk[] = [];
  let start = 0;
  let lineStart = 0;
  while (lineStart <= text.length) {
    let nl = text.indexOf('\n', lineStart);
    if (nl < 0) nl = text.length;
    if (text.charCodeAt(lineStart) === 45 && MARKER.test(text.slice(lineStart, Math.min(nl, lineStart + 5)))) {
      chunks.push({ start, end: lineStart, text: text.slice(start, lineStart) });
      start = nl + 1;
    }
    lineStart = nl + 1;
  }
  if (start <= text.length) chunks.push({ start, end: text.length, text: text.slice(start) });
  return chunks;
}

const cache = new Map<string, Omit<KubeadmDoc, 'chunk'>>();
const CACHE_LIMIT = 512;

/** How many documents were actually parsed (not served from the cache); for tests and benchmarks. */
export const parseStats = { parsed: 0 };

/** Whether documents in the plain subset are read by ./plainYaml.ts (off only to compare it with the library). */
export const plainReader = { enabled: true };

/** Parses one chunk; results are memoised by the chunk's text, so unchanged documents are not reparsed. */
export function parseChunk(chunk: DocChunk): KubeadmDoc {
  let parsed = cache.get(chunk.text);
  if (parsed) {
    cache.delete(chunk.text);
    cache.set(chunk.text, parsed);
    return { chunk, ...parsed };
  }
  parsed = parseText(chunk.text);
  parseStats.parsed++;
  cache.set(chunk.text, parsed);
  if (cache.size > CACHE_LIMIT) cache.delete(cache.keys().next().value!);
  return { chunk, ...parsed };
}

function parseText(text: string): Omit<KubeadmDoc, 'chunk'> {
  const empty = !/^[ \t]*[^#\s]/m.test(text);
  if (empty) return { errors: [], empty: true };
  // most documents are plain block mappings: read by the purpose-built reader, identical nodes, no errors
  const plain = plainReader.enabled ? readPlainYaml(text) : undefined;
  if (plain) return withRoot(plain as YAMLMap, { contents: plain, errors: [], empty: false });
  let contents: ParsedNode | null;
  let errors: YamlIssue[];
  try {
    // uniqueKeys is checked by the structural walk with a Set: the library's check is quadratic in the keys of a map.
    const doc = parseDocument(text, PARSE_OPTIONS);
    contents = doc.contents;
    errors = doc.errors.map((e) => ({ message: e.message.split('\n')[0]!.trim(), start: e.pos[0], end: Math.max(e.pos[1], e.pos[0] + 1) }));
  } catch (e) {
    // Deep nesting can exhaust the stack of the YAML composer; report instead of crashing.
    return { errors: [{ message: t('The document could not be parsed: {0}', errorMessage(e)), start: 0, end: Math.min(text.length, 1) }], empty: false };
  }
  const parsed = { contents, errors, empty: false };
  return isMap(contents) ? withRoot(contents, parsed) : parsed;
}

/** A parsed document with its root mapping and the apiVersion and kind it names (one object shape, no spreads: hot). */
function withRoot(root: YAMLMap, parsed: Omit<KubeadmDoc, 'chunk'>): Omit<KubeadmDoc, 'chunk'> {
  const out: Omit<KubeadmDoc, 'chunk'> = { contents: parsed.contents, errors: parsed.errors, empty: false, root };
  const apiVersion = scalarString(root.get('apiVersion', true) as Node | undefined);
  const kind = scalarString(root.get('kind', true) as Node | undefined);
  if (apiVersion !== undefined) out.apiVersion = apiVersion;
  if (kind !== undefined) out.kind = kind;
  return out;
}

export function parseKubeadmFile(text: string): KubeadmDoc[] {
  return splitDocuments(text).map(parseChunk);
}

export function scalarString(node: Node | null | undefined): string | undefined {
  if (!node || !isScalar(node) || node.value === null || typeof node.value === 'object') return undefined;
  // Numbers keep their source text (`1.30`, not 1.3) so messages quote what the user wrote.
  if (typeof node.value === 'number' && typeof node.source === 'string') return node.source;
  return String(node.value);
}

/** The node at a dotted path under a mapping (`networking.podSubnet`), if every step is a mapping. */
export function nodeAt(root: YAMLMap | undefined, path: string): Node | undefined {
  let cur: Node | undefined = root;
  for (const key of path.split('.')) {
    if (!cur || !isMap(cur)) return undefined;
    cur = cur.get(key, true) as Node | undefined;
  }
  return cur ?? undefined;
}

export function stringAt(root: YAMLMap | undefined, path: string): string | undefined {
  return scalarString(nodeAt(root, path));
}

/** Clears the parse cache (tests and benchmarks). */
export function clearParseCache(): void {
  cache.clear();
}
