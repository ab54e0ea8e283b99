/**
 * `kubeadm-workbench ssh-check` (alias `preflight`) --inventory FILE [--host NAME]... [--json] [--timeout SECONDS]
 *   [--cluster [--kubeconfig F]] [--ssh-config F] [--known-hosts F] [--own-known-hosts F] [--accept-new-host-key=SHA256:...]...
 *   [--max-parallel N]
 *
 * The preflight every operation runs before its first question (engine/preflight.ts), on its own: per host the SSH
 * settings, the name, the port's SSH greeting, the keys a login would offer, the host key, the login and sudo, all
 * hosts at once; a table with each failing check's cause and fix (or the report as JSON with --json). An unknown host
 * key is accepted only with its exact fingerprint (--accept-new-host-key, this run only); the table lists each one's
 * fingerprint and how to read it on the host. --cluster adds the cluster's checks: a kubeconfig context for the
 * inventory's endpoint and the API answering through it. Exit 0 when everything passes (warnings included), else 1.
 */
import { homedir } from 'node:os';
import { passes } from '../core/preflight/model';
import { renderPreflightTable } from '../core/preflight/render';
import { CliHostKeyPrompt } from '../core/ssh/hostKeyPolicy';
import { createInventoryPool, defaultOwnKnownHostsFile } from '../adapters/ssh/fromInventory';
import { PREFLIGHT_CONNECT_TIMEOUT_MS, runPreflight } from '../engine/preflight';
import { clusterChecks } from '../engine/clusterPreflight';
import { EXIT_FAILED, EXIT_OK, EXIT_USAGE, type CliIo } from './io';
import { parseFlags, UsageError } from './args';
import { loadInventoryFile } from './inventoryFile';
import { SSH_FLAGS } from './sshFlags';
import { errorMessage } from '../core/errors';
import { shownPath } from '../core/text/terminal';

const USAGE =
  'usage: kubeadm-workbench ssh-check|preflight --inventory FILE [--host NAME]... [--json] [--timeout SECONDS] [--cluster [--kubeconfig F]] [--ssh-config F] [--known-hosts F] [--own-known-hosts F] [--accept-new-host-key=SHA256:...]... [--max-parallel N]\n';

interface Args {
  inventory: string;
  flags: Record<string, string | boolean | string[] | undefined>;
  hosts: string[];
  accept: string[];
  timeoutMs: number;
  maxParallel?: number;
  json: boolean;
  cluster: boolean;
  kubeconfig?: string;
}

function parseArgs(argv: string[]): Args {
  const { flags, positionals } = parseFlags(argv, { inventory: 'string', ...SSH_FLAGS, host: 'list', 'max-parallel': 'string', timeout: 'string', json: 'boolean', cluster: 'boolean', kubeconfig: 'string' });
  if (flags.kubeconfig !== undefined && !flags.cluster) throw new UsageError('--kubeconfig goes with --cluster');
  if (positionals.length) throw new UsageError(`unexpected argument ${positionals[0]}`);
  if (!flags.inventory) throw new UsageError('--inventory is required');
  const accept = (flags['accept-new-host-key'] as string[] | undefined) ?? [];
  const bad = accept.find((fp) => !/^SHA256:[A-Za-z0-9+/]{43}$/.test(fp));
  if (bad) throw new UsageError(`--accept-new-host-key needs a SHA256 fingerprint as ssh-keygen -lf prints it (SHA256:...), got "${bad}"`);
  let maxParallel: number | undefined;
  if (flags['max-parallel'] !== undefined) {
    maxParallel = Number(flags['max-parallel']);
    if (!Number.isInteger(maxParallel) || maxParallel < 1 || maxParallel > 64) throw new UsageError('--max-parallel must be 1..64');
  }
  let timeoutMs = PREFLIGHT_CONNECT_TIMEOUT_MS;
  if (flags.timeout !== undefined) {
    const n = Number(flags.timeout);
    if (!(n > 0)) throw new UsageError('--timeout must be a positive number of seconds');
    timeoutMs = n * 1000;
  }
  return {
    inventory: flags.inventory as string, flags, hosts: (flags.host as string[] | undefined) ?? [], accept, timeoutMs, json: Boolean(flags.json), cluster: Boolean(flags.cluster),
    ...(maxParallel ? { maxParallel } : {}), ...(flags.kubeconfig ? { kubeconfig: flags.kubeconfig as string } : {}),
  };
}

export async function runSshCheck(argv: string[], io: CliIo): Promise<number> {
  let args: Args;
  try {
    args = parseArgs(argv);
  } catch (e) {
    io.stderr(`${errorMessage(e)}\n${USAGE}`);
    return EXIT_USAGE;
  }
  // An address the loader refuses (10.3.60.051 is octal to ssh) must not be connected to.
  const inventory = await loadInventoryFile(args.inventory, io);
  if (typeof inventory === 'number') return inventory === EXIT_USAGE ? EXIT_FAILED : inventory;
  const unknownHosts = args.hosts.filter((h) => !inventory.hosts.some((x) => x.name === h));
  if (unknownHosts.length) {
    io.stderr(`no host named ${unknownHosts.join(', ')} in ${shownPath(args.inventory)}\n`);
    return EXIT_USAGE;
  }
  const hosts = inventory.hosts.filter((h) => args.hosts.length === 0 || args.hosts.includes(h.name)).map((h) => h.name);
  const path = (name: string) => args.flags[name] as string | undefined;
  const { pool } = createInventoryPool(inventory, {
    prompt: new CliHostKeyPrompt(args.accept, (line) => io.stderr(`${line}\n`)),
    ...(path('ssh-config') ? { sshConfigFile: path('ssh-config')! } : {}),
    ...(path('known-hosts') ? { knownHostsFile: path('known-hosts')! } : {}),
    ownKnownHostsFile: path('own-known-hosts') ?? defaultOwnKnownHostsFile(homedir()),
    ...(args.maxParallel ? { maxParallelHosts: args.maxParallel } : {}),
    pool: { connectTimeoutMs: args.timeoutMs },
    // The command line asks for no passphrase: the preflight says to load the key into an agent.
    auth: { passphrase: async () => undefined },
  });
  try {
    for (const h of hosts) {
      try {
        for (const w of pool.resolve(h).warnings) io.stderr(`${h}: warning: ${w}\n`);
      } catch {
        // the preflight's SSH settings check names it
      }
    }
    const report = await runPreflight(pool, {
      inventory, operation: 'ssh-check', hosts, sudoPasswordAsked: true, timeoutMs: args.timeoutMs,
      ...(args.cluster ? { cluster: () => clusterChecks(inventory, args.kubeconfig ?? '', args.timeoutMs) } : {}),
    });
    if (args.json) io.stdout(`${JSON.stringify(report, null, 2)}\n`);
    else io.stdout(renderPreflightTable(report));
    return passes(report) ? EXIT_OK : EXIT_FAILED;
  } finally {
    await pool.close();
  }
}
