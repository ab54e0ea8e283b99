/**
 * The same extension-host suite through @vscode/test-electron, for machines that can download desktop VS Code
 * (this one cannot: only package registries are reachable, so `npm test` uses code-server instead — test/vscode/run.ts).
 * Usage: npm run test:electron   (needs a display or xvfb-run on Linux)
 */
import { runTests } from '@vscode/test-electron';
import { bundleSuite } from './harness/bundle';
import { REPO, makeRunDirs, removeRunDir } from './harness/codeServer';

async function main(): Promise<number> {
  const extensionTestsPath = await bundleSuite();
  const dirs = makeRunDirs('electron');
  try {
    return await runTests({
      extensionDevelopmentPath: REPO,
      extensionTestsPath,
      launchArgs: [dirs.workspace, '--disable-extensions', '--user-data-dir', dirs.userData, '--extensions-dir', dirs.extensions],
    });
  } finally {
    removeRunDir(dirs);
  }
}

main().then(
  (code) => process.exit(code),
  (e: unknown) => {
    console.error('test:electron failed:', e instanceof Error ? e.message : e);
    process.exit(1);
  },
);
