/**
 * Completion items and field documentation for inventory.yaml and kubeadm config files (v1beta3/v1beta4 with their
 * KubeletConfiguration and KubeProxyConfiguration), from the JSON schemas the extension ships — the same ones
 * `yamlValidation` hands to the YAML extension — so that no other extension is needed. The fields of the mapping under
 * the cursor (less those it has), the values of an enumeration (roles, cni, vrrp state, apiVersion, kind), and for a
 * hover the field's description, type, values and default. Editor-free: text and offset in (./cursor.ts), items out.
 */
import inventorySchema from '../../../schemas/inventory.schema.json';
import { KUBEADM_V1BETA3, KUBEADM_V1BETA4, SchemaSet, schemaTypes, type JsonSchema } from '../kubeadm/schema';
import { yamlCursor, yamlFieldAt, type PathSegment } from './cursor';
import { t } from '../l10n';

export type DocsKind = 'inventory' | 'kubeadm';

export interface FieldCompletion {
  label: string;
  kind: 'field' | 'value';
  /** `name: ` for a scalar field, `name:` for a mapping or list (its lines follow), the value itself for a value. */
  insertText: string;
  /** The type (`string`, `integer`, `array`, …) or `value of <field>`. */
  detail?: string;
  /** The field's description from the schema (plain text). */
  documentation?: string;
  deprecated?: boolean;
  /** Required fields sort first. */
  required?: boolean;
  /** A field whose value is a mapping or a list (typed on the next lines in block style). */
  container?: 'object' | 'array';
  /** A field with values to pick from (an enumeration, a boolean): the editor offers them right after the key. */
  hasValues?: boolean;
}

export interface FieldCompletions {
  items: FieldCompletion[];
  /** The typed word, replaced by the item: from here to the cursor. */
  replaceStart: number;
}

export interface FieldHover {
  /** Markdown. */
  markdown: string;
  start: number;
  end: number;
}

type Schema = JsonSchema & { default?: unknown; examples?: unknown[]; required?: string[] };

interface Root {
  schema: Schema | undefined;
  resolve(s: Schema | undefined): Schema | undefined;
}

const INVENTORY = inventorySchema as unknown as Schema & { definitions: Record<string, Schema> };

const inventoryRoot: Root = {
  schema: INVENTORY,
  resolve(s) {
    let out = s;
    for (let i = 0; out?.$ref && i < 8; i++) out = INVENTORY.definitions[out.$ref.replace('#/definitions/', '')];
    return out;
  },
};

const API_VERSIONS = [...new Set([...SchemaSet.for(KUBEADM_V1BETA3).knownApiVersions(), ...SchemaSet.for(KUBEADM_V1BETA4).knownApiVersions()])].sort();

function kindsOf(apiVersion: string | undefined): string[] {
  const sets = [SchemaSet.for(KUBEADM_V1BETA3), SchemaSet.for(KUBEADM_V1BETA4)];
  const known = (v: string) => [...new Set(sets.flatMap((s) => s.kindsOf(v)))];
  return apiVersion && API_VERSIONS.includes(apiVersion) ? known(apiVersion) : [...new Set(API_VERSIONS.flatMap(known))].sort();
}

/** A kubeadm document's root: its kind's schema plus apiVersion and kind with their values. */
function kubeadmRoot(doc: Record<string, string>): Root {
  const apiVersion = doc.apiVersion;
  const set = SchemaSet.for(apiVersion?.startsWith('kubeadm.k8s.io/') ? apiVersion : undefined);
  const kind = apiVersion && doc.kind ? (set.kind(apiVersion, doc.kind) as Schema | undefined) : undefined;
  const meta: Record<string, Schema> = {
    apiVersion: { type: 'string', enum: API_VERSIONS, description: t('The API group and version of this document: kubeadm.k8s.io/v1beta4 (kubeadm 1.31 and later; v1beta3 until 1.34), or the kubelet\'s and kube-proxy\'s configuration groups.') },
    kind: { type: 'string', enum: kindsOf(apiVersion), description: apiVersion ? t('What this document configures (kinds of {0}).', apiVersion) : t('What this document configures.') },
  };
  return {
    // The kind's own apiVersion and kind ("The kind of this object.") give way to the ones with their values.
    schema: { type: 'object', properties: { ...meta, ...(kind?.properties ?? {}), ...meta }, ...(kind?.description ? { description: kind.description } : {}), ...(kind?.required ? { required: kind.required } : {}) },
    resolve: (s) => set.resolve(s) as Schema | undefined,
  };
}

/** The schema at `path` below the root, a property's own description kept over its type's. */
function schemaAt(root: Root, path: readonly PathSegment[]): Schema | undefined {
  let s = root.resolve(root.schema);
  for (const seg of path) {
    if (!s) return undefined;
    if (typeof seg === 'number') {
      s = root.resolve(s.items as Schema | undefined);
      continue;
    }
    const own = s.properties?.[seg] as Schema | undefined;
    const next = own ? root.resolve(own) : typeof s.additionalProperties === 'object' ? root.resolve(s.additionalProperties as Schema) : undefined;
    s = next && own?.description && next !== own ? { ...next, description: own.description } : next;
  }
  return s;
}

function rootFor(kind: DocsKind, doc: Record<string, string>): Root {
  return kind === 'inventory' ? inventoryRoot : kubeadmRoot(doc);
}

function typeWords(s: Schema): string | undefined {
  const t = schemaTypes(s);
  if (t.length) return t.join(' | ');
  return s.enum ? 'enum' : undefined;
}

function isContainer(s: Schema): boolean {
  const t = schemaTypes(s);
  return t.includes('object') || t.includes('array') || (!!s.properties && !t.length);
}

function values(s: Schema): string[] {
  if (s.enum) return s.enum.map(String).filter(Boolean);
  if (schemaTypes(s).includes('boolean')) return ['true', 'false'];
  return [];
}

export function completionsAt(kind: DocsKind, text: string, offset: number): FieldCompletions | undefined {
  const cursor = yamlCursor(text, offset);
  if (!cursor) return undefined;
  const root = rootFor(kind, cursor.documentRoot);
  let at = cursor.at;
  const schema = schemaAt(root, cursor.path);
  // A list item of mappings (`- |` under hosts): its fields, not a value.
  if (at === 'value' && typeof cursor.path[cursor.path.length - 1] === 'number' && schema && schemaTypes(schema).includes('object')) at = 'key';
  if (!schema) return undefined;
  if (at === 'value') {
    const field = cursor.path.filter((p) => typeof p === 'string').pop() ?? '';
    const items = values(schema).map((v): FieldCompletion => ({ label: v, kind: 'value', insertText: v, detail: t('value of {0}', field), ...(schema.description ? { documentation: schema.description } : {}) }));
    return items.length ? { items, replaceStart: cursor.prefixStart } : undefined;
  }
  const present = new Set(cursor.existingKeys);
  const required = new Set(schema.required ?? []);
  const items: FieldCompletion[] = [];
  for (const [name, own] of Object.entries(schema.properties ?? {})) {
    if (present.has(name)) continue;
    const s = schemaAt(root, [...cursor.path, name]) ?? (own as Schema);
    const container = isContainer(s) && !cursor.flow;
    const type = typeWords(s);
    items.push({
      label: name,
      kind: 'field',
      insertText: container ? `${name}:` : `${name}: `,
      ...(container ? { container: schemaTypes(s).includes('array') ? ('array' as const) : ('object' as const) } : {}),
      ...(values(s).length ? { hasValues: true } : {}),
      ...(type ? { detail: type } : {}),
      ...(s.description ? { documentation: s.description } : {}),
      ...(s.deprecated ? { deprecated: true } : {}),
      ...(required.has(name) ? { required: true } : {}),
    });
  }
  return items.length ? { items, replaceStart: cursor.prefixStart } : undefined;
}

/** Markdown text: the schema's words as they are, its code-like parts not interpreted. */
function escape(text: string): string {
  return text.replace(/[\\`*_{}[\]<>#|]/g, (c) => `\\${c}`);
}

export function hoverAt(kind: DocsKind, text: string, offset: number): FieldHover | undefined {
  const field = yamlFieldAt(text, offset);
  if (!field) return undefined;
  const root = rootFor(kind, field.documentRoot);
  const schema = schemaAt(root, field.path);
  if (!schema) return undefined;
  const name = field.path.map((p) => (typeof p === 'number' ? `[${p}]` : p)).join('.').replace(/\.\[/g, '[');
  const lines = [`**${escape(name)}**${typeWords(schema) ? ` — ${escape(typeWords(schema)!)}` : ''}${schema.deprecated ? ' — deprecated' : ''}`];
  if (schema.description) lines.push(escape(schema.description));
  const vs = values(schema);
  if (vs.length) lines.push(`Values: ${vs.map((v) => `\`${v.replace(/`/g, '')}\``).join(', ')}`);
  if (schema.default !== undefined) lines.push(`Default: \`${JSON.stringify(schema.default).replace(/`/g, '')}\``);
  if (Array.isArray(schema.examples) && schema.examples.length) lines.push(`Example: \`${String(schema.examples[0]).replace(/`/g, '')}\``);
  return { markdown: lines.join('\n\n'), start: field.start, end: field.end };
}
