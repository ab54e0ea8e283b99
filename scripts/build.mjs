// Bundles the extension, the command-line tool and each webview separately with esbuild.
import * as esbuild from 'esbuild';
import { readdirSync, existsSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const production = process.argv.includes('--production');
const watch = process.argv.includes('--watch');

const common = {
  bundle: true,
  sourcemap: production ? false : 'linked',
  minify: production,
  logLevel: 'warning',
  absWorkingDir: root,
};

/** Node-side bundles: the extension host entry and the CLI share the core but not `vscode`. */
const node = [
  { ...common, entryPoints: ['src/extension.ts'], outfile: 'dist/extension.js', platform: 'node', format: 'cjs', target: 'node20', external: ['vscode', 'cpu-features', './crypto/build/Release/sshcrypto.node'] },
  // The lint worker (src/lintRunner.ts starts it from next to extension.js or cli.js) runs the rules off the main thread.
  { ...common, entryPoints: ['src/lintWorker.ts'], outfile: 'dist/lintWorker.js', platform: 'node', format: 'cjs', target: 'node20', external: ['vscode'] },
  { ...common, entryPoints: ['src/cli/main.ts'], outfile: 'dist/cli.js', platform: 'node', format: 'cjs', target: 'node20', external: ['vscode', 'cpu-features', './crypto/build/Release/sshcrypto.node'], banner: { js: '#!/usr/bin/env node' } },
  // The kube adapter (@kubernetes/client-node) is its own bundle, required lazily on first connection.
  // undici (client-node 2.x's fetch, Node >= 22 only) is swapped for a shim that throws if reached: the adapter does its own HTTPS.
  { ...common, entryPoints: ['src/adapters/kube/index.ts'], outfile: 'dist/kube.js', platform: 'node', format: 'cjs', target: 'node20', external: ['vscode', 'bufferutil', 'utf-8-validate'], alias: { undici: './src/adapters/kube/undiciShim.ts' } },
];

/** Browser-side bundles: one per folder in src/webview-ui that has a main.ts. */
const uiRoot = join(root, 'src/webview-ui');
const webviews = existsSync(uiRoot)
  ? readdirSync(uiRoot, { withFileTypes: true })
      .filter((d) => d.isDirectory() && existsSync(join(uiRoot, d.name, 'main.ts')))
      .map((d) => ({ ...common, entryPoints: [`src/webview-ui/${d.name}/main.ts`], outfile: `dist/webviews/${d.name}.js`, platform: 'browser', format: 'esm', target: 'es2022' }))
  : [];

const configs = [...node, ...webviews];
if (watch) {
  for (const config of configs) await (await esbuild.context(config)).watch();
} else {
  const started = Date.now();
  await Promise.all(configs.map((c) => esbuild.build(c)));
  console.log(`built ${configs.length} bundles in ${Date.now() - started} ms`);
}
