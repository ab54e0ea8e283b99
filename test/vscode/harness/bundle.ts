import * as esbuild from 'esbuild';
import { mkdirSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { REPO } from './codeServer';

/**
 * Bundles test/vscode/suite/*.ts into `outDir`/*.js (CommonJS; `vscode` and mocha stay external); returns the
 * extensionTestsPath entry. run.ts puts the bundle inside the installed extension's folder: VS Code gives each
 * extension its own `vscode` API object, chosen by the folder the requiring file is in, and the tests that answer
 * dialogs by replacing `vscode.window.showQuickPick` need the very object the extension calls. The extension's own
 * files stay as the .vsix installed them.
 */
export async function bundleSuite(outDir: string): Promise<string> {
  rmSync(outDir, { recursive: true, force: true });
  const suiteDir = join(REPO, 'test/vscode/suite');
  const entries = readdirSync(suiteDir).filter((f) => f.endsWith('.ts')).map((f) => join(suiteDir, f));
  await esbuild.build({
    entryPoints: entries,
    outdir: outDir,
    bundle: true,
    platform: 'node',
    format: 'cjs',
    target: 'node20',
    sourcemap: 'inline',
    external: ['vscode'],
    // mocha stays outside the bundle, required by its absolute path: the bundle does not sit in the repository.
    plugins: [{ name: 'mocha-from-repository', setup: (b) => b.onResolve({ filter: /^mocha$/ }, () => ({ path: require.resolve('mocha', { paths: [REPO] }), external: true })) }],
    logLevel: 'warning',
    absWorkingDir: REPO,
  });
  return join(outDir, 'index.js');
}

/**
 * An empty extension (a package.json, no code, another id) for the window's extensionDevelopmentPath: VS Code runs
 * extensionTestsPath only in a development window, and this stand-in makes one without loading the repository, so the
 * extension under test stays the one installed from the .vsix.
 */
export function standInExtension(dir: string): string {
  mkdirSync(dir, { recursive: true });
  writeFileSync(
    join(dir, 'package.json'),
    JSON.stringify({ name: 'kubeadm-workbench-tests', publisher: 'kubeadm-workbench', version: '0.0.0', description: 'Makes the test window a development window; contributes nothing.', engines: { vscode: '^1.95.0' } }, null, 2),
  );
  return dir;
}
