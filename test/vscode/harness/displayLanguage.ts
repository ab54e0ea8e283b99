/**
 * A display language for a code-server run, as a user gets one: a language pack installed with `--install-extension`
 * and code-server started with `--locale <language>` (startCodeServer's extraArgs).
 *
 * VS Code shows a display language only when a language pack for it is recorded in `languagepacks.json` of the user
 * data folder: only then does the server serve the page its messages and `_VSCODE_NLS_LANGUAGE`, so that the browser's
 * `platform.language` — what extensions are scanned in (package.nls.<language>.json) and what the extension host
 * reports as `vscode.env.language` (l10n/bundle.l10n.<language>.json) — is that language instead of English.
 * `--locale` alone keeps English. The record is written by the server's language-pack service when a pack is
 * installed from the Extensions view; the CLI install does not run that service (microsoft/vscode#237663,
 * coder/code-server#4735), so after it this helper writes the same record the service would, unless the install
 * already did.
 *
 * The pack is test/ui/fixtures/<language>-language-pack: the Microsoft pack cannot be downloaded here (no
 * marketplace), and the fixture translates nothing of VS Code itself, so VS Code's own texts stay English while
 * every extension speaks the language.
 */
import { spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { createVSIX } from '@vscode/vsce';
import { REPO, runEnv, toolPaths, type RunDirs } from './codeServer';

interface PackManifest {
  publisher: string;
  name: string;
  version: string;
  contributes: { localizations: { languageId: string; localizedLanguageName?: string; languageName?: string; translations: { id: string; path: string }[] }[] };
}

export interface DisplayLanguage {
  /** The installed pack's folder. */
  path: string;
  /** Whether `--install-extension` recorded the pack itself (false while the upstream bug stands). */
  recordedByInstall: boolean;
  ms: number;
}

/** Packages and installs test/ui/fixtures/<language>-language-pack into the run's code-server and records it. */
export async function installDisplayLanguage(dirs: RunDirs, language: string): Promise<DisplayLanguage> {
  const t0 = Date.now();
  const source = join(REPO, 'test/ui/fixtures', `${language}-language-pack`);
  const manifest = JSON.parse(readFileSync(join(source, 'package.json'), 'utf8')) as PackManifest;
  const vsix = join(dirs.root, `${language}-language-pack.vsix`);
  await createVSIX({ cwd: source, packagePath: vsix, dependencies: false, skipLicense: true, allowMissingRepository: true });
  const { node24, csEntry } = toolPaths();
  const r = spawnSync(node24, [csEntry, '--user-data-dir', dirs.userData, '--extensions-dir', dirs.extensions, '--force', '--install-extension', vsix], {
    env: runEnv(dirs),
    encoding: 'utf8',
    timeout: 120_000,
  });
  if (r.status !== 0) throw new Error(`code-server --install-extension ${vsix} failed (exit ${r.status ?? r.signal}):\n${r.stdout}\n${r.stderr}`);
  const id = `${manifest.publisher}.${manifest.name}`;
  const path = join(dirs.extensions, `${id}-${manifest.version}`.toLowerCase());
  if (!existsSync(join(path, 'package.json'))) throw new Error(`code-server installed ${vsix} but ${path} has no package.json\n${r.stdout}`);

  const recordFile = join(dirs.userData, 'languagepacks.json');
  const recorded = existsSync(recordFile) ? (JSON.parse(readFileSync(recordFile, 'utf8')) as Record<string, unknown>) : {};
  const recordedByInstall = language in recorded;
  if (!recordedByInstall) {
    // The shape and hash VS Code's language-pack cache writes: per language the packs providing it, and per
    // translation id (`vscode` for VS Code's own texts) the file that holds it.
    const localization = manifest.contributes.localizations.find((l) => l.languageId === language);
    if (!localization) throw new Error(`${source} contributes no localization for ${language}`);
    const translations = Object.fromEntries(localization.translations.map((t) => [t.id, join(path, t.path)]));
    const hash = createHash('md5').update(id).update(manifest.version).digest('hex');
    recorded[language] = {
      hash,
      extensions: [{ extensionIdentifier: { id }, version: manifest.version }],
      translations,
      label: localization.localizedLanguageName ?? localization.languageName ?? language,
    };
    writeFileSync(recordFile, JSON.stringify(recorded));
  }
  return { path, recordedByInstall, ms: Date.now() - t0 };
}
