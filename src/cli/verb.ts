/**
 * `defineVerb`: the command line's counterpart of defineCommand (commands/context.ts). A verb declares its flags, its
 * usage, what it needs — the inventory (`--inventory`, strict or parsed), an SSH pool over it, a cluster connection —
 * and its handler; this one place parses the arguments, answers --help, reads the inventory (its errors at their
 * lines), builds the adapters (./adapters.ts) on first use and closes them when the verb ends, whatever way it ends,
 * and is the verb's one error boundary:
 *   - a usage mistake (UsageError, in the flags, the verb's checks or its handler): the message and the usage, exit 2;
 *   - a cancel (Ctrl-C reaching an operation as an abort): "cancelled", exit 1;
 *   - anything else thrown: its cause in plain words, never a stack, and for an SSH failure the one next command (the
 *     preflight with the verb's own SSH flags), exit 1.
 * The handler answers the exit code itself for the outcomes it knows (0 done, 1 refused or failed).
 */
import { resolve } from 'node:path';
import type { ConnectOptions, KubeConnection } from '../adapters/kube/index';
import { isCancel } from '../core/errors';
import type { Inventory } from '../core/inventory/types';
import { t } from '../core/l10n';
import type { CliSshOptions } from './adapters';
import { parseFlags, UsageError, type FlagSpec, type Parsed } from './args';
import { EXIT_FAILED, EXIT_OK, EXIT_USAGE, type CliIo } from './io';
import { Prompter } from './secretPrompt';
import type { SshGiven } from './verbSsh';
// Static: the verbs that read an inventory are most of them, and lint's start-up loads fewer files this way.
import { loadInventoryFile } from './inventoryFile';

export type { SshGiven } from './verbSsh';
export type VerbFlags = Record<string, string | boolean | string[] | undefined>;

/** How main.ts runs a verb: its arguments (after the verb's words), the io, and stdin for its questions. */
export type VerbRun = (argv: string[], io: CliIo, stdin?: NodeJS.ReadableStream) => Promise<number>;

/**
 * The verbs a file gives main.ts, each with its line of `kubeadm-workbench --help` (a text, or a function of t() calls
 * read when the usage prints) and what runs it: a verb file exports `verbs`, and `npm run gen:tables` copies each
 * line into main.ts's VERBS with an import() of the file — the usage prints without loading any verb, and a verb loads
 * its own file only when it runs. The lines are copied as written, so they use nothing but texts and t().
 */
export type ListedVerbs = Record<string, { summary: string | (() => string); run: (argv: string[], io: CliIo) => Promise<number> }>;

/** What a verb needs before its handler runs. */
export interface VerbNeeds {
  /**
   * `--inventory F`, required ("--inventory is required") and read before the handler: 'strict' refuses an inventory
   * with errors (verbs that change hosts), 'parsed' takes any model (read-only verbs).
   */
  inventory?: 'strict' | 'parsed';
  /** How the inventory's messages name the file: as given (the default) or as an absolute path. */
  inventoryShown?: 'as-given' | 'resolved';
  /** An SSH pool over the inventory's hosts, from the SSH flags (created on first use, closed at the end). */
  ssh?: CliSshOptions;
}

/** What every handler receives. */
export interface VerbContext<V> {
  /** The verb's arguments as given (after its words): the way to run it again. */
  argv: string[];
  flags: VerbFlags;
  positionals: string[];
  /** What the verb's `validate` made of the flags. */
  options: V;
  io: CliIo;
  stdin: NodeJS.ReadableStream;
  /** The one reader of every question of the verb (closed at the end). */
  prompter: Prompter;
  /** Runs when the verb ends, last registered first (after the SSH pool and connections opened here, before them). */
  onClose(close: () => unknown): void;
  /** The cluster's API connection the flags name (--kubeconfig, --context), disposed at the end. */
  kube(options?: Omit<ConnectOptions, 'kubeconfig' | 'context'> & { context?: string }): Promise<KubeConnection>;
}

/** Present when the verb declared `inventory`. */
export interface InventoryGiven {
  inventory: Inventory;
  /** The inventory's absolute path (its folder holds the state folder and the configs beside it). */
  inventoryPath: string;
}

export type VerbGiven<N extends VerbNeeds, V> = VerbContext<V> &
  (N extends { inventory: string } ? InventoryGiven : unknown) &
  (N extends { ssh: object } ? SshGiven : unknown);

export interface VerbSpec<N extends VerbNeeds, V> {
  /** The words typed, "certs renew": the boundary's prefix and the run's name ("run `kubeadm-workbench certs renew …`"). */
  words: string;
  flags: FlagSpec;
  /**
   * The verb's own grammar instead of parseFlags over `flags` (kubectl's bare `--dry-run`, a parser whose messages
   * scripts match); it throws UsageError for a mistake.
   */
  parse?: (argv: string[], flags: FlagSpec) => Parsed;
  /** Printed after a usage mistake and for --help (a function when it follows the language: read when printed). */
  usage: string | (() => string);
  /** Where --help prints the usage: stderr (the default), or stdout for a verb that always printed it there. */
  helpOn?: 'stdout';
  /** Whether the verb takes positional arguments (default: none, "unexpected argument X"). */
  positionals?: boolean;
  /** A missing --inventory or a stray argument prints the usage alone, unnamed (the bring-up verbs' way). */
  usageOnly?: boolean;
  needs: N;
  /** The verb's own checks of its flags, before anything is read (throw UsageError); what it returns is `options`. */
  validate?: (flags: VerbFlags, positionals: string[]) => V | Promise<V>;
  run: (ctx: VerbGiven<N, V>) => Promise<number>;
}

/**
 * The spec's grammar for a verb whose older parser is kept because scripts match its messages (lint, generate): the
 * whole argv reaches `parseArgs`, and a string it returns is the usage mistake.
 */
export function ownGrammar<V extends object>(parseArgs: (argv: string[]) => V | string): Pick<VerbSpec<VerbNeeds, V>, 'flags' | 'positionals' | 'parse' | 'validate'> {
  return {
    flags: {},
    positionals: true,
    parse: (argv) => ({ flags: {}, positionals: argv }),
    validate: (_flags, argv) => {
      const parsed = parseArgs(argv);
      if (typeof parsed === 'string') throw new UsageError(parsed);
      return parsed;
    },
  };
}

/** A declared verb: runnable by main.ts, its declaration kept for the tests and the catalogue. */
export type Verb<N extends VerbNeeds, V> = VerbRun & { readonly spec: VerbSpec<N, V> };

export function defineVerb<const N extends VerbNeeds, V = undefined>(spec: VerbSpec<N, V>): Verb<N, V> {
  const usage = (): string => (typeof spec.usage === 'function' ? spec.usage() : spec.usage);
  const run = async (argv: string[], io: CliIo, stdin: NodeJS.ReadableStream = process.stdin): Promise<number> => {
    if (argv[0] === '-h' || argv.includes('--help')) {
      (spec.helpOn === 'stdout' ? io.stdout : io.stderr)(usage());
      return EXIT_OK;
    }
    const closers: (() => unknown)[] = [];
    const prompter = new Prompter(stdin);
    let sshFlags: string[] | undefined;
    try {
      const { flags, positionals } = spec.parse ? spec.parse(argv, spec.flags) : parseFlags(argv, spec.flags);
      if (!spec.positionals && positionals.length) throw new UsageError(spec.usageOnly ? '' : t('unexpected argument {0}', positionals[0]!));
      if (spec.needs.inventory && !flags.inventory) throw new UsageError(spec.usageOnly ? '' : t('--inventory is required'));
      const options = (spec.validate ? await spec.validate(flags, positionals) : undefined) as V;
      const ctx: VerbContext<V> & Partial<InventoryGiven & SshGiven> = {
        argv, flags, positionals, options, io, stdin, prompter,
        onClose: (close) => void closers.push(close),
        kube: async (o = {}) => {
          const { cliKubeConnection } = await import('./adapters.js');
          const conn = await cliKubeConnection(flags, o);
          closers.push(() => conn.dispose());
          return conn;
        },
      };
      if (spec.needs.inventory) {
        const given = flags.inventory as string;
        const inventory = await loadInventoryFile(spec.needs.inventoryShown === 'resolved' ? resolve(given) : given, io, spec.needs.inventory === 'strict');
        if (typeof inventory === 'number') return inventory;
        Object.assign(ctx, { inventory, inventoryPath: resolve(given) });
      }
      if (spec.needs.ssh) {
        sshFlags = ['--inventory', flags.inventory as string, ...['ssh-config', 'known-hosts', 'own-known-hosts'].flatMap((f) => (typeof flags[f] === 'string' ? [`--${f}`, flags[f]] : []))];
        // The SSH code loads only for a verb that reaches hosts (lint and --help start without it).
        const { sshGiven } = await import('./verbSsh.js');
        Object.assign(ctx, sshGiven({
          loaded: () => ({ inventory: ctx.inventory!, inventoryPath: ctx.inventoryPath! }),
          flags, argv, io, prompter, stdin, words: spec.words, options: spec.needs.ssh, onClose: ctx.onClose,
        }));
      }
      return await spec.run(ctx as VerbGiven<N, V>);
    } catch (e) {
      return await failed(e, spec.words, usage, io, sshFlags);
    } finally {
      prompter.close();
      for (const close of closers.reverse()) await close();
    }
  };
  return Object.assign(run, { spec });
}

/**
 * The boundary: one message in plain words and the exit code; never a stack. What it needs to read a failure loads
 * when one comes (a verb that succeeds, lint on its fast path, loads none of it).
 */
async function failed(e: unknown, words: string, usage: () => string, io: CliIo, sshFlags: string[] | undefined): Promise<number> {
  if (e instanceof UsageError) {
    io.stderr(`${e.message ? `${e.message}\n` : ''}${usage()}`);
    return EXIT_USAGE;
  }
  const [{ describeError }, { RemoteCommandCancelled, sshFailureOf }, { commandLine }] = await Promise.all([import('../core/live/errors.js'), import('../core/ssh/transport.js'), import('../core/ssh/command.js')]);
  // Ctrl-C reaches an operation as an abort: the remote command it stopped, or the abort itself (a timeout is a failure).
  if (isCancel(e) || (e instanceof RemoteCommandCancelled && !e.reason.startsWith('timed out'))) {
    io.stderr(`kubeadm-workbench ${words}: ${t('cancelled')}\n`);
    return EXIT_FAILED;
  }
  io.stderr(`kubeadm-workbench ${words}: ${describeError(e)}\n`);
  // A host that did not answer or let us in: the preflight says why for every host at once, and how to fix it.
  if (sshFailureOf(e) && sshFlags) io.stderr(`${t('next: {0}', `kubeadm-workbench ssh-check ${commandLine(sshFlags)}`)}\n`);
  return EXIT_FAILED;
}

/**
 * A verb's usage in the catalogue's language, built when printed (the language is set by then): the word "usage:"
 * translated, the command lines as one types them, the lines under the first shifted by what the translation adds so
 * they stay aligned with it, and the notes under them (each already through `t()` at its call: the catalogue's check
 * reads only literal keys).
 * `lines[0]` follows "usage: "; the others keep their English indentation (plus the translation's extra width).
 */
export function usageText(lines: readonly string[], notes: readonly string[] = []): string {
  const head = t('usage:');
  const shift = ' '.repeat(Math.max(0, head.length - 'usage:'.length));
  const [first, ...rest] = lines;
  return `${head} ${first ?? ''}\n${rest.map((l) => `${shift}${l}\n`).join('')}${notes.map((n) => `  ${n}\n`).join('')}`;
}
