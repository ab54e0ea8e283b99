/**
 * The command line's `main` run in memory under a locale (`LANG`; `LC_ALL` and `LC_MESSAGES` unset), as a user's shell
 * would start it; the environment and the catalogue are put back afterwards. `lang` undefined: no locale at all.
 */
import { useMessages } from '../../../src/core/l10n';
import { main } from '../../../src/cli/main';
import { memoryIo } from './memoryIo';

export async function mainInLocale(lang: string | undefined, argv: string[]): Promise<{ code: number; err: string; out: string }> {
  const saved = { LANG: process.env.LANG, LC_ALL: process.env.LC_ALL, LC_MESSAGES: process.env.LC_MESSAGES };
  delete process.env.LC_ALL;
  delete process.env.LC_MESSAGES;
  if (lang === undefined) delete process.env.LANG;
  else process.env.LANG = lang;
  try {
    const io = memoryIo();
    const code = await main(argv, io);
    return { code, err: io.err, out: io.out };
  } finally {
    for (const [k, v] of Object.entries(saved)) {
      if (v === undefined) delete process.env[k];
      else process.env[k] = v;
    }
    useMessages('en', undefined);
  }
}
