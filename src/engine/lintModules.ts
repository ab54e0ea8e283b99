/**
 * The linters of the kinds present, for the command line (./inProcessLint.ts) and the lint worker (./lintWorker.ts):
 * each family of kinds (../core/lint/families/: the inventory; kubeadm and the CNI manifest; the balancers; the nodes'
 * system files) is an `import()` of its own, which the build makes a file of its own (scripts/bundles.mjs), so a run
 * loads only what its files need: a 10,000-line haproxy.cfg loads 334 KB of the build instead of 641 KB (neither the
 * YAML parser nor the kubeadm schemas). Measured in pairs against the build that loaded every linter, about 4 % less
 * CPU: V8 compiles a function on its first call, so code never run cost little even when loaded.
 *
 * A file's answer needs its kind's linter and facts, and the facts of its siblings' kinds (the cross-file check compares
 * with them); `load(kindsFor(request))` loads them before the answer runs, outside its time limit, and the answer then
 * goes through `LAZY_LINTERS`, which lints as the registry does (../core/lint/run.ts) with the modules loaded.
 */
import type { Finding } from '../core/findings';
import { FACT_EXTRACTORS, registerFactExtractors, siblingKind } from '../core/lint/crossFile';
import type { KindFamily } from '../core/lint/families/family';
import { detectKind, KIND_TESTS } from '../core/lint/kinds';
import { lintWith } from '../core/lint/run';
import type { FileKind, FileLinter, LintContext, SourceFile } from '../core/lint/types';
import type { LintRequest } from './lintRunner';

/** What answering a request takes of the linters (the registry module has the same two). */
export interface Linters {
  detectKind(path: string, text: string): FileKind | undefined;
  lintText(file: SourceFile, context: LintContext, kind: FileKind): Finding[];
}

/** What a request needs loaded: the linters of `lint`, the facts of `facts`. */
export interface KindModules {
  lint: FileKind[];
  facts: FileKind[];
}

/**
 * Run from the TypeScript source (tsx, in tests), the worker has a CommonJS hook only, and import() is not turned into
 * require() there: the source is required then. Bundled, each import() below is a file of the build.
 */
const FROM_SOURCE = __filename.endsWith('.ts');

function fromSource<T>(path: string): Promise<T> {
  // eslint-disable-next-line @typescript-eslint/no-require-imports
  return Promise.resolve(require(path) as T);
}

type Family = Promise<KindFamily>;

const inventory = (): Family => (FROM_SOURCE ? fromSource<typeof import('../core/lint/families/inventory')>('../core/lint/families/inventory') : import('../core/lint/families/inventory.js')).then((m) => m.FAMILY);
const kubeadm = (): Family => (FROM_SOURCE ? fromSource<typeof import('../core/lint/families/kubeadm')>('../core/lint/families/kubeadm') : import('../core/lint/families/kubeadm.js')).then((m) => m.FAMILY);
const balancers = (): Family => (FROM_SOURCE ? fromSource<typeof import('../core/lint/families/balancers')>('../core/lint/families/balancers') : import('../core/lint/families/balancers.js')).then((m) => m.FAMILY);
const nodes = (): Family => (FROM_SOURCE ? fromSource<typeof import('../core/lint/families/nodes')>('../core/lint/families/nodes') : import('../core/lint/families/nodes.js')).then((m) => m.FAMILY);

/** Where each kind's linter and facts are (../core/lint/families/). */
const FAMILY_OF: Record<FileKind, () => Family> = {
  inventory,
  kubeadm,
  'cni-manifest': kubeadm,
  haproxy: balancers,
  keepalived: balancers,
  containerd: nodes,
  sysctl: nodes,
  modules: nodes,
};

const linters = new Map<FileKind, FileLinter>();

/** The kinds that state cluster facts (../core/lint/crossFile.ts compares them). */
const FACT_KINDS = new Set<FileKind>(['kubeadm', 'cni-manifest', 'haproxy', 'keepalived']);

/** Every kind (a worker that lints whatever the editor opens loads them all before it says it is ready). */
export const ALL_KINDS: KindModules = { lint: KIND_TESTS.map((k) => k.kind), facts: KIND_TESTS.map((k) => k.kind) };

/** The modules answering `req` takes: none for a detection or an inventory's parse, else its kind's and its siblings' facts. */
export function kindsFor(req: LintRequest): KindModules {
  if (req.detectOnly || (req.model && req.kind === 'inventory')) return { lint: [], facts: [] };
  const kind = req.kind ?? detectKind(req.file.path, req.file.text);
  if (!kind) return { lint: [], facts: [] };
  const facts = new Set<FileKind>([kind]);
  for (const s of req.context.siblings ?? []) {
    const k = siblingKind(s);
    if (k) facts.add(k);
  }
  return { lint: [kind], facts: [...facts] };
}

/** Loads what `kinds` names and has not been loaded yet. */
export async function loadKinds(kinds: KindModules): Promise<void> {
  const wanted = new Set([...kinds.lint.filter((k) => !linters.has(k)), ...kinds.facts.filter((k) => FACT_KINDS.has(k) && !FACT_EXTRACTORS[k])].map((k) => FAMILY_OF[k]));
  for (const family of await Promise.all([...wanted].map((load) => load()))) {
    for (const l of family.linters) linters.set(l.kind, l);
    registerFactExtractors(family.facts);
  }
}

/** Lints with the linters loaded so far (loadKinds first): the registry's detection and the registry's way of linting. */
export const LAZY_LINTERS: Linters = {
  detectKind,
  lintText(file, context, kind) {
    const linter = linters.get(kind);
    if (!linter) throw new Error(`the ${kind} linter was not loaded`);
    return lintWith(linter, file, context, kind);
  },
};
