/**
 * What the field under the cursor is, from the shipped schemas (the upstream Go doc comments): for hovers
 * and completion in the editor layer. Pure: text + offset in, description out.
 */
import { isMap, isScalar, isSeq, type Node, type Pair } from 'yaml';
import { parseKubeadmFile } from './parse';
import { SchemaSet, schemaTypes, type JsonSchema } from './schema';

export interface FieldInfo {
  /** Dotted path from the document root, e.g. `ClusterConfiguration.apiServer.certSANs`. */
  path: string;
  description?: string;
  type?: string;
  deprecated?: boolean;
  /** Allowed values, for enumerations. */
  values?: string[];
  /** Field names allowed at this level (for completion). */
  siblings: string[];
}

function contains(node: Node | null | undefined, offset: number): boolean {
  const r = node?.range;
  return !!r && offset >= r[0] && offset <= r[1];
}

export function fieldInfoAt(text: string, offset: number): FieldInfo | undefined {
  const d = parseKubeadmFile(text).find((x) => offset >= x.chunk.start && offset <= x.chunk.end);
  if (!d?.root || !d.apiVersion || !d.kind) return undefined;
  const schemas = SchemaSet.for(d.apiVersion.startsWith('kubeadm.k8s.io/') ? d.apiVersion : undefined);
  let schema: JsonSchema | undefined = schemas.kind(d.apiVersion, d.kind);
  if (!schema) return undefined;
  const rel = offset - d.chunk.start;
  let node: Node = d.root;
  let path = d.kind;
  let parent: JsonSchema = schema;
  let found: JsonSchema | undefined;
  for (let depth = 0; depth < 64; depth++) {
    if (isSeq(node)) {
      const item = node.items.find((i) => contains(i as Node, rel)) as Node | undefined;
      const items = schemas.resolve(schema?.items);
      if (!item || !items) break;
      node = item;
      schema = items;
      continue;
    }
    if (!isMap(node)) break;
    const pair: Pair<Node, Node> | undefined = (node.items as Pair<Node, Node>[]).find((p) => contains(p.key, rel) || contains(p.value, rel));
    if (!pair || !isScalar(pair.key)) break;
    const key = String(pair.key.value);
    parent = schema ?? {};
    const child: JsonSchema | undefined = schema ? schemas.property(schema, key) : undefined;
    path += `.${key}`;
    found = child;
    if (contains(pair.key, rel) || !pair.value || !child) {
      schema = child;
      break;
    }
    node = pair.value;
    schema = child;
  }
  if (path === d.kind) return { path, ...(schema?.description ? { description: schema.description } : {}), siblings: Object.keys(schema?.properties ?? {}) };
  return {
    path,
    ...(found?.description ? { description: found.description } : {}),
    ...(found && schemaTypes(found).length ? { type: schemaTypes(found).join(' | ') } : {}),
    ...(found?.deprecated ? { deprecated: true } : {}),
    ...(found?.enum ? { values: found.enum.map(String).filter(Boolean) } : {}),
    siblings: Object.keys(parent.properties ?? {}),
  };
}
