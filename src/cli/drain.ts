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
 */
import { createDrainCluster } from '../adapters/kube/drain';
import type { KubeConnection } from '../adapters/kube/index';
import { loadKubeAdapter } from '../adapters/kube/load';
import { remoteExecOver } from '../adapters/ssh/fromInventory';
import type { SshPool } from '../adapters/ssh/pool';
import { DEFAULT_DRAIN_OPTIONS } from '../core/drain/classify';
import { DEFAULT_READY_TIMEOUT_SECONDS, planBlockers, planDrain, renderDrainPlan, runDrain, setCordon, type DrainLine, type DrainRunOptions, type DryRun } from '../core/drain/drainNode';
import { maintenanceHost, sshMaintenance } from '../core/drain/maintenance';
import { loadInventoryFile } from './inventoryFile';
import type { Inventory } from '../core/inventory/types';
import { describeError } from '../core/live/errors';
import { formatRunLine, RunOutput, type HostStreams } from '../core/ssh/runLog';
import { parseFlags, UsageError, type FlagSpec } from './args';
import { Prompter } from './secretPrompt';
import { EXIT_FAILED, EXIT_OK, EXIT_USAGE, type CliIo } from './io';
import { poolFromFlags, SSH_FLAGS } from './sshFlags';

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

const DRAIN_USAGE =
  'usage: kubeadm-workbench drain NODE [--kubeconfig F] [--context N] [--ignore-daemonsets] [--delete-emptydir-data] [--force]\n' +
  '                                    [--timeout=300s] [--grace-period=-1] [--skip-wait-for-delete-timeout=0] [--dry-run[=none|client|server]]\n' +
  '                                    [--then CMD --inventory F [--ssh-config F] [--known-hosts F] [--ask-become-pass] [--then-timeout=30m] [--ready-timeout=10m]]\n' +
  '                                    [--uncordon] [--yes]\n';
const CORDON_USAGE = (verb: string) => `usage: kubeadm-workbench ${verb} NODE [--kubeconfig F] [--context N] [--dry-run[=none|client|server]] [--yes]\n`;

/** kubectl durations: `300s`, `5m`, `1h30m`, `1.5s`, or bare seconds. 0 means no limit (kubectl's meaning). */
export function parseDuration(text: string, flag: string): number {
  const t = text.trim();
  if (/^\d+(\.\d+)?$/.test(t)) return Number(t);
  const parts = [...t.matchAll(/(\d+(?:\.\d+)?)(ms|h|m|s)/g)];
  if (!parts.length || parts.map((p) => p[0]).join('') !== t) throw new UsageError(`--${flag}: "${text}" is not a duration (e.g. 300s, 5m, 1h)`);
  return parts.reduce((sum, p) => sum + Number(p[1]) * { ms: 0.001, s: 1, m: 60, h: 3600 }[p[2] as 'ms' | 's' | 'm' | 'h'], 0);
}

function parseInt10(text: string, flag: string): number {
  if (!/^-?\d+$/.test(text.trim())) throw new UsageError(`--${flag}: "${text}" is not a whole number`);
  return Number(text);
}

function dryRunOf(flags: Record<string, unknown>): DryRun {
  const v = (flags['dry-run'] as string | undefined) ?? 'none';
  if (v !== 'none' && v !== 'client' && v !== 'server') throw new UsageError(`--dry-run must be none, client or server (got "${v}")`);
  return v;
}

/** kubectl accepts a bare `--dry-run` (= client). */
function normalizeArgs(argv: string[]): string[] {
  return argv.map((a) => (a === '--dry-run' ? '--dry-run=client' : a));
}

async function ask(question: string, stdin: NodeJS.ReadableStream): Promise<boolean> {
  const prompter = new Prompter(stdin);
  try {
    return /^y(es)?$/i.test((await prompter.ask(question)).trim());
  } finally {
    prompter.close();
  }
}

async function connect(flags: Record<string, unknown>, io: CliIo, inventory?: Inventory, remote?: ReturnType<typeof remoteExecOver>): Promise<KubeConnection | undefined> {
  try {
    return await loadKubeAdapter().connect({ kubeconfig: (flags.kubeconfig as string | undefined) ?? '', context: (flags.context as string | undefined) ?? '', ...(inventory ? { inventory } : {}), ...(remote ? { remote } : {}) });
  } catch (e) {
    io.stderr(`kubeadm-workbench: cannot connect to the cluster: ${describeError(e)}\n`);
    return undefined;
  }
}

/**
 * kubectl's lines to stdout/stderr as kubectl prints them; the maintenance command's output host-prefixed
 * and redacted (a sudo password), line-buffered across chunks by RunOutput.
 */
function lineWriter(io: CliIo, secrets: readonly string[] = []): { write: (l: DrainLine) => void; end: () => void } {
  const output = new RunOutput(secrets);
  output.addSink((line) => io.stdout(`${formatRunLine(line)}\n`));
  const hosts = new Map<string, HostStreams>();
  return {
    write: (l) => {
      if (!l.host) return l.stream === 'stdout' ? io.stdout(`${l.text}\n`) : io.stderr(`${l.text}\n`);
      let h = hosts.get(l.host);
      if (!h) hosts.set(l.host, (h = output.forCommand(l.host)));
      (l.stream === 'stdout' ? h.onStdout : h.onStderr)(l.text);
    },
    end: () => hosts.forEach((h) => h.end()),
  };
}

// --------------------------------------------------------------------------------------- cordon/uncordon

function cordonVerb(cordon: boolean) {
  const verb = cordon ? 'cordon' : 'uncordon';
  return async (argv: string[], io: CliIo, stdin: NodeJS.ReadableStream = process.stdin): Promise<number> => {
    let flags: Record<string, unknown>;
    let positionals: string[];
    let dryRun: DryRun;
    try {
      ({ flags, positionals } = parseFlags(normalizeArgs(argv), CONNECTION));
      dryRun = dryRunOf(flags);
      if (positionals.length !== 1) throw new UsageError(`${verb} needs exactly one NODE`);
    } catch (e) {
      if (!(e instanceof UsageError)) throw e;
      io.stderr(`${e.message}\n${CORDON_USAGE(verb)}`);
      return EXIT_USAGE;
    }
    const nodeName = positionals[0]!;
    const conn = await connect(flags, io);
    if (!conn) return EXIT_FAILED;
    try {
      const cluster = createDrainCluster(conn.transport);
      const node = await cluster.getNode(nodeName);
      if (node.unschedulable !== cordon || dryRun !== 'none') {
        io.stdout(`Plan: ${verb} node/${nodeName} on ${conn.server} (context ${conn.context}): ${cordon ? 'set spec.unschedulable = true — no new pods are scheduled there; running pods stay' : 'clear spec.unschedulable — the scheduler may place pods there again'}\n`);
        if (node.unschedulable !== cordon && dryRun === 'none' && !flags.yes && !(await ask(`${cordon ? 'Cordon' : 'Uncordon'} ${nodeName}? [y/N] `, stdin))) {
          io.stderr('not confirmed; nothing was done (use --yes to run without asking).\n');
          return EXIT_FAILED;
        }
      }
      await setCordon(cluster, nodeName, cordon, dryRun, lineWriter(io).write, node);
      return EXIT_OK;
    } catch (e) {
      io.stderr(`error: unable to ${verb} node "${nodeName}": ${describeError(e)}\n`);
      return EXIT_FAILED;
    } finally {
      conn.dispose();
    }
  };
}

export const runCordon = cordonVerb(true);
export const runUncordon = cordonVerb(false);

// ------------------------------------------------------------------------------------------------ drain

export async function runDrainVerb(argv: string[], io: CliIo, stdin: NodeJS.ReadableStream = process.stdin): Promise<number> {
  let flags: Record<string, unknown>;
  let positionals: string[];
  let options: DrainRunOptions;
  let thenTimeoutMs: number;
  try {
    ({ flags, positionals } = parseFlags(normalizeArgs(argv), DRAIN));
    if (positionals.length !== 1) throw new UsageError('drain needs exactly one NODE');
    if (flags.then !== undefined && !flags.inventory) throw new UsageError('--then runs the command on the node\'s inventory host over SSH: give --inventory');
    if ((flags['then-timeout'] !== undefined || flags['ready-timeout'] !== undefined) && flags.then === undefined) throw new UsageError('--then-timeout and --ready-timeout go with --then');
    options = {
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
    thenTimeoutMs = (flags['then-timeout'] !== undefined ? parseDuration(flags['then-timeout'] as string, 'then-timeout') : 1800) * 1000;
  } catch (e) {
    if (!(e instanceof UsageError)) throw e;
    io.stderr(`${e.message}\n${DRAIN_USAGE}`);
    return EXIT_USAGE;
  }
  const nodeName = positionals[0]!;

  let inventory: Inventory | undefined;
  if (flags.inventory) {
    const loaded = await loadInventoryFile(flags.inventory as string, io);
    if (typeof loaded === 'number') return loaded;
    inventory = loaded;
  }

  let pool: SshPool | undefined;
  if (inventory) {
    pool = poolFromFlags(inventory, flags, { report: (line) => io.stderr(`${line}\n`), connectTimeoutMs: 10_000 });
  }
  const abort = new AbortController();
  const onSignal = (): void => {
    io.stderr(`cancelling the drain of node/${nodeName}…\n`);
    abort.abort();
  };
  let conn: KubeConnection | undefined;
  // One reader for every question (a sudo password, then the confirmation), so piped answers are read in order.
  const prompter = new Prompter(stdin);
  try {
    if (flags.then !== undefined) {
      try {
        const host = maintenanceHost(inventory!, nodeName).name;
        const user = pool!.loginUser(host);
        let sudoPassword: string | undefined;
        if (user !== 'root') {
          io.stderr(`${host}: logged in as ${user}, so the command runs through sudo${flags['ask-become-pass'] ? '' : ' -n (add --ask-become-pass if sudo needs a password there)'}\n`);
          if (flags['ask-become-pass']) sudoPassword = (await prompter.askSecret(`sudo password for ${user}@${host}: `)) || undefined;
        }
        options.maintenance = sshMaintenance(pool!, inventory!, nodeName, flags.then as string, { timeoutMs: thenTimeoutMs, loginUser: (h) => pool!.loginUser(h), sudoPassword });
      } catch (e) {
        io.stderr(`${(e as Error).message}\n`);
        return EXIT_USAGE;
      }
    }
    conn = await connect(flags, io, inventory, pool ? remoteExecOver(pool) : undefined);
    if (!conn) return EXIT_FAILED;
    const c = conn;
    const cluster = createDrainCluster(c.transport, { readEtcd: () => c.readEtcd(), inventory });
    let plan;
    try {
      plan = await planDrain(cluster, nodeName, options);
    } catch (e) {
      io.stderr(`error: cannot plan the drain of node "${nodeName}": ${describeError(e)}\n`);
      return EXIT_FAILED;
    }
    io.stdout(`${renderDrainPlan(plan)}\n`);
    if (plan.guard && !plan.guard.ok) {
      io.stderr(`error: refusing to drain control-plane node "${nodeName}": ${plan.guard.reasons.join(' ')}\nnothing was done.\n`);
      return EXIT_FAILED;
    }
    if (options.dryRun === 'none' && !flags.yes) {
      const refused = planBlockers(plan).length > 0;
      const question = refused ? `Pods are refused: the drain would cordon ${nodeName} and stop (as kubectl drain does). Go ahead? [y/N] ` : `Drain ${nodeName}${options.maintenance ? `, run the command on ${options.maintenance.host}` : ''}${options.uncordonAfter ? ' and uncordon it' : ''}? [y/N] `;
      if (!/^y(es)?$/i.test((await prompter.ask(question)).trim())) {
        io.stderr('not confirmed; nothing was done (use --yes to run without asking).\n');
        return EXIT_FAILED;
      }
    }
    process.once('SIGINT', onSignal);
    process.once('SIGTERM', onSignal);
    prompter.close();
    const lines = lineWriter(io, options.maintenance?.secrets ?? []);
    const result = await runDrain(cluster, nodeName, { ...options, signal: abort.signal, onLine: lines.write });
    lines.end();
    if (result.ok) return EXIT_OK;
    io.stderr(`kubeadm-workbench drain: ${result.cancelled ? 'cancelled' : 'FAILED'} at step "${result.failedStep}" on node ${nodeName}${result.failedPods.length ? ` (pods: ${result.failedPods.map((p) => p.pod).join(', ')})` : ''}\n`);
    return EXIT_FAILED;
  } finally {
    prompter.close();
    process.off('SIGINT', onSignal);
    process.off('SIGTERM', onSignal);
    conn?.dispose();
    await pool?.close();
  }
}
