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
import { EXIT_FAILED, EXIT_OK, EXIT_USAGE } from './io';
import { t } from '../core/l10n';
import { UsageError, type FlagSpec } from './args';
import { loadInventoryFile } from './inventoryFile';
import { SSH_FLAGS } from './sshFlags';
import { shownPath } from '../core/text/terminal';
import { defineVerb, usageText, type VerbFlags, type ListedVerbs } from './verb';

const usage = (): string =>
  usageText(['kubeadm-workbench ssh-check|preflight --inventory FILE [--host NAME]... [--json] [--timeout SECONDS] [--cluster [--kubeconfig F]] [--ssh-config F] [--known-hosts F] [--own-known-hosts F] [--accept-new-host-key=SHA256:...]... [--max-parallel N]']);

const FLAGS: FlagSpec = { inventory: 'string', ...SSH_FLAGS, host: 'list', 'max-parallel': 'string', timeout: 'string', json: 'boolean', cluster: 'boolean', kubeconfig: 'string' };

interface Checked {
  hosts: string[];
  accept: string[];
  timeoutMs: number;
  maxParallel?: number;
}

function checked(flags: VerbFlags): Checked {
  if (flags.kubeconfig !== undefined && !flags.cluster) throw new UsageError(t('--kubeconfig goes with --cluster'));
  if (!flags.inventory) throw new UsageError(t('--inventory is required'));
  const accept = (flags['accept-new-host-key'] as string[] | undefined) ?? [];
  const bad = accept.find((fp) => !/^SHA256:[A-Za-z0-9+/]{43}$/.test(fp));
  if (bad) throw new UsageError(t('--accept-new-host-key needs a SHA256 fingerprint as ssh-keygen -lf prints it (SHA256:...), got "{0}"', bad));
  let maxParallel: number | undefined;
  if (flags['max-parallel'] !== undefined) {
    maxParallel = Number(flags['max-parallel']);
    if (!Number.isInteger(maxParallel) || maxParallel < 1 || maxParallel > 64) throw new UsageError(t('--max-parallel must be 1..64'));
  }
  let timeoutMs = PREFLIGHT_CONNECT_TIMEOUT_MS;
  if (flags.timeout !== undefined) {
    const n = Number(flags.timeout);
    if (!(n > 0)) throw new UsageError(t('--timeout must be a positive number of seconds'));
    timeoutMs = n * 1000;
  }
  return { hosts: (flags.host as string[] | undefined) ?? [], accept, timeoutMs, ...(maxParallel ? { maxParallel } : {}) };
}

/**
 * The inventory is read here, not as a declared need: a preflight that cannot start is a failed preflight (exit 1),
 * and its pool is its own (its own known_hosts by default, no passphrase question, the --timeout).
 */
const sshCheckVerb = (words: 'ssh-check' | 'preflight') => defineVerb({
  words, flags: FLAGS, usage, needs: {},
  validate: checked,
  run: async ({ flags, options: args, io, onClose }) => {
    const inventoryFile = flags.inventory as string;
    // An address the loader refuses (10.3.60.051 is octal to ssh) must not be connected to.
    const inventory = await loadInventoryFile(inventoryFile, io);
    if (typeof inventory === 'number') return inventory === EXIT_USAGE ? EXIT_FAILED : inventory;
    const unknownHosts = args.hosts.filter((h) => !inventory.hosts.some((x) => x.name === h));
    if (unknownHosts.length) {
      io.stderr(`${t('no host named {0} in {1}', unknownHosts.join(', '), shownPath(inventoryFile))}\n`);
      return EXIT_USAGE;
    }
    const hosts = inventory.hosts.filter((h) => args.hosts.length === 0 || args.hosts.includes(h.name)).map((h) => h.name);
    const path = (name: string) => flags[name] as string | undefined;
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
    onClose(() => pool.close());
    for (const h of hosts) {
      try {
        for (const w of pool.resolve(h).warnings) io.stderr(`${h}: warning: ${w}\n`);
      } catch {
        // the preflight's SSH settings check names it
      }
    }
    const report = await runPreflight(pool, {
      inventory, operation: 'ssh-check', hosts, sudoPasswordAsked: true, timeoutMs: args.timeoutMs,
      ...(flags.cluster ? { cluster: () => clusterChecks(inventory, (flags.kubeconfig as string | undefined) ?? '', args.timeoutMs) } : {}),
    });
    if (flags.json) io.stdout(`${JSON.stringify(report, null, 2)}\n`);
    else io.stdout(renderPreflightTable(report));
    return passes(report) ? EXIT_OK : EXIT_FAILED;
  },
});

export const runSshCheck = sshCheckVerb('ssh-check');
/** The same verb under the name the editor's command uses: its messages say `preflight`. */
export const runPreflightVerb = sshCheckVerb('preflight');

/** What `kubeadm-workbench --help` lists of this file (ListedVerbs, ./verb.ts; npm run gen:tables copies it into main.ts). */
export const verbs = {
  'ssh-check': { summary: () => `ssh-check --inventory F [--host NAME]... [--json] [--timeout 4] [--accept-new-host-key=SHA256:...]   ${t('the preflight every operation runs first: per host name, port, keys, host key, login and sudo, all at once; each failure\'s cause and fix; exit 1 when a host fails')}`, run: runSshCheck },
  preflight: { summary: () => `preflight ...                    ${t('the same as ssh-check')}`, run: runPreflightVerb },
} satisfies ListedVerbs;
