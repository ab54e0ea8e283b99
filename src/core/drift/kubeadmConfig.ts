/**
 * The pieces of kubeadm's configuration the drift comparison and the reconfigure read: documents by kind, a
 * component's extraArgs in either API shape (v1beta3 a map, v1beta4 a list of name/value pairs), a static pod
 * manifest's flags, the leaves of a document, and where a field is written in a file (for a finding's line).
 */
import { isMap, isScalar, isSeq, LineCounter, parseAllDocuments, type Node as YamlNode } from 'yaml';

export type Obj = Record<string, unknown>;

export const COMPONENTS = ['kube-apiserver', 'kube-controller-manager', 'kube-scheduler', 'etcd'] as const;
export type ControlPlaneComponent = (typeof COMPONENTS)[number];

/** The ClusterConfiguration section of each component (etcd: the stacked member's). */
export const SECTION: Record<ControlPlaneComponent, readonly string[]> = {
  'kube-apiserver': ['apiServer'],
  'kube-controller-manager': ['controllerManager'],
  'kube-scheduler': ['scheduler'],
  etcd: ['etcd', 'local'],
};

export function isObj(v: unknown): v is Obj {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

/** The documents of a multi-document file, by kind (the last of a kind wins, as mergeKubeadmDocuments does). */
export function documentsByKind(text: string): Map<string, Obj> {
  const out = new Map<string, Obj>();
  for (const d of parseAllDocuments(text)) {
    if (d.errors.length) continue;
    const v = d.toJS() as unknown;
    if (isObj(v) && typeof v.kind === 'string') out.set(v.kind, v);
  }
  return out;
}

/** One YAML document (a ConfigMap's value, a node's file); undefined when it does not parse to a mapping. */
export function parseObject(text: string | undefined): Obj | undefined {
  if (text === undefined) return undefined;
  const d = parseAllDocuments(text)[0];
  const v = d && !d.errors.length ? (d.toJS() as unknown) : undefined;
  return isObj(v) ? v : undefined;
}

export function getIn(o: unknown, path: readonly string[]): unknown {
  let v = o;
  for (const k of path) v = isObj(v) ? v[k] : undefined;
  return v;
}

/** A component section's extraArgs as name → value, from either API shape; undefined when the section sets none. */
export function extraArgsOf(section: unknown): Map<string, string> | undefined {
  const e = isObj(section) ? section.extraArgs : undefined;
  if (e === undefined || e === null) return undefined;
  if (Array.isArray(e)) return new Map(e.filter(isObj).map((x) => [String(x.name), String(x.value ?? '')]));
  if (isObj(e)) return new Map(Object.entries(e).map(([k, v]) => [k, String(v)]));
  return undefined;
}

/** extraArgs in the shape of `api` (the ConfigMap's apiVersion: v1beta3 a map, later a list), sorted by name. */
export function extraArgsShape(args: ReadonlyMap<string, string>, api: string): unknown {
  const sorted = [...args.entries()].sort((a, b) => a[0].localeCompare(b[0]));
  return api.endsWith('v1beta3') ? Object.fromEntries(sorted) : sorted.map(([name, value]) => ({ name, value }));
}

/** A static pod manifest's flags (`--name=value`; a bare `--name` is `true`), the container's command or args. */
export function manifestFlags(manifest: Obj | undefined): Map<string, string> {
  const c = (getIn(manifest, ['spec', 'containers']) as unknown[] | undefined)?.[0];
  const words = [...((isObj(c) && Array.isArray(c.command) ? c.command : []) as unknown[]), ...((isObj(c) && Array.isArray(c.args) ? c.args : []) as unknown[])];
  const out = new Map<string, string>();
  for (const w of words) {
    const m = /^--([^=]+)(?:=([\s\S]*))?$/.exec(String(w));
    if (m) out.set(m[1]!, m[2] ?? 'true');
  }
  return out;
}

/** The image's tag of a manifest's first container. */
export function manifestImageTag(manifest: Obj | undefined): string | undefined {
  const c = (getIn(manifest, ['spec', 'containers']) as unknown[] | undefined)?.[0];
  return isObj(c) ? /:([^:/@]+)$/.exec(String(c.image ?? ''))?.[1] : undefined;
}

/** Every leaf of a document as `a.b.c` → value (lists are leaves). `skip` leaves out subtrees by their dotted path. */
export function leaves(o: unknown, skip: readonly string[] = [], prefix = ''): Map<string, unknown> {
  const out = new Map<string, unknown>();
  if (!isObj(o)) return out;
  for (const [k, v] of Object.entries(o)) {
    const p = prefix ? `${prefix}.${k}` : k;
    if (skip.includes(p)) continue;
    if (isObj(v) && Object.keys(v).length) for (const [lp, lv] of leaves(v, skip, p)) out.set(lp, lv);
    else out.set(p, v);
  }
  return out;
}

/** A value as one line: scalars as they are, the rest as JSON. */
export function show(v: unknown): string {
  if (v === undefined) return '(not set)';
  return typeof v === 'string' && v !== '' ? v : JSON.stringify(v);
}

export function sameValue(a: unknown, b: unknown): boolean {
  const norm = (v: unknown): string => (typeof v === 'number' || typeof v === 'boolean' ? String(v) : JSON.stringify(v ?? null));
  return norm(a) === norm(b);
}

/**
 * Where a field is written in a file: the line and column (1-based) of the deepest node on `path` in the document of
 * `kind` (an extraArgs list item is found by its name). Undefined when the file has no such document.
 */
export function locate(text: string, kind: string, path: readonly string[]): { line: number; column: number } | undefined {
  const lc = new LineCounter();
  const docs = parseAllDocuments(text, { lineCounter: lc });
  for (const d of docs) {
    if (d.errors.length || !isMap(d.contents)) continue;
    const k = d.contents.items.find((p) => isScalar(p.key) && p.key.value === 'kind');
    if (!k || !isScalar(k.value) || k.value.value !== kind) continue;
    let node: YamlNode | null | undefined = d.contents;
    let at = k.key as YamlNode;
    for (const key of path) {
      if (isMap(node)) {
        const pair = node.items.find((p) => isScalar(p.key) && String(p.key.value) === key);
        if (!pair) break;
        at = pair.key as YamlNode;
        node = pair.value as YamlNode | null;
      } else if (isSeq(node)) {
        const item = node.items.find((i) => isMap(i) && i.items.some((p) => isScalar(p.key) && p.key.value === 'name' && isScalar(p.value) && String(p.value.value) === key));
        if (!item) break;
        at = item as YamlNode;
        node = item as YamlNode;
      } else break;
    }
    const offset = at.range?.[0];
    if (offset === undefined) return undefined;
    const pos = lc.linePos(offset);
    return { line: pos.line, column: pos.col };
  }
  return undefined;
}
