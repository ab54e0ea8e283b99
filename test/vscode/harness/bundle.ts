import * as esbuild from 'esbuild';
import { readdirSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { REPO } from './codeServer';

export const SUITE_OUT = join(REPO, 'out/vscode-test');

/**
 * Bundles test/vscode/suite/*.ts into out/vscode-test/*.js (CommonJS; `vscode` and `mocha` stay external) and makes
 * that folder an empty extension of its own (a package.json, no code, another id). VS Code runs extensionTestsPath
 * only in a window that has an extensionDevelopmentPath: this stand-in is it, so the extension under test stays the
 * one installed from the .vsix instead of the repository.
 */
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
  writeFileSync(
    join(SUITE_OUT, 'package.json'),
    JSON.stringify({ name: 'kubeadm-workbench-tests', publisher: 'kubeadm-workbench', version: '0.0.0', description: 'Runs test/vscode/suite; contributes nothing.', engines: { vscode: '^1.95.0' } }, null, 2),
  );
  return join(SUITE_OUT, 'index.js');
}
