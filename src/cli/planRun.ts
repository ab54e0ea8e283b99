/**
 * How a verb runs a plan on this terminal: the TerminalUi its flags configure (--yes, --ask-become-pass, a person at
 * the terminal), the run's state folder, --fresh, --max-parallel and the words to run it again, and the preflight
 * over the run's own pool. Shared by the bring-up verbs and every day-2 verb (through defineVerb's `planRun()`).
 */
import { t } from '../core/l10n';
import type { SshPool } from '../adapters/ssh/pool';
import type { Inventory } from '../core/inventory/types';
import type { Tolerance } from '../core/preflight/model';
import { commandLine } from '../core/ssh/command';
import { stateFolderFor } from '../engine/stateFolder';
import { preflightStep } from '../engine/workflows/preflightStep';
import type { CliIo } from './io';
import type { Prompter } from './secretPrompt';
import { TerminalUi } from './terminalUi';

export interface Loaded {
  inventory: Inventory;
  inventoryPath: string;
  flags: Record<string, string | boolean | string[] | undefined>;
  /** The verb's arguments as given: the way to run it again. */
  argv: string[];
}

/** --max-parallel N (default 10; anything else than a positive whole number is the default). */
export function maxParallel(flags: Record<string, unknown>): number {
  const max = Number(flags['max-parallel'] ?? 10);
  return Number.isInteger(max) && max > 0 ? max : 10;
}

/** Whether this run asks the sudo password itself (--ask-become-pass, or a person at the terminal): a sudo that wants one then only warns. */
export function sudoAsked(flags: Record<string, unknown>, stdin: NodeJS.ReadableStream): boolean {
  return Boolean(flags['ask-become-pass']) || Boolean((stdin as { isTTY?: boolean }).isTTY);
}

/** This terminal's Ui and how it runs plans (--yes, --ask-become-pass, --fresh, --max-parallel, the words to run it again). */
export function terminalPlanRun(l: Loaded, io: CliIo, prompter: Prompter, stdin: NodeJS.ReadableStream, ssh: SshPool, words: string) {
  const interactive = Boolean((stdin as { isTTY?: boolean }).isTTY);
  const ui = new TerminalUi({ io, prompter, yes: Boolean(l.flags.yes), askBecomePass: Boolean(l.flags['ask-become-pass']), interactive });
  const again = `kubeadm-workbench ${words} ${commandLine(l.argv.filter((a) => a !== '--fresh'))}`.trimEnd();
  const run = {
    stateDir: stateFolderFor(l.inventoryPath), ssh, maxParallelHosts: maxParallel(l.flags), fresh: Boolean(l.flags.fresh),
    again: { resume: t('run {0}', `\`${again}\``), startOver: t('run it with --fresh') },
  };
  /** The preflight before the verb's first question, over the run's own pool (its host keys carry over). */
  const preflight = async (operation: string, hosts: readonly string[], tolerate: Tolerance = {}): Promise<boolean> =>
    (await preflightStep(ui, { ssh, inventory: l.inventory, operation, hosts, tolerate, sudoPasswordAsked: sudoAsked(l.flags, stdin) })).ok;
  return { ui, run, preflight };
}
