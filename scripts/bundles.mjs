// The esbuild bundles of the extension, the command-line tool and each webview: one list that scripts/build.mjs builds
// and test/package/ reads, so the test of the .vsix knows every file the build makes without a list of its own.
import { readdirSync, existsSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

export const root = join(dirname(fileURLToPath(import.meta.url)), '..');
/** Everything the build writes goes here, and the .vsix ships this folder whole (.vscodeignore). */
export const outDir = 'dist';

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
  /** Node-side bundles: the extension host entry and the CLI share the core but not `vscode`. */
  const node = [
    { ...common, entryPoints: ['src/extension.ts'], outfile: `${outDir}/extension.js`, platform: 'node', format: 'cjs', target: 'node20', external: ['vscode', 'cpu-features', './crypto/build/Release/sshcrypto.node'] },
    // The lint worker (src/engine/lintRunner.ts starts it from next to extension.js or cli.js) runs the rules off the main thread.
    { ...common, entryPoints: ['src/engine/lintWorker.ts'], outfile: `${outDir}/lintWorker.js`, platform: 'node', format: 'cjs', target: 'node20', external: ['vscode'] },
    { ...common, entryPoints: ['src/cli/main.ts'], outfile: `${outDir}/cli.js`, platform: 'node', format: 'cjs', target: 'node20', external: ['vscode', 'cpu-features', './crypto/build/Release/sshcrypto.node'], banner: { js: '#!/usr/bin/env node' } },
    // The kube adapter (@kubernetes/client-node) is its own bundle, required lazily on first connection.
    // undici (client-node 2.x's fetch, Node >= 22 only) is swapped for a shim that throws if reached: the adapter does its own HTTPS.
    { ...common, entryPoints: ['src/adapters/kube/index.ts'], outfile: `${outDir}/kube.js`, platform: 'node', format: 'cjs', target: 'node20', external: ['vscode', 'bufferutil', 'utf-8-validate'], alias: { undici: './src/adapters/kube/undiciShim.ts' } },
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
