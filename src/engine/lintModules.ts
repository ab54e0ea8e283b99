/**
 * The linters of the kinds present, for the command line (./inProcessLint.ts) and the lint worker (./lintWorker.ts):
 * each kind's linter, and each kind's cross-file facts, is an `import()` of its own, which the build makes a file of its
 * own (scripts/bundles.mjs), so a run loads only what its files need. Compiling every linter cost about 14 ms whatever
 * the file; a 10,000-line haproxy.cfg now loads neither the YAML parser nor the kubeadm schemas.
 *
 * A file's answer needs its kind's linter and facts, and the facts of its siblings' kinds (the cross-file check compares
 * with them); `load(kindsFor(request))` loads them before the answer runs, outside its time limit, and the answer then
 * goes through `LAZY_LINTERS`, which lints as the registry does (../core/lint/run.ts) with the modules loaded.
 */
import type { Finding } from '../core/findings';
import { FACT_EXTRACTORS, registerFactExtractors, siblingKind, type FactExtractor } from '../core/lint/crossFile';
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

type Loader<T> = () => Promise<T>;

const LINTER_MODULES: Record<FileKind, Loader<FileLinter>> = {
  inventory: () => (FROM_SOURCE ? fromSource<typeof import('../core/lint/inventoryLinter')>('../core/lint/inventoryLinter') : import('../core/lint/inventoryLinter.js')).then((m) => m.inventoryLinter),
  kubeadm: () => (FROM_SOURCE ? fromSource<typeof import('../core/kubeadm/linter')>('../core/kubeadm/linter') : import('../core/kubeadm/linter.js')).then((m) => m.kubeadmLinter),
  'cni-manifest': () => (FROM_SOURCE ? fromSource<typeof import('../core/kubeadm/cniLinter')>('../core/kubeadm/cniLinter') : import('../core/kubeadm/cniLinter.js')).then((m) => m.cniManifestLinter),
  haproxy: () => (FROM_SOURCE ? fromSource<typeof import('../core/haproxy/lint')>('../core/haproxy/lint') : import('../core/haproxy/lint.js')).then((m) => m.haproxyLinter),
  keepalived: () => (FROM_SOURCE ? fromSource<typeof import('../core/keepalived/lint')>('../core/keepalived/lint') : import('../core/keepalived/lint.js')).then((m) => m.keepalivedLinter),
  containerd: () => (FROM_SOURCE ? fromSource<typeof import('../core/containerd/linter')>('../core/containerd/linter') : import('../core/containerd/linter.js')).then((m) => m.containerdLinter),
  sysctl: () => (FROM_SOURCE ? fromSource<typeof import('../core/sysctl/linter')>('../core/sysctl/linter') : import('../core/sysctl/linter.js')).then((m) => m.sysctlLinter),
  modules: () => (FROM_SOURCE ? fromSource<typeof import('../core/sysctl/linter')>('../core/sysctl/linter') : import('../core/sysctl/linter.js')).then((m) => m.modulesLinter),
};

type Facts = Partial<Record<FileKind, FactExtractor>>;
const kubeadmFacts: Loader<Facts> = () => (FROM_SOURCE ? fromSource<typeof import('../core/kubeadm/facts')>('../core/kubeadm/facts') : import('../core/kubeadm/facts.js')).then((m) => m.KUBEADM_FACTS);

/** The kinds that state cluster facts, and where their extractors are. */
const FACT_MODULES: Partial<Record<FileKind, Loader<Facts>>> = {
  kubeadm: kubeadmFacts,
  'cni-manifest': kubeadmFacts,
  haproxy: () => (FROM_SOURCE ? fromSource<typeof import('../core/haproxy/facts')>('../core/haproxy/facts') : import('../core/haproxy/facts.js')).then((m) => m.HAPROXY_FACTS),
  keepalived: () => (FROM_SOURCE ? fromSource<typeof import('../core/keepalived/facts')>('../core/keepalived/facts') : import('../core/keepalived/facts.js')).then((m) => m.KEEPALIVED_FACTS),
};

const linters = new Map<FileKind, FileLinter>();

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
  await Promise.all([
    ...kinds.lint.filter((k) => !linters.has(k)).map(async (k) => linters.set(k, await LINTER_MODULES[k]())),
    ...kinds.facts.filter((k) => FACT_MODULES[k] && !FACT_EXTRACTORS[k]).map(async (k) => registerFactExtractors(await FACT_MODULES[k]!())),
  ]);
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
