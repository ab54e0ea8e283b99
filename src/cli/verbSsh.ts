/**
 * The SSH side of defineVerb (./verb.ts), loaded only by a verb that declares `needs.ssh`: the pool over the
 * inventory's hosts (created on first use, closed when the verb ends), sudo for non-root logins and this terminal's
 * plan run. Kept apart so that the verbs that reach no host (lint, check-inventory, generate…) load none of it.
 */
import { t } from '../core/l10n';
import type { SshPool } from '../adapters/ssh/pool';
import type { Inventory } from '../core/inventory/types';
import type { SudoOptions } from '../core/ssh/command';
import { sudoUnlessRoot } from '../engine/become';
import { cliSshPool, type CliSshOptions } from './adapters';
import type { CliIo } from './io';
import { terminalPlanRun } from './planRun';
import type { Prompter } from './secretPrompt';

/** What a verb that declared `ssh` gets in its context. */
export interface SshGiven {
  /** The pool (created on first call, from the inventory as it is then). */
  ssh(): SshPool;
  /** sudo for non-root logins: `-n` until a password was set, then with it. */
  become(host: string): SudoOptions | undefined;
  setPassword(password: string | undefined): void;
  /** --ask-become-pass: asks the sudo password on the terminal now (read-only verbs, which have no workflow asking it). */
  askBecomePassword(): Promise<void>;
  /** This terminal's Ui and plan run for the verb's words (planRun.ts). */
  planRun(): ReturnType<typeof terminalPlanRun>;
}

export interface SshSetting {
  /** The inventory and its path as the context holds them (read when the pool is made: a verb may add a host first). */
  loaded: () => { inventory: Inventory; inventoryPath: string };
  flags: Record<string, string | boolean | string[] | undefined>;
  argv: string[];
  io: CliIo;
  prompter: Prompter;
  stdin: NodeJS.ReadableStream;
  words: string;
  options: CliSshOptions;
  onClose: (close: () => unknown) => void;
}

export function sshGiven(s: SshSetting): SshGiven {
  let pool: SshPool | undefined;
  let password: string | undefined;
  const ssh = (): SshPool => {
    if (!pool) {
      const created = cliSshPool(s.loaded().inventory, s.flags, s.io, s.options);
      s.onClose(() => created.close());
      pool = created;
    }
    return pool;
  };
  return {
    ssh,
    become: (host) => sudoUnlessRoot((h) => ssh().loginUser(h), password)(host),
    setPassword: (p) => void (password = p),
    askBecomePassword: async () => {
      if (s.flags['ask-become-pass']) password = await s.prompter.askSecret(`${t('sudo password:')} `);
    },
    planRun: () => terminalPlanRun({ ...s.loaded(), flags: s.flags, argv: s.argv }, s.io, s.prompter, s.stdin, ssh(), s.words),
  };
}
