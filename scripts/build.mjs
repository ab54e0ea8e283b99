// Bundles the extension, the command-line tool and each webview separately with esbuild (the list: scripts/bundles.mjs).
// dist/ is emptied first, so it holds exactly what this build made: no source map or bundle left from an earlier
// build can slip into the .vsix, which ships dist/ whole.
// Options: --production (minified, no source maps unless KW_SOURCEMAPS=1), --watch.
import * as esbuild from 'esbuild';
import { readdirSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { bundleConfigs, outDir, root, withPasses } from './bundles.mjs';

const production = process.argv.includes('--production');
const watch = process.argv.includes('--watch');
const sourcemaps = production ? process.env.KW_SOURCEMAPS === '1' : true;

const configs = bundleConfigs({ production, sourcemaps }).map(withPasses);
rmSync(join(root, outDir), { recursive: true, force: true });
if (watch) {
  for (const config of configs) await (await esbuild.context(config)).watch();
} else {
  const started = Date.now();
  await Promise.all(configs.map((c) => esbuild.build(c)));
  const files = readdirSync(join(root, outDir), { recursive: true }).filter((f) => String(f).endsWith('.js')).length;
  console.log(`built ${configs.length} bundles (${files} files) in ${Date.now() - started} ms${production ? ` (production${sourcemaps ? ', with source maps' : ''})` : ''}`);
}
