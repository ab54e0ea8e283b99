/**
 * The preflight of a verb that reads hosts without a workflow running it (`etcd status|alarms`, `drift`, `facts`,
 * `certs`): the shared step (engine/workflows/preflightStep.ts) over the verb's own pool — its host-key decisions and
 * connections carry over to the reads — before the verb's first read or question. The table goes where a person
 * reads: stderr under --json, where stdout carries only the verb's result.
 */
import type { SshPool } from '../adapters/ssh/pool';
import type { Inventory } from '../core/inventory/types';
import type { Tolerance } from '../core/preflight/model';
import { preflightStep, type PreflightOutcome } from '../engine/workflows/preflightStep';
import type { CliIo } from './io';
import { sudoAsked } from './planRun';
import type { Prompter } from './secretPrompt';
import { TerminalUi } from './terminalUi';

/** What the verb's context gives (defineVerb's, with `inventory` and `ssh` declared). */
export interface VerbPreflightContext {
  inventory: Inventory;
  flags: Record<string, unknown>;
  io: CliIo;
  prompter: Prompter;
  stdin: NodeJS.ReadableStream;
  ssh(): SshPool;
}

export interface VerbPreflightRequest {
  /** The operation's name in the table and the refusal (the verb's words). */
  operation: string;
  hosts: readonly string[];
  /** One host of the scope is enough (a read through any control-plane node). */
  atLeastOne?: boolean;
  tolerate?: Tolerance;
  /** Whether a sudo that wants a password is only a warning (default: --ask-become-pass or a person at the terminal). */
  sudoPasswordAsked?: boolean;
}

export function verbPreflight(ctx: VerbPreflightContext, req: VerbPreflightRequest): Promise<PreflightOutcome> {
  const interactive = Boolean((ctx.stdin as { isTTY?: boolean }).isTTY);
  const ui = new TerminalUi({ io: ctx.io, prompter: ctx.prompter, yes: true, askBecomePass: false, interactive, json: Boolean(ctx.flags.json) });
  return preflightStep(ui, {
    ssh: ctx.ssh(), inventory: ctx.inventory, operation: req.operation, hosts: req.hosts,
    sudoPasswordAsked: req.sudoPasswordAsked ?? sudoAsked(ctx.flags, ctx.stdin),
    ...(req.tolerate ? { tolerate: req.tolerate } : {}), ...(req.atLeastOne ? { atLeastOne: true } : {}),
  });
}
