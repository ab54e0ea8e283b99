/**
 * The language of the command line's messages, from the POSIX locale variables: the first of LC_ALL, LC_MESSAGES
 * and LANG that is set and not empty decides (as setlocale(LC_MESSAGES, "") does); English when none is, or when it
 * is the C or POSIX locale. `ru_RU.UTF-8`, `ru_RU`, `ru.UTF-8@latin` → `ru`; `pt_BR.UTF-8` → `pt-br`.
 */
export function languageFromEnv(env: Readonly<Record<string, string | undefined>>): string {
  const locale = [env.LC_ALL, env.LC_MESSAGES, env.LANG].find((v) => v !== undefined && v.trim() !== '')?.trim();
  if (!locale) return 'en';
  // language[_territory][.codeset][@modifier]
  const m = /^([A-Za-z]{2,3})(?:[_-]([A-Za-z0-9]{2,3}))?(?:\.[^@]*)?(?:@.*)?$/.exec(locale);
  if (!m || /^(c|posix)$/i.test(m[1]!)) return 'en';
  return m[2] ? `${m[1]!.toLowerCase()}-${m[2].toLowerCase()}` : m[1]!.toLowerCase();
}

/**
 * The bundle files that may hold a language's messages, most specific first (VS Code's order): `pt-br` looks for
 * bundle.l10n.pt-br.json, then bundle.l10n.pt.json. None for English, whose messages are the keys.
 */
export function bundleFileNames(language: string): string[] {
  const tag = language.toLowerCase();
  if (tag === 'en' || tag.startsWith('en-')) return [];
  const base = tag.split('-')[0]!;
  return [...new Set([tag, base])].map((l) => `bundle.l10n.${l}.json`);
}
