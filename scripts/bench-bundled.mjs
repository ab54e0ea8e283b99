// Runs a benchmark compiled as the lint worker ships: the worker's esbuild config from scripts/bundles.mjs (the
// production one, as `npm run package` builds it) with the benchmark as its entry, written to out/ (one level below
// the repository, where the benchmark finds its files) and run with node. The lint worker itself is built next to it
// (out/lintWorker.js), for a benchmark that starts workers as the editor does. Usage: node scripts/bench-bundled.mjs bench/X.ts
import * as esbuild from 'esbuild';
import { spawnSync } from 'node:child_process';
import { basename, join } from 'node:path';
import { bundleConfigs, root, withPasses } from './bundles.mjs';

const entry = process.argv[2];
if (!entry) throw new Error('usage: node scripts/bench-bundled.mjs bench/<name>.bench.ts');
const worker = bundleConfigs({ production: true }).find((c) => c.entryPoints?.lintWorker === 'src/engine/lintWorker.ts');
if (!worker) throw new Error('scripts/bundles.mjs has no lint worker bundle');
const outfile = join(root, 'out', basename(entry).replace(/\.ts$/, '.js'));
// The benchmark is one CommonJS file (it imports the linters itself); the worker is built as it ships, split.
const { splitting: _s, outdir: _o, entryNames: _e, chunkNames: _c, metafile: _m, ...oneFile } = worker;
await Promise.all([esbuild.build({ ...oneFile, format: 'cjs', entryPoints: [entry], outfile }), esbuild.build(withPasses({ ...worker, outdir: 'out' }))]);
const run = spawnSync(process.execPath, [outfile, ...process.argv.slice(3)], { stdio: 'inherit' });
process.exit(run.status ?? 1);
