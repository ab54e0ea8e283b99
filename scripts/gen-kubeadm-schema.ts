/**
 * Generates the JSON schemas of the kubeadm configuration file (schemas/kubeadm-v1beta3.schema.json,
 * schemas/kubeadm-v1beta4.schema.json) from the upstream Go type definitions. No schema is published
 * upstream, so this reads the Go structs — json tags, doc comments, pointer/slice/map types, typed string
 * constants — and writes draft-07 JSON Schema with one definition per Go type and an if/then per
 * apiVersion+kind. The upstream Go sources are read from paths given on the command line; none is
 * committed here.
 *
 * Usage:
 *   tsx scripts/gen-kubeadm-schema.ts -o schemas/kubeadm-v1beta4.schema.json \
 *     kubeadm.k8s.io/v1beta4=$K8S/cmd/kubeadm/app/apis/kubeadm/v1beta4/types.go \
 *     kubelet.config.k8s.io/v1beta1=$KUBELET/config/v1beta1/types.go#KubeletConfiguration \
 *     kubeproxy.config.k8s.io/v1alpha1=$KUBEPROXY/config/v1alpha1/types.go#KubeProxyConfiguration \
 *     +$K8S/cmd/kubeadm/app/apis/bootstraptoken/v1/types.go
 *
 * An `apiVersion=path` argument contributes kinds: the structs marked as runtime.Object in that file, or
 * only the kinds listed after `#`. A `+path` argument contributes support types only (referenced from
 * other files). Types from packages that are not given (metav1, corev1, component-base) come from the
 * EXTERNAL table below. With the Go module cache of a Kubernetes build:
 *   K8S=~/go/pkg/mod/k8s.io/kubernetes@v1.34.12 KUBELET=~/go/pkg/mod/k8s.io/kubelet@v0.34.12
 *   KUBEPROXY=~/go/pkg/mod/k8s.io/kube-proxy@v0.34.12
 */
import { readFileSync, writeFileSync } from 'node:fs';

type Schema = Record<string, unknown>;

interface GoField {
  name: string;
  json: string;
  inline: boolean;
  type: string;
  doc: string;
}

interface GoType {
  name: string;
  doc: string;
  fields?: GoField[];
  /** For `type X <expr>` declarations that are not structs. */
  alias?: string;
  enumValues: string[];
  isObject: boolean;
  file: number;
}

interface InputFile {
  path: string;
  apiVersion?: string;
  kinds?: string[];
  pkg: string;
  types: Map<string, GoType>;
}

const DURATION: Schema = { type: 'string', pattern: '^([0-9]+(\\.[0-9]+)?(ns|us|µs|ms|s|m|h))+$', description: 'A Go duration such as 30s, 5m or 1h30m.' };

/** Types from packages the generator is not given: metav1, corev1 and component-base. */
const EXTERNAL: Record<string, Schema> = {
  'metav1.Duration': DURATION,
  'metav1.Time': { type: 'string', format: 'date-time', description: 'An RFC 3339 timestamp.' },
  'metav1.ObjectMeta': { type: 'object' },
  'corev1.PullPolicy': { type: 'string', enum: ['Always', 'Never', 'IfNotPresent'], description: 'Image pull policy.' },
  'corev1.HostPathType': {
    type: 'string',
    enum: ['', 'DirectoryOrCreate', 'Directory', 'FileOrCreate', 'File', 'Socket', 'CharDevice', 'BlockDevice'],
    description: 'The type of a host path volume.',
  },
  'corev1.Taint': {
    type: 'object',
    description: 'A node taint.',
    properties: {
      key: { type: 'string', description: 'The taint key to be applied to a node.' },
      value: { type: 'string', description: 'The taint value corresponding to the taint key.' },
      effect: { type: 'string', enum: ['NoSchedule', 'PreferNoSchedule', 'NoExecute'], description: 'The effect of the taint on pods that do not tolerate it.' },
      timeAdded: { type: 'string', format: 'date-time', description: 'When the taint was added (NoExecute only).' },
    },
    required: ['key', 'effect'],
    additionalProperties: false,
  },
  'corev1.EnvVar': {
    type: 'object',
    properties: {
      name: { type: 'string', description: 'Name of the environment variable.' },
      value: { type: 'string', description: 'Value of the environment variable.' },
      valueFrom: { type: 'object', description: 'Source for the value (fieldRef, resourceFieldRef, configMapKeyRef, secretKeyRef).' },
    },
    required: ['name'],
  },
  'v1.ResourceList': { type: 'object', additionalProperties: { type: ['string', 'number'] }, description: 'Resource name → quantity.' },
  'v1.NodeConfigSource': { type: 'object' },
  'logsapi.LoggingConfiguration': {
    type: 'object',
    description: 'Logging options (component-base logs/api/v1).',
    properties: {
      format: { type: 'string', description: 'Log format, e.g. text or json.' },
      flushFrequency: { type: ['string', 'integer'], description: 'Maximum time between log flushes.' },
      verbosity: { type: 'integer', description: 'Log verbosity threshold.' },
      vmodule: { type: 'array', items: { type: 'object' }, description: 'Per-file verbosity overrides.' },
      options: { type: 'object', description: 'Format-specific options.' },
    },
  },
  'tracingapi.TracingConfiguration': {
    type: 'object',
    description: 'OpenTelemetry tracing (component-base tracing/api/v1).',
    properties: {
      endpoint: { type: 'string', description: 'Collector endpoint.' },
      samplingRatePerMillion: { type: 'integer', description: 'Sampled spans per million.' },
    },
  },
  'componentbaseconfigv1alpha1.ClientConnectionConfiguration': {
    type: 'object',
    description: 'How a component talks to the API server.',
    properties: {
      kubeconfig: { type: 'string', description: 'Path to a kubeconfig file.' },
      acceptContentTypes: { type: 'string', description: 'The Accept header sent to the server.' },
      contentType: { type: 'string', description: 'Content type of requests.' },
      qps: { type: 'number', description: 'Queries per second allowed.' },
      burst: { type: 'integer', description: 'Extra queries allowed in a burst.' },
    },
    additionalProperties: false,
  },
  'componentbaseconfigv1alpha1.DebuggingConfiguration': {
    type: 'object',
    properties: {
      enableProfiling: { type: 'boolean', description: 'Enable profiling via the web interface.' },
      enableContentionProfiling: { type: 'boolean', description: 'Enable block profiling when profiling is on.' },
    },
    additionalProperties: false,
  },
};

EXTERNAL['v1.Taint'] = EXTERNAL['corev1.Taint']!;

/** Types whose Go struct has no JSON fields because they marshal themselves as a string. */
const STRING_TYPES: Record<string, Schema> = {
  BootstrapTokenString: { type: 'string', pattern: '^[a-z0-9]{6}\\.[a-z0-9]{16}$', description: 'A bootstrap token of the form abcdef.0123456789abcdef.' },
};

function usage(): never {
  console.error('usage: gen-kubeadm-schema.ts -o OUT.json apiVersion=types.go[#Kind,...] ... [+support-types.go ...]');
  process.exit(2);
}

function cleanDoc(lines: string[]): string {
  const kept = lines
    .map((l) => l.replace(/^\s*\/\/ ?/, ''))
    .filter((l) => !/^\s*\+/.test(l) && !/^\s*(TODO|NOTE)\b/.test(l));
  // Paragraphs stay separated by a blank line; lines inside a paragraph are joined.
  const out: string[] = [];
  let para: string[] = [];
  for (const l of kept) {
    if (l.trim() === '') {
      if (para.length) out.push(para.join(' '));
      para = [];
    } else para.push(l.trim());
  }
  if (para.length) out.push(para.join(' '));
  return out.join('\n\n').trim();
}

function parseGoFile(path: string, index: number): InputFile {
  const src = readFileSync(path, 'utf8').replace(/\r\n/g, '\n');
  const lines = src.split('\n');
  const types = new Map<string, GoType>();
  const pkg = /^package\s+(\w+)/m.exec(src)?.[1] ?? 'unknown';
  let doc: string[] = [];
  let current: GoType | undefined;
  let depth = 0;
  let inConst = false;
  const typedConsts: Array<[string, string]> = [];
  let objectMarker = false;
  let inBlockComment = false;
  for (const raw of lines) {
    const line = raw.replace(/\s+$/, '');
    if (inBlockComment) {
      if (line.includes('*/')) inBlockComment = false;
      continue;
    }
    if (line.startsWith('/*')) {
      inBlockComment = !line.includes('*/');
      continue;
    }
    if (current) {
      if (/^\}/.test(line) && depth === 1) {
        current = undefined;
        depth = 0;
        doc = [];
        continue;
      }
      const trimmed = line.trim();
      if (trimmed.startsWith('/*')) {
        inBlockComment = !trimmed.includes('*/');
        continue;
      }
      if (trimmed.startsWith('//')) {
        doc.push(trimmed);
        continue;
      }
      if (trimmed === '') {
        doc = [];
        continue;
      }
      if (/struct\s*\{\s*$/.test(trimmed)) depth++;
      if (trimmed === '}' && depth > 1) {
        depth--;
        continue;
      }
      if (depth > 1) continue; // anonymous nested structs are not used in these APIs
      const m = /^(?:([A-Za-z_]\w*)\s+)?([^\s`]+)\s*(?:`([^`]*)`)?/.exec(trimmed);
      if (m) {
        const tag = m[3] ?? '';
        const jsonTag = /json:"([^"]*)"/.exec(tag)?.[1];
        const fieldName = m[1];
        const type = fieldName ? m[2]! : m[2]!;
        if (jsonTag !== undefined && jsonTag.split(',')[0] === '-') {
          current.fields!.push({ name: fieldName ?? type, json: '-', inline: false, type, doc: '' });
        } else if (!fieldName || (jsonTag !== undefined && jsonTag.split(',').includes('inline'))) {
          current.fields!.push({ name: type, json: '', inline: true, type: fieldName ? type : m[2]!, doc: cleanDoc(doc) });
        } else {
          const json = jsonTag !== undefined && jsonTag.split(',')[0] !== '' ? jsonTag.split(',')[0]! : fieldName;
          current.fields!.push({ name: fieldName, json, inline: false, type, doc: cleanDoc(doc) });
        }
      }
      doc = [];
      continue;
    }
    if (inConst) {
      if (/^\)/.test(line)) {
        inConst = false;
        continue;
      }
      const c = /^\s+\w+\s+(\w+)\s*=\s*"([^"]*)"/.exec(line);
      if (c) typedConsts.push([c[1]!, c[2]!]);
      continue;
    }
    if (/^const\s*\(/.test(line)) {
      inConst = true;
      doc = [];
      continue;
    }
    const single = /^const\s+\w+\s+(\w+)\s*=\s*"([^"]*)"/.exec(line);
    if (single) {
      typedConsts.push([single[1]!, single[2]!]);
      continue;
    }
    if (line.startsWith('//')) {
      // The runtime.Object marker sits in its own comment block, a blank line above the type's doc.
      if (line.includes('+k8s:deepcopy-gen:interfaces=k8s.io/apimachinery/pkg/runtime.Object')) objectMarker = true;
      doc.push(line);
      continue;
    }
    if (line.trim() === '') {
      doc = [];
      continue;
    }
    const struct = /^type\s+(\w+)\s+struct\s*\{\s*(\})?$/.exec(line);
    if (struct) {
      const isObject = objectMarker;
      objectMarker = false;
      const t: GoType = { name: struct[1]!, doc: cleanDoc(doc), fields: [], enumValues: [], isObject, file: index };
      types.set(t.name, t);
      if (!struct[2]) {
        current = t;
        depth = 1;
      }
      doc = [];
      continue;
    }
    const alias = /^type\s+(\w+)\s+(?:=\s*)?(\S+)/.exec(line);
    if (alias) {
      types.set(alias[1]!, { name: alias[1]!, doc: cleanDoc(doc), alias: alias[2]!, enumValues: [], isObject: false, file: index });
    }
    doc = [];
  }
  for (const [typeName, value] of typedConsts) types.get(typeName)?.enumValues.push(value);
  return { path, pkg, types };
}

class Generator {
  readonly definitions: Record<string, Schema> = {};
  private readonly defKey = new Map<string, string>(); // `${file}:${name}` → definition key

  constructor(private readonly files: InputFile[]) {
    const count = new Map<string, number>();
    for (const f of files) for (const name of f.types.keys()) count.set(name, (count.get(name) ?? 0) + 1);
    files.forEach((f, i) => {
      for (const name of f.types.keys()) {
        const group = f.apiVersion ? f.apiVersion.split('/')[0]!.split('.')[0] : f.pkg;
        this.defKey.set(`${i}:${name}`, count.get(name)! > 1 ? `${group}.${name}` : name);
      }
    });
  }

  ref(fileIndex: number, name: string): Schema {
    const key = this.defKey.get(`${fileIndex}:${name}`)!;
    if (!(key in this.definitions)) {
      this.definitions[key] = {}; // placeholder against recursion
      this.definitions[key] = this.typeSchema(this.files[fileIndex]!.types.get(name)!);
    }
    return { $ref: `#/definitions/${key}` };
  }

  /** A Go type expression → schema. */
  expr(fileIndex: number, expr: string): Schema {
    if (expr.startsWith('*')) return this.expr(fileIndex, expr.slice(1));
    if (expr === '[]byte') return { type: 'string', contentEncoding: 'base64' };
    if (expr.startsWith('[]')) return { type: 'array', items: this.expr(fileIndex, expr.slice(2)) };
    const map = /^map\[([^\]]+)\](.+)$/.exec(expr);
    if (map) return { type: 'object', additionalProperties: this.expr(fileIndex, map[2]!) };
    switch (expr) {
      case 'string':
        return { type: 'string' };
      case 'bool':
        return { type: 'boolean' };
      case 'int': case 'int8': case 'int16': case 'int32': case 'int64':
      case 'uint': case 'uint8': case 'uint16': case 'uint32': case 'uint64':
        return { type: 'integer' };
      case 'float32': case 'float64':
        return { type: 'number' };
      case 'interface{}': case 'any':
        return {};
    }
    if (expr.includes('.')) {
      const external = EXTERNAL[expr];
      if (external) return structuredClone(external);
      const local = expr.split('.').pop()!;
      const idx = this.files.findIndex((f) => f.types.has(local));
      if (idx >= 0) return this.ref(idx, local);
      console.error(`warning: unknown external type ${expr}; left open`);
      return { description: `Upstream type ${expr}.` };
    }
    if (this.files[fileIndex]!.types.has(expr)) return this.ref(fileIndex, expr);
    const other = this.files.findIndex((f) => f.types.has(expr));
    if (other >= 0) return this.ref(other, expr);
    console.error(`warning: unknown type ${expr}; left open`);
    return {};
  }

  typeSchema(t: GoType): Schema {
    const base: Schema = t.doc ? { description: t.doc } : {};
    if (STRING_TYPES[t.name]) return { ...base, ...STRING_TYPES[t.name] };
    if (t.alias !== undefined) {
      const s = this.expr(t.file, t.alias);
      if (t.enumValues.length && s.type === 'string') s.enum = [...new Set(t.enumValues)];
      return { ...base, ...s };
    }
    const properties: Record<string, Schema> = {};
    const allOf: Schema[] = [];
    for (const f of t.fields ?? []) {
      if (f.json === '-') continue;
      if (f.inline) {
        if (f.type === 'metav1.TypeMeta') {
          properties.apiVersion = { type: 'string', description: 'The versioned schema of this object.' };
          properties.kind = { type: 'string', description: 'The kind of this object.' };
          continue;
        }
        // Inline (embedded) structs: copy their properties in.
        const inner = this.resolve(this.expr(t.file, f.type));
        Object.assign(properties, (inner.properties as Record<string, Schema>) ?? {});
        if (!inner.properties) allOf.push(inner);
        continue;
      }
      const s = this.expr(t.file, f.type);
      const doc = f.doc;
      const described = doc ? (s.$ref ? { allOf: [s], description: capitalize(doc) } : { ...s, description: capitalize(doc) }) : s;
      if (/\bDeprecated\b/i.test(f.doc)) described.deprecated = true;
      described['x-go-name'] = f.name;
      properties[f.json] = described;
    }
    return { ...base, type: 'object', properties, additionalProperties: false, ...(allOf.length ? { allOf } : {}) };
  }

  resolve(s: Schema): Schema {
    const ref = s.$ref as string | undefined;
    return ref ? this.definitions[ref.replace('#/definitions/', '')]! : s;
  }
}

function capitalize(s: string): string {
  return s ? s[0]!.toUpperCase() + s.slice(1) : s;
}

function main(): void {
  const args = process.argv.slice(2);
  let out: string | undefined;
  const inputs: Array<{ path: string; apiVersion?: string; kinds?: string[] }> = [];
  for (let i = 0; i < args.length; i++) {
    const a = args[i]!;
    if (a === '-o') out = args[++i];
    else if (a.startsWith('+')) inputs.push({ path: a.slice(1) });
    else {
      const m = /^([\w.-]+\/[\w]+)=([^#]+)(?:#(.+))?$/.exec(a);
      if (!m) usage();
      inputs.push({ apiVersion: m[1]!, path: m[2]!, ...(m[3] ? { kinds: m[3].split(',') } : {}) });
    }
  }
  if (!out || !inputs.some((i) => i.apiVersion)) usage();
  const files = inputs.map((inp, i) => ({ ...parseGoFile(inp.path, i), ...(inp.apiVersion ? { apiVersion: inp.apiVersion } : {}), ...(inp.kinds ? { kinds: inp.kinds } : {}) }));
  const gen = new Generator(files);
  const kinds: Record<string, Record<string, string>> = {};
  const conditions: Schema[] = [];
  files.forEach((f, i) => {
    if (!f.apiVersion) return;
    const names = f.kinds ?? [...f.types.values()].filter((t) => t.isObject).map((t) => t.name);
    for (const kind of names) {
      if (!f.types.has(kind)) throw new Error(`${f.path} has no type ${kind}`);
      const ref = gen.ref(i, kind);
      (kinds[f.apiVersion] ??= {})[kind] = ref.$ref as string;
      conditions.push({
        if: { properties: { apiVersion: { const: f.apiVersion }, kind: { const: kind } }, required: ['apiVersion', 'kind'] },
        then: ref,
      });
    }
  });
  const main = files.find((f) => f.apiVersion?.startsWith('kubeadm.k8s.io/'))?.apiVersion ?? files[0]!.apiVersion!;
  const schema: Schema = {
    $schema: 'http://json-schema.org/draft-07/schema#',
    $id: `https://kubeadm-workbench.invalid/schemas/kubeadm-${main.split('/')[1]}.schema.json`,
    title: `kubeadm configuration (${main}) with KubeletConfiguration and KubeProxyConfiguration`,
    description: 'Generated by scripts/gen-kubeadm-schema.ts from the upstream Go types; do not edit by hand.',
    'x-kinds': kinds,
    type: 'object',
    required: ['apiVersion', 'kind'],
    properties: {
      apiVersion: { type: 'string', enum: Object.keys(kinds), description: 'The API group and version of this document.' },
      kind: { type: 'string', enum: [...new Set(Object.values(kinds).flatMap((k) => Object.keys(k)))], description: 'The configuration type of this document.' },
    },
    allOf: conditions,
    definitions: Object.fromEntries(Object.entries(gen.definitions).sort(([a], [b]) => a.localeCompare(b))),
  };
  writeFileSync(out, JSON.stringify(schema, null, 2) + '\n');
  console.log(`${out}: ${Object.values(kinds).reduce((n, k) => n + Object.keys(k).length, 0)} kinds, ${Object.keys(gen.definitions).length} definitions`);
}

main();
