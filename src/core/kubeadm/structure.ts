/**
 * Per-document structural checks against the shipped schemas: YAML syntax, apiVersion/kind, unknown
 * fields (with did-you-mean), value types and enums, and v1beta3 leftovers in v1beta4 documents.
 * Results use offsets relative to the document and are memoised by its text (incremental re-lint).
 */
import * as yaml from 'yaml';
import type { Node, Pair } from 'yaml';
import type { Severity } from '../findings';
import type { KubeadmDoc } from './parse';
import type { KubeadmRuleId } from './rules';
import { REMOVED_API_VERSIONS, SchemaSet, KUBEADM_V1BETA4, didYouMean, isKnownKubeadmApi, schemaTypes, type JsonSchema } from './schema';
import { t } from '../l10n';

export interface RelEdit {
  start: number;
  end: number;
  newText: string;
}

/** A finding with offsets relative to its document; `migrate` asks for the whole-file migration fix. */
export interface RelFinding {
  rule: KubeadmRuleId;
  message: string;
  start: number;
  end: number;
  severity?: Severity;
  fix?: { title: string; edits: RelEdit[] };
  migrate?: boolean;
}

// The library's node checks, bound once: in a bundle each call through an import of the CommonJS `yaml` package
// goes through a property getter, which showed in the profile of the walk.
const { isAlias, isMap, isScalar, isSeq } = yaml;

const MAX_DEPTH = 64;
const MAX_FINDINGS = 200;
const cache = new Map<string, RelFinding[]>();

export function structuralFindings(d: KubeadmDoc): RelFinding[] {
  const hit = cache.get(d.chunk.text);
  if (hit) return hit;
  const out = compute(d);
  cache.set(d.chunk.text, out);
  if (cache.size > 512) cache.delete(cache.keys().next().value!);
  return out;
}

export function clearStructureCache(): void {
  cache.clear();
}

function rangeOf(node: Node | null | undefined): [number, number] {
  const r = node?.range;
  return r ? [r[0], Math.max(r[1], r[0] + 1)] : [0, 1];
}

function compute(d: KubeadmDoc): RelFinding[] {
  const out: RelFinding[] = [];
  if (d.empty) return out;
  for (const e of d.errors) out.push({ rule: 'kubeadm/yaml-syntax', message: e.message, start: e.start, end: e.end });
  if (d.contents === undefined) return out;
  if (!d.root) {
    if (!d.errors.length && d.contents) {
      const [s, e] = rangeOf(d.contents);
      out.push({ rule: 'kubeadm/not-a-map', message: t('A kubeadm document is a mapping with apiVersion and kind.'), start: s, end: e });
    }
    return out;
  }
  const root = d.root;
  const apiNode = root.get('apiVersion', true) as Node | undefined;
  const kindNode = root.get('kind', true) as Node | undefined;
  const firstLine: [number, number] = [rangeOf(root)[0], rangeOf(root)[0] + 1];
  if (!d.apiVersion || !d.kind) {
    const missing = [!d.apiVersion && 'apiVersion', !d.kind && 'kind'].filter(Boolean).join(' and ');
    out.push({ rule: 'kubeadm/missing-type-meta', message: t('This document has no {0}.', missing), start: firstLine[0], end: firstLine[1] });
    return out;
  }
  const api = d.apiVersion;
  const isKubeadm = api.startsWith('kubeadm.k8s.io/');
  if (isKubeadm && !isKnownKubeadmApi(api)) {
    const [s, e] = rangeOf(apiNode);
    const removed = REMOVED_API_VERSIONS[api];
    out.push({
      rule: 'kubeadm/unknown-api-version',
      message: removed ? t('{0} was removed in kubeadm {1}; use {2} (or v1beta3 before 1.31).', api, removed, KUBEADM_V1BETA4) : t('Unknown kubeadm API version {0}; use {1} (or v1beta3 before 1.31).', api, KUBEADM_V1BETA4),
      start: s,
      end: e,
      fix: { title: t('Change to {0}', KUBEADM_V1BETA4), edits: [{ start: s, end: e, newText: KUBEADM_V1BETA4 }] },
    });
    return out;
  }
  const schemas = SchemaSet.for(isKubeadm ? api : undefined);
  const known = schemas.knownApiVersions();
  if (!known.includes(api)) {
    // Documents of other API groups (e.g. a ConfigMap) are not kubeadm's business, except near-misses.
    const hint = didYouMean(api, [...known, 'kubeadm.k8s.io/v1beta3']);
    if (hint || /kubeadm|kubelet|kubeproxy/i.test(api)) {
      const [s, e] = rangeOf(apiNode);
      out.push({
        rule: 'kubeadm/unknown-api-version',
        message: t('Unknown apiVersion {0}{1}', api, hint ? t(' — did you mean {0}?', hint) : '.'),
        start: s,
        end: e,
        ...(hint ? { fix: { title: t('Change to {0}', hint), edits: [{ start: s, end: e, newText: hint }] } } : {}),
      });
    }
    return out;
  }
  const kinds = schemas.kindsOf(api);
  const schema = schemas.kind(api, d.kind);
  if (!schema) {
    const [s, e] = rangeOf(kindNode);
    const hint = didYouMean(d.kind, kinds);
    const v1beta4Only = api !== KUBEADM_V1BETA4 && SchemaSet.for(KUBEADM_V1BETA4).kindsOf(KUBEADM_V1BETA4).includes(d.kind);
    out.push({
      rule: 'kubeadm/unknown-kind',
      message: v1beta4Only
        ? t('{0} exists only in {1}, not in {2}.', d.kind, KUBEADM_V1BETA4, api)
        : t('{0} has no kind {1}{2}; it defines {3}.', api, d.kind, hint ? t(' — did you mean {0}?', hint) : '', kinds.join(', ')),
      start: s,
      end: e,
      ...(hint ? { fix: { title: t('Change to {0}', hint), edits: [{ start: s, end: e, newText: hint }] } } : {}),
    });
    return out;
  }
  new Walker(schemas, api, out).walk(root, schema, d.kind, 0);
  return out;
}

/** Whether a pair before pairs[i] has the scalar key `key`. */
function keyBefore(pairs: readonly Pair<Node, Node>[], i: number, key: string): boolean {
  for (let j = 0; j < i; j++) {
    const k = pairs[j]!.key;
    if (isScalar(k) && String(k.value) === key) return true;
  }
  return false;
}

class Walker {
  constructor(
    private readonly schemas: SchemaSet,
    private readonly api: string,
    private readonly out: RelFinding[],
  ) {}

  walk(node: Node, schema: JsonSchema, path: string, depth: number): void {
    if (this.out.length >= MAX_FINDINGS || depth > MAX_DEPTH || isAlias(node)) return;
    const types = schemaTypes(schema);
    if (isMap(node)) {
      if (types.length && !types.includes('object')) {
        if (this.api === KUBEADM_V1BETA4 && /(^|\.)(extraArgs|kubeletExtraArgs)$/.test(path)) {
          const [s, e] = rangeOf(node);
          this.out.push({ rule: 'kubeadm/v1beta4-extra-args', message: t('In {0}, {1} is a list of `- name: flag` / `value: x` entries, not a map.', KUBEADM_V1BETA4, path.split('.').pop()), start: s, end: e, migrate: true });
          return;
        }
        return this.typeError(node, schema, path);
      }
      const props = schema.properties;
      const pairs = node.items as Pair<Node, Node>[];
      // the keys so far, to find a duplicate: a Set only for a large mapping (most have a handful of keys, and a
      // Set per mapping was a good part of what a cold lint left for the GC)
      const seen = pairs.length > 12 ? new Set<string>() : undefined;
      for (let i = 0; i < pairs.length; i++) {
        const pair = pairs[i]!;
        if (this.out.length >= MAX_FINDINGS) return;
        const key = isScalar(pair.key) ? String(pair.key.value) : undefined;
        if (key === undefined) continue;
        if (seen ? seen.has(key) : keyBefore(pairs, i, key)) {
          const [s, e] = rangeOf(pair.key);
          this.out.push({ rule: 'kubeadm/duplicate-field', message: t('"{0}" appears twice in {1}.', key, path), start: s, end: e });
          continue;
        }
        seen?.add(key);
        const childPath = `${path}.${key}`;
        const child = props?.[key] ? this.schemas.property(schema, key) : undefined;
        if (!child) {
          if (props && schema.additionalProperties === false) this.unknown(pair.key, key, path, Object.keys(props));
          else if (typeof schema.additionalProperties === 'object' && pair.value) {
            const ap = this.schemas.resolve(schema.additionalProperties);
            if (ap) this.walk(pair.value, ap, childPath, depth + 1);
          }
          continue;
        }
        if (pair.value) this.walk(pair.value, child, childPath, depth + 1);
      }
      return;
    }
    if (isSeq(node)) {
      if (types.length && !types.includes('array')) return this.typeError(node, schema, path);
      const items = this.schemas.resolve(schema.items);
      if (items) for (const item of node.items) if (item) this.walk(item as Node, items, `${path}[]`, depth + 1);
      return;
    }
    if (isScalar(node)) {
      const v = node.value;
      if (v === null || v === undefined || !types.length) return;
      const actual = typeof v === 'string' ? 'string' : typeof v === 'boolean' ? 'boolean' : typeof v === 'number' || typeof v === 'bigint' ? (Number.isInteger(Number(v)) ? 'integer' : 'number') : 'object';
      const ok = types.includes(actual) || (actual === 'integer' && types.includes('number'));
      if (!ok) return this.typeError(node, schema, path);
      if (schema.enum && typeof v === 'string' && !schema.enum.includes(v)) {
        const [s, e] = rangeOf(node);
        const allowed = schema.enum.filter((x) => x !== '').map(String);
        const hint = didYouMean(v, allowed);
        this.out.push({
          rule: 'kubeadm/invalid-value',
          message: t('{0} must be one of {1}{2}', path.split('.').pop(), allowed.join(', '), hint ? t(' — did you mean {0}?', hint) : '.'),
          start: s,
          end: e,
          ...(hint ? { fix: { title: t('Change to {0}', hint), edits: [{ start: s, end: e, newText: hint }] } } : {}),
        });
      }
    }
  }

  private typeError(node: Node, schema: JsonSchema, path: string): void {
    const [s, e] = rangeOf(node);
    const want = schemaTypes(schema).map((type) => (type === 'object' ? t('a mapping') : type === 'array' ? t('a list') : t('a {0}', type))).join(t(' or '));
    const got = isMap(node) ? t('a mapping') : isSeq(node) ? t('a list') : isScalar(node) ? t('a {0}', typeof node.value === 'number' ? 'number' : typeof node.value) : t('something else');
    const hint = schemaTypes(schema).includes('string') && isScalar(node) && typeof node.value === 'number' ? t(' Quote it, e.g. "1.30" — unquoted it is read as a number.') : '';
    this.out.push({ rule: 'kubeadm/type', message: t('{0} must be {1}, not {2}.{3}', path.split('.').pop(), want, got, hint), start: s, end: e });
  }

  private unknown(keyNode: Node, key: string, path: string, known: string[]): void {
    const [s, e] = rangeOf(keyNode);
    const moved = this.movedField(path, key);
    if (moved) {
      this.out.push({ rule: 'kubeadm/v1beta4-moved-field', message: moved, start: s, end: e, migrate: true });
      return;
    }
    const hint = didYouMean(key, known);
    this.out.push({
      rule: 'kubeadm/unknown-field',
      message: t('Unknown field "{0}" in {1}{2}', key, path, hint ? t(' — did you mean "{0}"?', hint) : '.'),
      start: s,
      end: e,
      ...(hint ? { fix: { title: t('Rename to {0}', hint), edits: [{ start: s, end: e, newText: hint }] } } : {}),
    });
  }

  private movedField(path: string, key: string): string | undefined {
    if (this.api !== KUBEADM_V1BETA4) return undefined;
    if (path === 'ClusterConfiguration.apiServer' && key === 'timeoutForControlPlane') {
      return t('In {0}, apiServer.timeoutForControlPlane moved to InitConfiguration/JoinConfiguration timeouts.controlPlaneComponentHealthCheck.', KUBEADM_V1BETA4);
    }
    if (path === 'JoinConfiguration.discovery' && key === 'timeout') {
      return t('In {0}, discovery.timeout moved to JoinConfiguration timeouts.discovery.', KUBEADM_V1BETA4);
    }
    return undefined;
  }
}
