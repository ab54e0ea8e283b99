/**
 * A verb's usage in the catalogue's language, built when printed (the language is set by then): the word "usage:"
 * translated, the command lines as one types them, the lines under the first shifted by what the translation adds so
 * they stay aligned with it, and the notes under them (each already through `t()` at its call: the catalogue's check
 * reads only literal keys).
 */
import { t } from '../core/l10n';

/** `lines[0]` follows "usage: "; the others keep their English indentation (plus the translation's extra width). */
export function usageText(lines: readonly string[], notes: readonly string[] = []): string {
  const head = t('usage:');
  const shift = ' '.repeat(Math.max(0, head.length - 'usage:'.length));
  const [first, ...rest] = lines;
  return `${head} ${first ?? ''}\n${rest.map((l) => `${shift}${l}\n`).join('')}${notes.map((n) => `  ${n}\n`).join('')}`;
}
