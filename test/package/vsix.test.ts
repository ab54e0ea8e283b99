/**
 * The .vsix users install (`npm run package`, which `npm start` installs too) holds every file the extension loads at
 * run time — the lazy kube adapter bundle, the lint worker, the webview bundles, the schemas, the media — as this build
 * wrote them, and nothing else: no source maps (unless KW_SOURCEMAPS=1 asks), no sources, tests or node_modules.
 * The list of what must be there comes from test/package/runtimeFiles.ts (build list, package.json, schema $refs, the
 * code's extension-folder paths, README.md's links), not from a hand list. Prints the package's size and checks
 * docs/development.md gives it.
 *
 * Run: npm run test:package
 */
import * as assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { existsSync, readFileSync, rmSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { bundlesModule, runtimeFiles, type RuntimeFile } from './runtimeFiles';
import { EAGER_EXTENSION_BYTES } from '../budgets';
import type { BuildOptions } from 'esbuild';
import { zipEntries, type ZipEntry } from './zipEntries';
import { tempDir } from '../tempDir';

const ROOT = join(__dirname, '../..');
/** Files every package has besides the extension folder's own. */
const VSIX_META = new Set(['[Content_Types].xml', 'extension.vsixmanifest']);
/** Top-level files every extension ships: the manifest, readme, licence, changelog. */
const DOCS = /^(package\.json|readme\.md|license(\.txt)?|changelog\.md)$/i;

/** `npm run package -- --out FILE`, docs/development.md's command; returns its entries (paths inside extension/). */
function packageVsix(out: string, env: NodeJS.ProcessEnv = process.env): { entries: Map<string, ZipEntry>; bytes: number; ms: number } {
  const t0 = Date.now();
  const r = spawnSync('npm', ['run', '-s', 'package', '--', '--out', out], { cwd: ROOT, env, encoding: 'utf8' });
  assert.equal(r.status, 0, `npm run package failed:\n${r.stdout}\n${r.stderr}`);
  const entries = new Map<string, ZipEntry>();
  for (const e of zipEntries(out)) {
    if (VSIX_META.has(e.name)) continue;
    assert.ok(e.name.startsWith('extension/'), `unexpected top-level entry ${e.name}`);
    entries.set(e.name.slice('extension/'.length), e);
  }
  return { entries, bytes: statSync(out).size, ms: Date.now() - t0 };
}

/** Where the package's commands and sizes are documented. */
const SIZES_DOC = 'docs/development.md';

/** The size SIZES_DOC gives on the line of `command` ("… (about 1.3 MB…"), in bytes. */
function documentedSize(command: string): number {
  const line = readFileSync(join(ROOT, SIZES_DOC), 'utf8').split('\n').find((l) => l.startsWith(command));
  const m = line && /\(about ([\d.]+) (KB|MB)/.exec(line);
  assert.ok(m, `${SIZES_DOC} has no line starting with "${command}" that gives the size as "(about N MB"`);
  return Number(m[1]) * (m[2] === 'MB' ? 1024 * 1024 : 1024);
}

/** The documented number may be rounded, not wrong: within 15 % of what was built. */
function assertNear(built: number, documented: number, what: string): void {
  const mb = (n: number): string => `${(n / 1024 / 1024).toFixed(2)} MB`;
  assert.ok(Math.abs(built - documented) <= 0.15 * built, `${what} is ${mb(built)} but ${SIZES_DOC} says about ${mb(documented)}: update ${SIZES_DOC}`);
}

/** The folder the files of one source are in (the build's: dist). */
function dirOf(files: RuntimeFile[], source: RuntimeFile['source']): string {
  const dirs = new Set(files.filter((f) => f.source === source).map((f) => f.path.split('/')[0]));
  assert.equal(dirs.size, 1, `the ${source} files are in one folder`);
  return [...dirs][0]!;
}

describe('the packaged .vsix', { timeout: 180_000 }, () => {
  let dir: string;
  let entries: Map<string, ZipEntry>;
  let bytes: number;
  let needed: RuntimeFile[];

  before(async () => {
    dir = tempDir('kw-vsix-');
    const vsix = join(dir, 'kubeadm-workbench.vsix');
    // The default package, whatever this shell exports.
    const { KW_SOURCEMAPS: _asked, ...env } = process.env;
    const built = packageVsix(vsix, env);
    entries = built.entries;
    bytes = built.bytes;
    needed = await runtimeFiles(ROOT);
    console.log(`vsix: ${entries.size} files, ${(built.bytes / 1024 / 1024).toFixed(2)} MB (${built.bytes} bytes), packaged in ${(built.ms / 1000).toFixed(1)} s`);
    for (const f of needed) console.log(`  needed: ${f.path}${f.folder ? '/' : ''}  (${f.sources.join(', ')}: ${f.why})`);
  });

  after(() => rmSync(dir, { recursive: true, force: true }));

  it('the list of run-time files comes from the build, package.json, the schemas and the code', () => {
    // Guards the derivation itself: a scan that stopped matching would otherwise pass with nothing to check.
    for (const source of ['build', 'manifest', 'schema $ref', 'code', 'readme'] as const) {
      assert.ok(needed.some((f) => f.sources.includes(source)), `no run-time file found from ${source}`);
    }
    for (const f of needed) assert.ok(!f.path.startsWith('../') && !f.path.startsWith('/'), `${f.path} (${f.why}) points outside the extension folder`);
  });

  it('holds every file the extension loads at run time, as this build wrote it', () => {
    const missing: string[] = [];
    for (const f of needed) {
      if (f.folder) {
        if (![...entries.keys()].some((e) => e.startsWith(`${f.path}/`))) missing.push(`${f.path}/ (folder; ${f.why})`);
        continue;
      }
      const onDisk = join(ROOT, f.path);
      assert.ok(existsSync(onDisk), `${f.path} is named by ${f.why} but does not exist after the build`);
      const e = entries.get(f.path);
      if (!e) missing.push(`${f.path} (${f.why})`);
      else assert.equal(e.size, statSync(onDisk).size, `${f.path} in the .vsix is not the file this build wrote`);
    }
    assert.deepEqual(missing, [], `missing from the .vsix (check .vscodeignore):\n  ${missing.join('\n  ')}`);
  });

  it('ships no source maps, sources, tests or dependencies', () => {
    const maps = [...entries.keys()].filter((e) => e.endsWith('.map'));
    assert.deepEqual(maps, [], 'source maps in the .vsix without KW_SOURCEMAPS=1');
    // Besides the documents, only the folders that hold a run-time file (dist/, schemas/, media/ with the README's
    // screenshot, …) may ship: nothing from src/, test/, scripts/, lab/, out/ or node_modules/.
    const folders = new Set(needed.map((f) => f.path.split('/')[0]));
    const files = new Set(needed.map((f) => f.path));
    const stray = [...entries.keys()].filter((e) => !DOCS.test(e) && !files.has(e) && !(e.includes('/') && folders.has(e.split('/')[0])));
    assert.deepEqual(stray, [], 'files in the .vsix outside the folders the extension loads from');
  });

  it('activation loads only its own small part: dist/extension.js and what it requires at its top level, within the budget', async () => {
    // From the build's module graph (esbuild's metafile of the production config, not written): the entry and the
    // files it imports statically. Each import() of the sources is a file of its own that loads on first use.
    const esbuild = await import('esbuild');
    const { bundleConfigs, staticClosure } = await bundlesModule(ROOT);
    const config = bundleConfigs({ production: true, sourcemaps: false }).find((c) => !Array.isArray(c.entryPoints) && c.entryPoints.extension);
    assert.ok(config?.splitting, 'scripts/bundles.mjs builds src/extension.ts as a split bundle');
    const built = await esbuild.build({ ...(config as BuildOptions), write: false });
    const metafile = built.metafile!;
    const eager = staticClosure(metafile, 'dist/extension.js');
    const sizes = eager.map((f) => {
      const e = entries.get(f);
      assert.ok(e, `${f} (loaded at activation) is not in the .vsix`);
      return e.size;
    });
    const bytes = sizes.reduce((a, b) => a + b, 0);
    const modules = eager.flatMap((f) => Object.entries(metafile.outputs[f]!.inputs)).sort((a, b) => b[1].bytesInOutput - a[1].bytesInOutput);
    const lazy = Object.keys(metafile.outputs).filter((f) => f.endsWith('.js') && !eager.includes(f));
    // Without source maps the build puts the top-level files into dist/extension.js and leaves a line that throws in
    // each (scripts/bundles.mjs, mergeTopLevelFiles): the sum is then the entry's bytes, read as one file.
    console.log(`activation loads ${bytes} bytes (budget ${EAGER_EXTENSION_BYTES}): ${eager.length} outputs of the build, read from ${eager.filter((f) => (entries.get(f)?.size ?? 0) > 200).length} file(s); ${lazy.length} files load on first use`);
    console.log(`  largest modules loaded at activation: ${modules.slice(0, 8).map(([m, i]) => `${m} ${i.bytesInOutput}`).join(', ')}`);
    assert.ok(bytes <= EAGER_EXTENSION_BYTES, `activation loads ${bytes} bytes, over the budget of ${EAGER_EXTENSION_BYTES} (test/budgets.ts): something heavy is imported statically from src/extension.ts; make it an import() where it is first used. Largest modules:\n  ${modules.slice(0, 20).map(([m, i]) => `${m} ${i.bytesInOutput}`).join('\n  ')}`);
    // The heavy parts by name: none of them may be on the activation path, whatever the budget.
    const heavy = modules.map(([m]) => m).filter((m) => /^src\/(commands\/(?!registrar\.ts|context\.ts)|engine\/(?!lintRunner\.ts)|webviews\/\w+Panel\.ts)|src\/core\/lint\/registry\.ts|node_modules\/(ssh2|yaml|smol-toml)\//.test(m));
    assert.deepEqual(heavy, [], 'commands, the engine, the webview panels, the linters and the SSH and YAML libraries load on first use, not at activation');
  });

  it('is the size docs/development.md gives', () => {
    assertNear(bytes, documentedSize('npm run package '), 'the .vsix');
  });

  it('KW_SOURCEMAPS=1 npm run package ships each bundle with its linked map', () => {
    const withMaps = packageVsix(join(dir, 'with-maps.vsix'), { ...process.env, KW_SOURCEMAPS: '1' });
    // Its own files: the split build's file names carry a hash of their contents, which the maps' comments change.
    const bundles = [...withMaps.entries.keys()].filter((e) => e.startsWith(`${dirOf(needed, 'build')}/`) && e.endsWith('.js'));
    assert.equal(bundles.length, needed.filter((f) => f.source === 'build').length, 'the build with source maps wrote as many bundles as the one without');
    for (const b of bundles) assert.ok(withMaps.entries.has(`${b}.map`), `${b}.map missing with KW_SOURCEMAPS=1`);
    console.log(`vsix with source maps: ${(withMaps.bytes / 1024 / 1024).toFixed(2)} MB`);
    assertNear(withMaps.bytes, documentedSize('KW_SOURCEMAPS=1 npm run package '), 'the .vsix with source maps');
  });
});
