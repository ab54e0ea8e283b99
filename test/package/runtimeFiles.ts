/**
 * Every file the extension opens from its own folder at run time, worked out from the sources of truth rather than
 * listed by hand: the build's bundle list (scripts/bundles.mjs), the paths package.json names (main, contributed
 * icons, schemas, grammars, …), the schemas those schemas $ref, and the extension-folder paths the code builds
 * (`Uri.joinPath(…extensionUri, 'a', 'b')`, `asAbsolutePath('…')`, `join(__dirname, 'x.js')` next to a bundle), and the
 * pages and images README.md links.
 */
import { existsSync, readFileSync, readdirSync } from 'node:fs';
import { join, posix, relative } from 'node:path';
import { pathToFileURL } from 'node:url';

export type Source = 'build' | 'manifest' | 'schema $ref' | 'code' | 'readme';

export interface RuntimeFile {
  /** Relative to the extension folder, with forward slashes. */
  path: string;
  /** A folder the code hands to VS Code (a webview's localResourceRoots): it must exist and hold files. */
  folder?: boolean;
  source: Source;
  /** Every kind of source that names this path (the first is `source`). */
  sources: Source[];
  /** Where the reference comes from, for the failure message. */
  why: string;
}

/** One reference to a file, before references to the same path are merged. */
type Found = Omit<RuntimeFile, 'sources'>;

/** An esbuild config of scripts/bundles.mjs, as far as these tests read it. */
export interface BundleConfig {
  outfile?: string;
  outdir?: string;
  splitting?: boolean;
  entryPoints: string[] | Record<string, string>;
}

interface BundlesModule {
  outDir: string;
  bundleConfigs(o: { production: boolean; sourcemaps: boolean }): BundleConfig[];
  entryFiles(config: BundleConfig): string[];
  staticClosure(metafile: unknown, entryFile: string): string[];
}

export async function bundlesModule(root: string): Promise<BundlesModule> {
  return (await import(pathToFileURL(join(root, 'scripts/bundles.mjs')).href)) as BundlesModule;
}

/** A string of package.json that names a file of the extension ("./schemas/x.json", "media/kubeadm.svg"). */
function looksLikePath(s: string): boolean {
  if (/\s|[*?{}[\]]|^[a-z][\w+.-]*:|^\$\(|^#/i.test(s) || s.startsWith('/')) return false;
  return s.startsWith('./') || /^[\w.-]+(\/[\w.-]+)+$/.test(s);
}

const clean = (p: string): string => posix.normalize(p.replace(/\\/g, '/')).replace(/^\.\//, '');

function manifestFiles(root: string): Found[] {
  const pkg = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8')) as Record<string, unknown>;
  const out: Found[] = [];
  for (const key of ['main', 'browser'] as const) {
    const v = pkg[key];
    if (typeof v !== 'string') continue;
    const p = clean(v);
    out.push({ path: /\.[cm]?js$/.test(p) ? p : `${p}.js`, source: 'manifest', why: `package.json ${key}` });
  }
  if (typeof pkg.icon === 'string') out.push({ path: clean(pkg.icon), source: 'manifest', why: 'package.json icon' });
  // "l10n": the folder VS Code reads bundle.l10n.<language>.json from (and the command line, next to dist/)
  if (typeof pkg.l10n === 'string') {
    const dir = clean(pkg.l10n);
    const bundles = existsSync(join(root, dir)) ? readdirSync(join(root, dir)).filter((n) => /^bundle\.l10n\.[\w-]+\.json$/.test(n)) : [];
    if (!bundles.length) out.push({ path: dir, folder: true, source: 'manifest', why: 'package.json l10n' });
    for (const n of bundles) out.push({ path: `${dir}/${n}`, source: 'manifest', why: 'package.json l10n' });
  }
  // "%key%" texts: VS Code reads them from package.nls.json next to package.json, and from package.nls.<language>.json
  // under a display language that has one
  if (/"%[\w.-]+%"/.test(JSON.stringify(pkg))) {
    for (const n of ['package.nls.json', ...readdirSync(root).filter((n) => /^package\.nls\.[\w-]+\.json$/.test(n))]) out.push({ path: n, source: 'manifest', why: 'package.json %key% texts' });
  }
  const walk = (v: unknown, at: string): void => {
    if (typeof v === 'string') {
      if (looksLikePath(v)) out.push({ path: clean(v), source: 'manifest', why: `package.json ${at}` });
    } else if (Array.isArray(v)) v.forEach((x, i) => walk(x, `${at}[${i}]`));
    else if (v && typeof v === 'object') for (const [k, x] of Object.entries(v)) walk(x, `${at}.${k}`);
  };
  walk(pkg.contributes, 'contributes');
  return out;
}

/** Relative $refs of the shipped JSON schemas, followed to the end. */
function schemaRefs(root: string, files: Found[]): Found[] {
  const out: Found[] = [];
  const seen = new Set<string>();
  const queue = files.filter((f) => f.path.endsWith('.json') && existsSync(join(root, f.path))).map((f) => f.path);
  while (queue.length) {
    const file = queue.shift()!;
    if (seen.has(file)) continue;
    seen.add(file);
    const refs = new Set<string>();
    const walk = (v: unknown): void => {
      if (Array.isArray(v)) v.forEach(walk);
      else if (v && typeof v === 'object')
        for (const [k, x] of Object.entries(v)) {
          if (k === '$ref' && typeof x === 'string' && !x.startsWith('#') && !/^[a-z][\w+.-]*:/i.test(x)) refs.add(x.split('#')[0]!);
          else walk(x);
        }
    };
    walk(JSON.parse(readFileSync(join(root, file), 'utf8')));
    for (const r of refs) {
      const p = clean(posix.join(posix.dirname(file), r));
      out.push({ path: p, source: 'schema $ref', why: `$ref in ${file}` });
      queue.push(p);
    }
  }
  return out;
}

function sourceFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((d) => {
    const p = join(dir, d.name);
    return d.isDirectory() ? sourceFiles(p) : /\.tsx?$/.test(d.name) ? [p] : [];
  });
}

/** Paths inside the extension folder that the extension-side code builds from string literals. */
function codeFiles(root: string, outDir: string): Found[] {
  const out: Found[] = [];
  const literals = (args: string): string[] | undefined => {
    const parts = args.split(',').map((a) => a.trim()).filter(Boolean);
    const lits = parts.map((a) => /^'([^']*)'$|^"([^"]*)"$/.exec(a)).map((m) => (m ? (m[1] ?? m[2])! : undefined));
    return lits.every((l): l is string => l !== undefined) ? lits : undefined;
  };
  for (const file of sourceFiles(join(root, 'src'))) {
    // Browser bundles run in a webview, not in the extension folder.
    if (relative(root, file).startsWith(join('src', 'webview-ui'))) continue;
    const text = readFileSync(file, 'utf8');
    const at = (index: number): string => `${relative(root, file)}:${text.slice(0, index).split('\n').length}`;
    for (const m of text.matchAll(/Uri\.joinPath\(\s*[\w.]*extensionUri\s*,([^()]*)\)/g)) {
      const segs = literals(m[1]!);
      if (!segs) continue;
      const p = clean(segs.join('/'));
      // A name with an extension is a file; without one, a folder handed to VS Code as a whole.
      out.push({ path: p, folder: !/\.\w+$/.test(p), source: 'code', why: at(m.index) });
    }
    for (const m of text.matchAll(/asAbsolutePath\(([^()]*)\)/g)) {
      const segs = literals(m[1]!);
      if (segs) out.push({ path: clean(segs.join('/')), source: 'code', why: at(m.index) });
    }
    // A file opened next to the running bundle: in the package __dirname is the bundles' folder.
    for (const m of text.matchAll(/join\(\s*__dirname\s*,\s*'([\w.-]+\.c?js)'\s*\)/g)) out.push({ path: `${outDir}/${m[1]}`, source: 'code', why: at(m.index) });
  }
  return out;
}

/**
 * The files a built bundle loads from its own folder on demand, followed from file to file: every `require("./x.js")`
 * of the built code (a split build's shared files, and each `import()` of the sources, which the build turns into such
 * a require run on first use). Read from the files on disk, so it is what the build really wrote.
 */
function requiredFiles(root: string, entries: string[]): Found[] {
  const out: Found[] = [];
  const seen = new Set(entries);
  const queue = [...entries];
  while (queue.length) {
    const file = queue.shift()!;
    if (!file.endsWith('.js') || !existsSync(join(root, file))) continue;
    const text = readFileSync(join(root, file), 'utf8');
    for (const m of text.matchAll(/\brequire\("\.\/([\w.-]+\.js)"\)/g)) {
      const p = clean(posix.join(posix.dirname(file), m[1]!));
      if (seen.has(p)) continue;
      seen.add(p);
      out.push({ path: p, source: 'build', why: `required by ${file}` });
      queue.push(p);
    }
  }
  return out;
}

/** The README's relative links and images: the extension's details page shows the README and opens them from the extension folder. */
function readmeFiles(root: string): Found[] {
  const text = readFileSync(join(root, 'README.md'), 'utf8');
  const out: Found[] = [];
  for (const m of text.matchAll(/\]\(([^)\s#]+)(?:#[^)\s]*)?\)/g)) {
    const target = m[1]!;
    if (/^[a-z][\w+.-]*:/i.test(target)) continue;
    out.push({ path: clean(target), source: 'readme', why: `README.md line ${text.slice(0, m.index).split('\n').length}` });
  }
  return out;
}

export async function runtimeFiles(root: string): Promise<RuntimeFile[]> {
  const { bundleConfigs, entryFiles, outDir } = await bundlesModule(root);
  const build: Found[] = bundleConfigs({ production: true, sourcemaps: false }).flatMap((c) =>
    entryFiles(c).map((path) => ({
      path: clean(path),
      source: 'build' as const,
      why: `bundle of ${Object.values(c.entryPoints).join(', ')} (scripts/bundles.mjs)`,
    })),
  );
  build.push(...requiredFiles(root, build.map((b) => b.path)));
  const manifest = manifestFiles(root);
  const code = codeFiles(root, outDir);
  const all = [...build, ...manifest, ...code, ...readmeFiles(root)];
  all.push(...schemaRefs(root, all));
  // One row per path, with every reason that names it.
  const byPath = new Map<string, RuntimeFile>();
  for (const f of all) {
    const seen = byPath.get(f.path);
    if (!seen) byPath.set(f.path, { ...f, sources: [f.source] });
    else if (!seen.why.includes(f.why)) byPath.set(f.path, { ...seen, sources: [...new Set([...seen.sources, f.source])], why: `${seen.why}; ${f.why}` });
  }
  return [...byPath.values()].sort((a, b) => a.path.localeCompare(b.path));
}
