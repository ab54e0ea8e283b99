/**
 * `drain`, `cordon` and `uncordon` with kubectl's flag names and semantics (src/core/drain/drainNode.ts):
 *
 *   kubeadm-workbench drain NODE [--kubeconfig F] [--context N] [--ignore-daemonsets] [--delete-emptydir-data]
 *                                [--force] [--timeout=300s] [--grace-period=-1] [--skip-wait-for-delete-timeout=0]
 *                                [--dry-run[=none|client|server]] [--then CMD [--then-timeout=30m]
 *                                [--ready-timeout=10m]] [--uncordon] [--yes]
 *                                [--inventory F] [--ssh-config F] [--known-hosts F] [--accept-new-host-key=SHA256:...] [--ask-become-pass]
 *   kubeadm-workbench cordon|uncordon NODE [--kubeconfig F] [--context N] [--dry-run[=...]] [--yes]
 *
 * Each verb prints its plan first (drain: evict / keep / refuse per pod, the control-plane guard and the
 * leases the node holds, what runs on which host) and asks before acting unless --yes (or a dry run).
 * Unlike kubectl the eviction timeout is finite by default (300s). `--then` runs the maintenance command on
 * the node's inventory host over SSH (host keys checked; needs --inventory), then waits until the node is
 * Ready again. Exit 0 done, 1 refused/failed (the message names the node and the pod or step), 2 usage.
 * The questions and refusals are the drain workflow's (engine/workflows/drainWorkflow.ts), the editor's too,
 * except that a plan with refused pods asks and then cordons and stops as `kubectl drain` does.
 */
import { createDrainCluster } from '../adapters/kube/drain';
import type { KubeConnection } from '../adapters/kube/index';
import { remoteExecOver } from '../adapters/ssh/fromInventory';
import { DEFAULT_DRAIN_OPTIONS } from '../core/drain/classify';
import { DEFAULT_READY_TIMEOUT_SECONDS, type DrainRunOptions, type DryRun } from '../core/drain/drainNode';
import { loadInventoryFile } from './inventoryFile';
import type { Inventory } from '../core/inventory/types';
import { describeError } from '../core/live/errors';
import { cordonWorkflow, drainWorkflow } from '../engine/workflows/drainWorkflow';
import { t } from '../core/l10n';
import { parseFlags, UsageError, type FlagSpec, type Parsed } from './args';
import type { Prompter } from './secretPrompt';
import { EXIT_FAILED, EXIT_OK, EXIT_USAGE, type CliIo } from './io';
import { poolFromFlags, SSH_FLAGS } from './sshFlags';
import { TerminalUi } from './terminalUi';
import { defineVerb, usageText, type VerbContext, type VerbFlags, type ListedVerbs } from './verb';

const CONNECTION: FlagSpec = { kubeconfig: 'string', context: 'string', 'dry-run': 'string', yes: 'boolean' };
const SSH: FlagSpec = { inventory: 'string', ...SSH_FLAGS, 'ask-become-pass': 'boolean' };
const DRAIN: FlagSpec = {
  ...CONNECTION,
  ...SSH,
  'ignore-daemonsets': 'boolean',
  'delete-emptydir-data': 'boolean',
  force: 'boolean',
  timeout: 'string',
  'grace-period': 'string',
  'skip-wait-for-delete-timeout': 'string',
  then: 'string',
  'then-timeout': 'string',
  'ready-timeout': 'string',
  uncordon: 'boolean',
};

const drainUsage = (): string =>
  usageText([
    'kubeadm-workbench drain NODE [--kubeconfig F] [--context N] [--ignore-daemonsets] [--delete-emptydir-data] [--force]',
    '                                    [--timeout=300s] [--grace-period=-1] [--skip-wait-for-delete-timeout=0] [--dry-run[=none|client|server]]',
    '                                    [--then CMD --inventory F [--ssh-config F] [--known-hosts F] [--ask-become-pass] [--then-timeout=30m] [--ready-timeout=10m]]',
    '                                    [--uncordon] [--yes]',
  ]);
const cordonUsage = (verb: string) => (): string => usageText([`kubeadm-workbench ${verb} NODE [--kubeconfig F] [--context N] [--dry-run[=none|client|server]] [--yes]`]);

/** kubectl durations: `300s`, `5m`, `1h30m`, `1.5s`, or bare seconds. 0 means no limit (kubectl's meaning). */
export function parseDuration(text: string, flag: string): number {
  const trimmed = text.trim();
  if (/^\d+(\.\d+)?$/.test(trimmed)) return Number(trimmed);
  const parts = [...trimmed.matchAll(/(\d+(?:\.\d+)?)(ms|h|m|s)/g)];
  if (!parts.length || parts.map((p) => p[0]).join('') !== trimmed) throw new UsageError(t('--{0}: "{1}" is not a duration (e.g. 300s, 5m, 1h)', flag, text));
  return parts.reduce((sum, p) => sum + Number(p[1]) * { ms: 0.001, s: 1, m: 60, h: 3600 }[p[2] as 'ms' | 's' | 'm' | 'h'], 0);
}

function parseInt10(text: string, flag: string): number {
  if (!/^-?\d+$/.test(text.trim())) throw new UsageError(t('--{0}: "{1}" is not a whole number', flag, text));
  return Number(text);
}

function dryRunOf(flags: Record<string, unknown>): DryRun {
  const v = (flags['dry-run'] as string | undefined) ?? 'none';
  if (v !== 'none' && v !== 'client' && v !== 'server') throw new UsageError(t('--dry-run must be none, client or server (got "{0}")', v));
  return v;
}

/** kubectl's grammar: a bare `--dry-run` is `--dry-run=client`. */
function parseKubectlArgs(argv: string[], spec: FlagSpec): Parsed {
  return parseFlags(argv.map((a) => (a === '--dry-run' ? '--dry-run=client' : a)), spec);
}

/** The connection's failure in the words it always had, under the verb's name (the boundary's prefix). */
async function connect(kube: VerbContext<unknown>['kube'], options: Parameters<VerbContext<unknown>['kube']>[0] = {}): Promise<KubeConnection> {
  try {
    return await kube(options);
  } catch (e) {
    throw new Error(t('cannot connect to the cluster: {0}', describeError(e)));
  }
}

// --------------------------------------------------------------------------------------- cordon/uncordon

function cordonVerb(cordon: boolean) {
  const verb = cordon ? 'cordon' : 'uncordon';
  return defineVerb({
    words: verb, flags: CONNECTION, parse: parseKubectlArgs, positionals: true, usage: cordonUsage(verb), needs: {},
    validate: (flags, positionals) => {
      const dryRun = dryRunOf(flags);
      if (positionals.length !== 1) throw new UsageError(t('{0} needs exactly one NODE', verb));
      return { dryRun, node: positionals[0]! };
    },
    run: async ({ flags, options: { dryRun, node }, io, prompter, stdin, kube }) => {
      const conn = await connect(kube);
      const outcome = await cordonWorkflow(terminalUi(io, prompter, flags, stdin), {
        cluster: createDrainCluster(conn.transport), node, cordon, context: conn.context, server: conn.server, dryRun,
      });
      return outcome.kind === 'done' || outcome.kind === 'unchanged' ? EXIT_OK : EXIT_FAILED;
    },
  });
}

export const runCordon = cordonVerb(true);
export const runUncordon = cordonVerb(false);

// ------------------------------------------------------------------------------------------------ drain

export const runDrainVerb = defineVerb({
  words: 'drain', flags: DRAIN, parse: parseKubectlArgs, positionals: true, usage: drainUsage, needs: {},
  validate: (flags, positionals) => {
    if (positionals.length !== 1) throw new UsageError(t('{0} needs exactly one NODE', 'drain'));
    if (flags.then !== undefined && !flags.inventory) throw new UsageError(t("--then runs the command on the node's inventory host over SSH: give --inventory"));
    if ((flags['then-timeout'] !== undefined || flags['ready-timeout'] !== undefined) && flags.then === undefined) throw new UsageError(t('--then-timeout and --ready-timeout go with --then'));
    const options: DrainRunOptions = {
      ...DEFAULT_DRAIN_OPTIONS,
      ignoreDaemonSets: Boolean(flags['ignore-daemonsets']),
      deleteEmptyDirData: Boolean(flags['delete-emptydir-data']),
      force: Boolean(flags.force),
      timeoutSeconds: flags.timeout !== undefined ? parseDuration(flags.timeout as string, 'timeout') : DEFAULT_DRAIN_OPTIONS.timeoutSeconds,
      skipWaitForDeleteTimeoutSeconds: flags['skip-wait-for-delete-timeout'] !== undefined ? parseInt10(flags['skip-wait-for-delete-timeout'] as string, 'skip-wait-for-delete-timeout') : 0,
      gracePeriodSeconds: flags['grace-period'] !== undefined ? parseInt10(flags['grace-period'] as string, 'grace-period') : -1,
      dryRun: dryRunOf(flags),
      readyTimeoutSeconds: flags['ready-timeout'] !== undefined ? parseDuration(flags['ready-timeout'] as string, 'ready-timeout') : DEFAULT_READY_TIMEOUT_SECONDS,
      uncordonAfter: Boolean(flags.uncordon),
    };
    // 0 means no limit, as for kubectl's --timeout.
    const thenTimeoutMs = (flags['then-timeout'] !== undefined ? parseDuration(flags['then-timeout'] as string, 'then-timeout') : 1800) * 1000;
    return { node: positionals[0]!, options, thenTimeoutMs };
  },
  run: async ({ flags, options: { node, options, thenTimeoutMs }, io, prompter, stdin, kube, onClose }) => {
    // The inventory is optional here (--then needs it; the connection prefers its endpoint's context).
    let inventory: Inventory | undefined;
    if (flags.inventory) {
      const loaded = await loadInventoryFile(flags.inventory as string, io);
      if (typeof loaded === 'number') return loaded;
      inventory = loaded;
    }
    const pool = inventory ? poolFromFlags(inventory, flags, { report: (line) => io.stderr(`${line}\n`), connectTimeoutMs: 10_000 }) : undefined;
    if (pool) onClose(() => pool.close());
    const c = await connect(kube, { ...(inventory ? { inventory, contextByEndpoint: 'prefer' as const } : {}), ...(pool ? { remote: remoteExecOver(pool) } : {}) });
    const outcome = await drainWorkflow(terminalUi(io, prompter, flags, stdin), {
      cluster: createDrainCluster(c.transport, { readEtcd: () => c.readEtcd(), inventory }),
      node,
      context: c.context,
      options,
      refusedPods: 'like-kubectl',
      ...(flags.then !== undefined && inventory && pool ? { maintenance: { inventory, ssh: pool, loginUser: (h: string) => pool.loginUser(h), command: flags.then as string, timeoutMs: thenTimeoutMs } } : {}),
    });
    if (outcome.kind === 'invalid') return EXIT_USAGE;
    return outcome.kind === 'ran' && outcome.result.ok ? EXIT_OK : EXIT_FAILED;
  },
});

function terminalUi(io: CliIo, prompter: Prompter, flags: VerbFlags, stdin: NodeJS.ReadableStream): TerminalUi {
  return new TerminalUi({ io, prompter, yes: Boolean(flags.yes), askBecomePass: Boolean(flags['ask-become-pass']), interactive: Boolean((stdin as { isTTY?: boolean }).isTTY) });
}

/** What `kubeadm-workbench --help` lists of this file (ListedVerbs, ./verb.ts; npm run gen:tables copies it into main.ts). */
export const verbs = {
  drain: { summary: () => `drain NODE [--ignore-daemonsets] [--delete-emptydir-data] [--force] [--timeout=300s] [--grace-period=-1] [--dry-run[=client|server]] [--then CMD --inventory F] [--uncordon] [--yes]   ${t('kubectl drain with a plan first, a finite timeout and the control-plane guard')}`, run: runDrainVerb },
  cordon: { summary: () => `cordon NODE [--kubeconfig F] [--context N] [--dry-run[=client|server]] [--yes]   ${t('mark the node unschedulable')}`, run: runCordon },
  uncordon: { summary: () => `uncordon NODE [--kubeconfig F] [--context N] [--dry-run[=client|server]] [--yes]   ${t('mark the node schedulable again')}`, run: runUncordon },
} satisfies ListedVerbs;
