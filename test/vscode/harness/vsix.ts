/**
 * Tiers 2 and 3 run against what users install: the .vsix `npm run package` builds, installed into the run's
 * code-server with `--install-extension` (the path scripts/start.sh takes). `npm run test:vscode` and `npm run test:ui`
 * package it first into out/vsix/ (`npm run package:tests`); KW_VSIX names another one.
 */
import { spawnSync } from 'node:child_process';
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { join, relative } from 'node:path';
import { REPO, runEnv, toolPaths, type RunDirs } from './codeServer';

export const VSIX = process.env.KW_VSIX ?? join(REPO, 'out/vsix/kubeadm-workbench.vsix');

export interface InstalledExtension {
  /** The extension's folder inside the run's extensions dir. */
  path: string;
  vsix: string;
  ms: number;
}

/** The newest file the package is built from, so a .vsix older than the sources is not tested by mistake. */
function newestSource(): { file: string; mtimeMs: number } {
  let newest = { file: '', mtimeMs: 0 };
  const visit = (p: string): void => {
    if (!existsSync(p)) return;
    const st = statSync(p);
    if (st.isDirectory()) for (const d of readdirSync(p)) visit(join(p, d));
    else if (st.mtimeMs > newest.mtimeMs) newest = { file: relative(REPO, p), mtimeMs: st.mtimeMs };
  };
  for (const p of ['package.json', '.vscodeignore', 'README.md', 'docs', 'scripts/build.mjs', 'scripts/bundles.mjs', 'src', 'schemas', 'media']) visit(join(REPO, p));
  return newest;
}

/** Refuses a missing .vsix, or (unless KW_VSIX names it) one older than the sources it is built from. */
export function checkVsix(vsix = VSIX): void {
  if (!existsSync(vsix)) throw new Error(`${vsix} is missing: npm run package:tests builds it (npm run test:vscode and npm run test:ui do that first).`);
  if (!process.env.KW_VSIX) {
    const src = newestSource();
    if (src.mtimeMs > statSync(vsix).mtimeMs) throw new Error(`${relative(REPO, vsix)} is older than ${src.file}: npm run package:tests builds it again.`);
  }
}

/** `code-server --install-extension` into the run's own extensions dir, as scripts/start.sh installs it. */
export function installVsix(dirs: RunDirs, vsix = VSIX): InstalledExtension {
  checkVsix(vsix);
  const { node24, csEntry } = toolPaths();
  const t0 = Date.now();
  const r = spawnSync(node24, [csEntry, '--user-data-dir', dirs.userData, '--extensions-dir', dirs.extensions, '--force', '--install-extension', vsix], {
    env: runEnv(dirs),
    encoding: 'utf8',
    timeout: 120_000,
  });
  if (r.status !== 0) throw new Error(`code-server --install-extension ${vsix} failed (exit ${r.status ?? r.signal}):\n${r.stdout}\n${r.stderr}`);
  const { publisher, name, version } = JSON.parse(readFileSync(join(REPO, 'package.json'), 'utf8')) as { publisher: string; name: string; version: string };
  const path = join(dirs.extensions, `${publisher}.${name}-${version}`.toLowerCase());
  if (!existsSync(join(path, 'package.json'))) {
    throw new Error(`code-server installed ${vsix} but ${path} has no package.json (extensions dir: ${readdirSync(dirs.extensions).join(', ')})\n${r.stdout}`);
  }
  return { path, vsix, ms: Date.now() - t0 };
}
