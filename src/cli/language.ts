/**
 * The command line's language: LC_ALL, LC_MESSAGES or LANG (the first set decides, as for every POSIX program;
 * English when none is, or for C/POSIX) picks the bundle the extension ships, `l10n/bundle.l10n.<language>.json`,
 * which fills the core catalogue. English reads no file at all. A bundle that is missing leaves English without a
 * word (a language we do not translate); a damaged one leaves English for what it cannot use and says so once.
 */
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { errorMessage } from '../core/errors';
import { readRegularSync } from '../adapters/fs/safeFile';
import { bundleFileNames, languageFromEnv, MAX_BUNDLE_CHARS, parseBundleText, useMessages } from '../core/l10n';

/** Where the bundles lie: next to dist/ in the installed extension (dist/cli.js), at the top of the repository under tsx. */
function bundleDirs(): string[] {
  return [join(__dirname, '..', 'l10n'), join(__dirname, '..', '..', 'l10n')];
}

/** Fills the catalogue for `env`'s language; answers a warning for stderr when the bundle could not be used whole. */
export function useCliLanguage(env: Readonly<Record<string, string | undefined>>, dirs: readonly string[] = bundleDirs()): string | undefined {
  const language = languageFromEnv(env);
  const names = bundleFileNames(language);
  for (const dir of dirs) {
    for (const name of names) {
      const path = join(dir, name);
      if (!existsSync(path)) continue;
      let text: string;
      try {
        text = readRegularSync(path, { maxBytes: MAX_BUNDLE_CHARS * 4 }).toString('utf8');
      } catch (e) {
        return `the ${language} messages are not used (${name}: ${errorMessage(e)}); English is shown`;
      }
      const { messages, problems } = parseBundleText(text);
      useMessages(language, messages);
      if (!problems.length) return undefined;
      const keys = problems.filter((p) => p.key !== undefined).map((p) => JSON.stringify(p.key!.length > 40 ? `${p.key!.slice(0, 40)}…` : p.key));
      const whole = problems.find((p) => p.key === undefined);
      return whole
        ? `the ${language} messages are not used (${name}: ${whole.problem}); English is shown`
        : `${keys.length} ${language} message${keys.length === 1 ? '' : 's'} of ${name} are not used and show in English (${keys.slice(0, 3).join(', ')}${keys.length > 3 ? ', …' : ''}): ${problems[0]!.problem}`;
    }
  }
  useMessages(language, undefined);
  return undefined;
}
