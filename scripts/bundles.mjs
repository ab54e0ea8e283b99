// The esbuild bundles of the extension, the command-line tool and each webview: one list that scripts/build.mjs builds
// and test/package/ reads, so the test of the .vsix knows every file the build makes without a list of its own.
//
// The extension and the command line are split where the code says `import('…')`: what such an import names (a
// command, a verb, the SSH library, the linters) goes into a file of its own that Node loads on that first call, and
// code two of them share into a shared file, so nothing is loaded twice and module state stays single. esbuild splits
// only ES modules, so those two are built as ES modules and each file written is then turned into CommonJS
// (`commonJsOutputs`): VS Code's extension host and `node dist/cli.js` load CommonJS, and each `import()` becomes a
// require() of its file, run on first use. The files stay next to their entry in dist/, where the code finds its
// neighbours (`join(__dirname, 'lintWorker.js')`, `kube.js`).
import * as esbuild from 'esbuild';
import { readdirSync, existsSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

export const root = join(dirname(fileURLToPath(import.meta.url)), '..');
/** Everything the build writes goes here, and the .vsix ships this folder whole (.vscodeignore). */
export const outDir = 'dist';

/**
 * `import * as vscode from 'vscode'` makes esbuild copy the whole API object (some 400 names, each as a getter) for
 * every module that says it, when the output is CommonJS: 53 copies cost the extension host about 10 ms of its
 * activation on a loaded 2-core machine. Every module's `vscode` is instead this one module, which takes the API's
 * names once.
 */
const vscodeOnce = {
  name: 'vscode-once',
  setup(build) {
    build.onResolve({ filter: /^vscode$/ }, (a) => (a.namespace === 'vscode-once' ? { path: 'vscode', external: true } : { path: 'vscode', namespace: 'vscode-once' }));
    build.onLoad({ filter: /.*/, namespace: 'vscode-once' }, () => ({ contents: "export * from 'vscode';", loader: 'js' }));
  },
};

/** Node-side files that are split (see above); the others are one CommonJS file each. */
const SPLIT = { format: 'esm', splitting: true, outdir: outDir, metafile: true, entryNames: '[name]' };
/** ssh2's optional native parts: it runs without them (pure-JS crypto). */
const SSH2_NATIVE = ['cpu-features', './crypto/build/Release/sshcrypto.node'];

/**
 * The esbuild configs. `production` minifies and drops source maps; `sourcemaps` keeps linked maps even then (for
 * `KW_SOURCEMAPS=1 npm run package`, when a packaged build has to be debugged).
 */
export function bundleConfigs({ production = false, sourcemaps = !production } = {}) {
  const common = {
    bundle: true,
    sourcemap: sourcemaps ? 'linked' : false,
    minify: production,
    logLevel: 'warning',
    absWorkingDir: root,
  };
  const nodeCommon = { ...common, platform: 'node', target: 'node20' };
  /** Node-side bundles: the extension host entry and the CLI share the core but not `vscode`. */
  const node = [
    // Split files are named by the module an import() names (`ext-gatherFacts-HASH.js`) or `ext-chunk-HASH.js` when shared.
    { ...nodeCommon, ...SPLIT, entryPoints: { extension: 'src/extension.ts' }, chunkNames: 'ext-[name]-[hash]', external: [...SSH2_NATIVE], plugins: [vscodeOnce] },
    // The lint worker (src/engine/lintRunner.ts starts it from next to extension.js or cli.js) runs the rules off the main thread.
    // Split too: the linters are an import() of their own, which a worker that only parses inventories never loads.
    { ...nodeCommon, ...SPLIT, entryPoints: { lintWorker: 'src/engine/lintWorker.ts' }, chunkNames: 'worker-[name]-[hash]', external: ['vscode'] },
    // The command line: src/cli/bin.ts runs main(); each verb is an import() of its own file.
    { ...nodeCommon, ...SPLIT, entryPoints: { cli: 'src/cli/bin.ts' }, chunkNames: 'cli-[name]-[hash]', external: ['vscode', ...SSH2_NATIVE] },
    // The kube adapter (@kubernetes/client-node) is its own bundle, required lazily on first connection.
    // undici (client-node 2.x's fetch, Node >= 22 only) is swapped for a shim that throws if reached: the adapter does its own HTTPS.
    { ...nodeCommon, entryPoints: ['src/adapters/kube/index.ts'], outfile: `${outDir}/kube.js`, format: 'cjs', external: ['vscode', 'bufferutil', 'utf-8-validate'], alias: { undici: './src/adapters/kube/undiciShim.ts' } },
  ];

  /** Browser-side bundles: one per folder in src/webview-ui that has a main.ts. */
  const uiRoot = join(root, 'src/webview-ui');
  const webviews = existsSync(uiRoot)
    ? readdirSync(uiRoot, { withFileTypes: true })
        .filter((d) => d.isDirectory() && existsSync(join(uiRoot, d.name, 'main.ts')))
        .map((d) => ({ ...common, entryPoints: [`src/webview-ui/${d.name}/main.ts`], outfile: `${outDir}/webviews/${d.name}.js`, platform: 'browser', format: 'esm', target: 'es2022' }))
    : [];
  return [...node, ...webviews];
}

/** The file each entry of a config is written to (`dist/extension.js`), whether the config is split or not. */
export function entryFiles(config) {
  if (config.outfile) return [config.outfile];
  return Object.keys(config.entryPoints).map((name) => `${config.outdir}/${name}.js`);
}

/** The first line of an entry that runs as a program. */
const SHEBANG = { [`${outDir}/cli.js`]: '#!/usr/bin/env node' };

/**
 * Turns every JavaScript file a split build wrote (its metafile's outputs) into CommonJS in place: `import` of another
 * file becomes require(), `import()` becomes `Promise.resolve().then(() => require(…))`, the entry's exports become
 * module.exports. The source maps are carried through (esbuild reads each file's linked map as its input map).
 */
export async function commonJsOutputs(config, metafile) {
  const files = Object.keys(metafile.outputs).filter((f) => f.endsWith('.js'));
  await Promise.all(
    files.map((file) =>
      esbuild.build({
        absWorkingDir: config.absWorkingDir,
        entryPoints: [file],
        outfile: file,
        allowOverwrite: true,
        bundle: false,
        format: 'cjs',
        platform: 'node',
        target: config.target,
        supported: { 'dynamic-import': false },
        minify: config.minify,
        sourcemap: config.sourcemap,
        // The first pass already warned about what deserves it (and not about dependencies' code, which this pass
        // cannot tell from ours).
        logLevel: 'error',
        ...(SHEBANG[file] ? { banner: { js: SHEBANG[file] } } : {}),
      }),
    ),
  );
  // Without source maps (the package): each entry carries the files it loads at its top level, so that starting it
  // reads one file (see mergeTopLevelFiles). With maps (development, KW_SOURCEMAPS=1) the files stay apart.
  if (!config.sourcemap) for (const entry of entryFiles(config)) mergeTopLevelFiles(config, metafile, entry);
}

/**
 * Puts into `entry` the files it requires at its top level (esbuild's shared files: 26 of them for the extension,
 * whose reading and resolving was a fifth of its load time), each as a function run on its first require() as Node
 * would run the file: with a module of its own, registered in require.cache under the file's own path. A file loaded
 * later (an import() of a command) requires those paths and gets the same modules from the cache — one instance of
 * each module, as before. The files themselves only throw: nothing may load them without the entry.
 */
function mergeTopLevelFiles(config, metafile, outputPath) {
  // As the metafile names outputs: relative to the working folder (an outdir elsewhere, as tests build, gives ../…).
  const entry = relative(config.absWorkingDir, resolve(config.absWorkingDir, outputPath));
  const dir = join(config.absWorkingDir, dirname(entry));
  const parts = staticClosure(metafile, entry).filter((f) => f !== entry);
  if (parts.length === 0) return;
  const entryPath = join(config.absWorkingDir, entry);
  const read = (f) => readFileSync(join(config.absWorkingDir, f), 'utf8');
  // In parentheses: V8 then compiles each function with the file rather than pre-parsing it and parsing it again on
  // its first call (measured: the second parse cost as much as the whole file's compile).
  const definitions = parts.map((f) => `${JSON.stringify(f.slice(dirname(entry).length + 1))}:(function(exports,require,module,__filename,__dirname){${read(f)}\n})`).join(',');
  // require() of one of those files runs it once, in a module registered as Node's loader would (parent, paths, cache
  // entry before it runs, removed if it throws); any other request goes to Node from that module. The require handed
  // to the code has require.cache and require.resolve, as Node's.
  const loader =
    'var __kwTopLevel=(function(parent,files){var path=require("path"),Module=parent.constructor;' +
    'function load(name){var filename=path.join(__dirname,name),cached=require.cache[filename];if(cached)return cached.exports;' +
    'var m=new Module(filename,parent);m.filename=filename;m.paths=parent.paths;require.cache[filename]=m;' +
    'try{files[name].call(m.exports,m.exports,requireFrom(m),m,filename,__dirname)}catch(e){delete require.cache[filename];throw e}m.loaded=true;return m.exports}' +
    // A file of the build loaded later (an import()'s, and what it requires) is read and compiled here too, without
    // Node's resolution: the command line loads some 20 of them for a lint, and finding each (stat calls, the package
    // scope) cost about as much as compiling it. Only for the command line (FAST_LATER); a file that cannot be read goes to Node.
    (FAST_LATER.has(entry.slice(dirname(entry).length + 1))
      ? 'var fs=require("fs"),vm=require("vm"),PARAMS=["exports","require","module","__filename","__dirname"];' +
        'function later(name,id,from){var filename=path.join(__dirname,name),cached=require.cache[filename];if(cached)return cached.exports;var text;' +
        'try{text=fs.readFileSync(filename,"utf8")}catch(e){return from.require(id)}' +
        'var m=new Module(filename,from);m.filename=filename;m.paths=parent.paths;require.cache[filename]=m;' +
        'try{vm.compileFunction(text,PARAMS,{filename:filename}).call(m.exports,m.exports,requireFrom(m),m,filename,__dirname)}catch(e){delete require.cache[filename];throw e}m.loaded=true;return m.exports}'
      : 'function later(name,id,from){return from.require(id)}') +
    'function requireFrom(m){var r=function(id){var name=/^\\.\\/([\\w.-]+\\.js)$/.exec(id);return name?Object.prototype.hasOwnProperty.call(files,name[1])?load(name[1]):later(name[1],id,m):m.require(id)};' +
    // what Node's require() carries besides the call (require.cache, require.resolve, …)
    'r.cache=require.cache;r.main=require.main;r.extensions=require.extensions;r.resolve=function(request,options){return Module._resolveFilename(request,m,false,options)};return r}' +
    `return requireFrom(parent)})(module,{${definitions}});`;
  const text = readFileSync(entryPath, 'utf8');
  const shebang = text.startsWith('#!') ? text.slice(0, text.indexOf('\n') + 1) : '';
  writeFileSync(entryPath, `${shebang}"use strict";${loader}\n(function(require){${text.slice(shebang.length)}\n})(__kwTopLevel);\n`);
  for (const f of parts) writeFileSync(join(dir, f.slice(dirname(entry).length + 1)), `throw new Error(${JSON.stringify(`${f.slice(dirname(entry).length + 1)} is part of ${entry.slice(dirname(entry).length + 1)}: it loads with it`)});\n`);
}

/** Entries whose later files the merged loader reads itself (see mergeTopLevelFiles). */
const FAST_LATER = new Set(['cli.js']);

/** An esbuild plugin that runs commonJsOutputs after each build of a split config (also each rebuild in --watch). */
export function commonJsPlugin(config) {
  return {
    name: 'commonjs-outputs',
    setup(build) {
      build.onEnd(async (result) => {
        if (result.errors.length === 0 && result.metafile) await commonJsOutputs(config, result.metafile);
      });
    },
  };
}

/** A config ready for esbuild.build / esbuild.context: split configs get their CommonJS pass. */
export function withPasses(config) {
  return config.splitting ? { ...config, plugins: [...(config.plugins ?? []), commonJsPlugin(config)] } : config;
}

/**
 * The files a split build's entry loads before its code runs: the entry and, transitively, every file it imports
 * statically (an `import()` is left out: it loads on first use). From the build's metafile; paths as in it.
 */
export function staticClosure(metafile, entryFile) {
  const seen = new Set();
  const visit = (file) => {
    if (seen.has(file)) return;
    seen.add(file);
    for (const i of metafile.outputs[file]?.imports ?? []) if (i.kind === 'import-statement' && !i.external) visit(i.path);
  };
  visit(entryFile);
  return [...seen];
}
