/**
 * The flag parsing of a verb not declared with defineVerb (./verb.ts, which does this itself): flags by spec, no
 * positionals, the verb's own checks (UsageError) — a usage mistake prints the message and the usage, exit 2.
 */
import { parseFlags, UsageError, type FlagSpec } from './args';
import { EXIT_USAGE, type CliIo } from './io';
import { SSH_FLAGS } from './sshFlags';

export type VerbFlags = Record<string, string | boolean | string[] | undefined>;

export function parseVerbFlags(argv: string[], spec: FlagSpec, usage: string, io: CliIo, validate: (flags: VerbFlags) => void = () => undefined): VerbFlags | number {
  try {
    const { flags, positionals } = parseFlags(argv, spec);
    if (positionals.length) throw new UsageError(`unexpected argument ${positionals[0]}`);
    validate(flags);
    return flags;
  } catch (e) {
    if (!(e instanceof UsageError)) throw e;
    io.stderr(`${e.message}\n${usage}`);
    return EXIT_USAGE;
  }
}

/** Flags of the verbs that run a plan with in-process gates (certs renew, restore). */
export const PLAN_VERB_FLAGS: FlagSpec = { inventory: 'string', ...SSH_FLAGS, 'ask-become-pass': 'boolean', yes: 'boolean', plan: 'boolean', fresh: 'boolean', json: 'boolean' };
