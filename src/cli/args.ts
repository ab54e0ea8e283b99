/**
 * A small flag parser for the engine verbs: `--name value`, `--name=value`, repeatable flags,
 * booleans and positionals. Unknown flags are usage errors (exit 2), never ignored.
 */
import { t } from '../core/l10n';

export interface FlagSpec {
  [name: string]: 'string' | 'boolean' | 'list';
}

export interface Parsed {
  flags: Record<string, string | boolean | string[] | undefined>;
  positionals: string[];
}

export class UsageError extends Error {}

export function parseFlags(argv: string[], spec: FlagSpec): Parsed {
  const flags: Parsed['flags'] = {};
  const positionals: string[] = [];
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i]!;
    if (!arg.startsWith('--')) {
      positionals.push(arg);
      continue;
    }
    const eq = arg.indexOf('=');
    const name = arg.slice(2, eq > 0 ? eq : undefined);
    const kind = spec[name];
    if (!kind) throw new UsageError(t('unknown option --{0}', name));
    if (kind === 'boolean') {
      if (eq > 0) throw new UsageError(t('--{0} takes no value', name));
      flags[name] = true;
      continue;
    }
    const value = eq > 0 ? arg.slice(eq + 1) : argv[++i];
    if (value === undefined) throw new UsageError(t('--{0} needs a value', name));
    if (kind === 'list') flags[name] = [...((flags[name] as string[] | undefined) ?? []), ...value.split(',').filter(Boolean)];
    else flags[name] = value;
  }
  return { flags, positionals };
}
