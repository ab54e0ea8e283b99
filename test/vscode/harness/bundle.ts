import * as esbuild from 'esbuild';
import { readdirSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { REPO } from './codeServer';

export const SUITE_OUT = join(REPO, 'out/vscode-test');

/** Bundles test/vscode/suite/*.ts into out/vscode-test/*.js (CommonJS; `vscode` and `mocha` stay external). */
export async function bundleSuite(): Promise<string> {
  rmSync(SUITE_OUT, { recursive: true, force: true });
  const suiteDir = join(REPO, 'test/vscode/suite');
  const entries = readdirSync(suiteDir).filter((f) => f.endsWith('.ts')).map((f) => join(suiteDir, f));
  await esbuild.build({
    entryPoints: entries,
    outdir: SUITE_OUT,
    bundle: true,
    platform: 'node',
    format: 'cjs',
    target: 'node20',
    sourcemap: 'inline',
    external: ['vscode', 'mocha'],
    logLevel: 'warning',
    absWorkingDir: REPO,
  });
  return join(SUITE_OUT, 'index.js');
}
