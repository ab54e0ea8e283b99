/**
 * The flag parsing every day-2 verb starts with: flags by spec, no positionals, the verb's own checks
 * (UsageError) — a usage mistake prints the message and the usage and answers exit 2.
 */
import { resolve } from 'node:path';
import type { SshPool } from '../adapters/ssh/pool';
import type { Inventory } from '../core/inventory/types';
import type { SudoOptions } from '../core/ssh/command';
import { sudoUnlessRoot } from '../engine/become';
import { parseFlags, UsageError, type FlagSpec } from './args';
import { loadInventoryFile } from './inventoryFile';
import { EXIT_USAGE, type CliIo } from './io';
import { poolFromFlags, SSH_FLAGS } from './sshFlags';

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

export interface PlanVerbSession {
  inventory: Inventory;
  inventoryPath: string;
  pool: SshPool;
  /** sudo for non-root logins: `-n` until the run has asked the password, then with it. */
  become: (host: string) => SudoOptions | undefined;
  setPassword: (password: string | undefined) => void;
}

/** The strict inventory and the SSH pool of such a verb (exit code when the inventory is unusable). */
export async function openPlanVerb(flags: VerbFlags, io: CliIo): Promise<PlanVerbSession | number> {
  const inventoryPath = resolve(flags.inventory as string);
  const inventory = await loadInventoryFile(flags.inventory as string, io);
  if (typeof inventory === 'number') return inventory;
  const pool = poolFromFlags(inventory, flags, { report: (line) => io.stderr(`${line}\n`), connectTimeoutMs: 8000 });
  let password: string | undefined;
  return {
    inventory,
    inventoryPath,
    pool,
    become: (h) => sudoUnlessRoot((x) => pool.loginUser(x), password)(h),
    setPassword: (p) => (password = p),
  };
}
