/**
 * The same extension-host suite through @vscode/test-electron, for machines that can download desktop VS Code
 * (this one cannot: only package registries are reachable, so `npm test` uses code-server instead — test/vscode/run.ts).
 * Like run.ts it tests the packaged extension: the .vsix is installed with desktop VS Code's CLI, the suite is bundled
 * into the installed extension's folder, and the development path is an empty stand-in (harness/bundle.ts), never
 * the repository.
 * Usage: npm run test:electron   (packages the .vsix first; needs a display or xvfb-run on Linux)
 */
import { spawnSync } from 'node:child_process';
import { readdirSync } from 'node:fs';
import { join } from 'node:path';
import { downloadAndUnzipVSCode, resolveCliArgsFromVSCodeExecutablePath, runTests } from '@vscode/test-electron';
import { bundleSuite, standInExtension } from './harness/bundle';
import { makeRunDirs, removeRunDir } from './harness/codeServer';
import { VSIX, checkVsix } from './harness/vsix';

async function main(): Promise<number> {
  checkVsix();
  const dirs = makeRunDirs('electron');
  try {
    const vscodeExecutablePath = await downloadAndUnzipVSCode();
    const [cli] = resolveCliArgsFromVSCodeExecutablePath(vscodeExecutablePath, { reuseMachineInstall: true });
    const profile = ['--user-data-dir', dirs.userData, '--extensions-dir', dirs.extensions];
    const installed = spawnSync(cli!, [...profile, '--force', '--install-extension', VSIX], { stdio: 'inherit' });
    if (installed.status !== 0) throw new Error(`installing ${VSIX} with ${cli} failed (exit ${installed.status ?? installed.signal})`);
    const folder = readdirSync(dirs.extensions).find((d) => d.startsWith('kubeadm-workbench.kubeadm-workbench-'));
    if (!folder) throw new Error(`${VSIX} was installed but ${dirs.extensions} has no kubeadm-workbench.kubeadm-workbench-* folder`);
    const extensionTestsPath = await bundleSuite(join(dirs.extensions, folder, 'vscode-test'));
    const extensionDevelopmentPath = standInExtension(join(dirs.root, 'test-runner'));
    // No --disable-extensions: it would disable the installed extension under test too.
    return await runTests({ vscodeExecutablePath, extensionDevelopmentPath, extensionTestsPath, launchArgs: [dirs.workspace, ...profile] });
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
