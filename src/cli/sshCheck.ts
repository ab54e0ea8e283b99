/**
 * `kubeadm-workbench ssh-check --inventory FILE [--ssh-config F] [--known-hosts F] [--host NAME]...
 *   [--accept-new-host-key=SHA256:...]... [--max-parallel N]`
 *
 * Connects to every inventory host (in parallel, capped), runs `uname -n`, prints host → result. Host keys are
 * checked against ~/.ssh/known_hosts, the --known-hosts file and the tool's own known_hosts; an unknown key is
 * refused unless its exact fingerprint is given with --accept-new-host-key (accepted for this run only). Exits 1
 * naming the hosts whose key is unknown, changed or revoked, or that fail authentication or the command.
 */
import { parseInventory } from '../core/inventory/parse';
import { sh } from '../core/ssh/command';
import { CliHostKeyPrompt } from '../core/ssh/hostKeyPolicy';
import { SshConnectError } from '../core/ssh/transport';
import { createInventoryPool, defaultOwnKnownHostsFile, nodeSshConfigEnv, resolveInventory } from '../adapters/ssh/fromInventory';
import { EXIT_FAILED, EXIT_OK, EXIT_USAGE, formatFinding, INVENTORY_READ, type CliIo } from './io';
import { shownPath } from '../core/text/terminal';
import { homedir } from 'node:os';
import { join } from 'node:path';
import { errorMessage } from '../core/errors';

const USAGE =
  'usage: kubeadm-workbench ssh-check --inventory FILE [--ssh-config F] [--known-hosts F] [--own-known-hosts F] [--host NAME]... [--accept-new-host-key=SHA256:...]... [--max-parallel N] [--timeout SECONDS]\n';

interface Args {
  inventory?: string;
  sshConfig?: string;
  knownHosts?: string;
  ownKnownHosts?: string;
  hosts: string[];
  accept: string[];
  maxParallel?: number;
  timeoutSec: number;
}

function parseArgs(args: string[]): Args | string {
  const out: Args = { hosts: [], accept: [], timeoutSec: 30 };
  for (let i = 0; i < args.length; i++) {
    const a = args[i]!;
    const eq = a.indexOf('=');
    const [flag, inline] = a.startsWith('--') && eq > 0 ? [a.slice(0, eq), a.slice(eq + 1)] : [a, undefined];
    const value = () => {
      const v = inline ?? args[++i];
      if (v === undefined) throw new Error(`${flag} needs a value`);
      return v;
    };
    try {
      switch (flag) {
        case '--inventory':
          out.inventory = value();
          break;
        case '--ssh-config':
          out.sshConfig = value();
          break;
        case '--known-hosts':
          out.knownHosts = value();
          break;
        case '--own-known-hosts':
          out.ownKnownHosts = value();
          break;
        case '--host':
          out.hosts.push(value());
          break;
        case '--accept-new-host-key': {
          const fp = value();
          if (!/^SHA256:[A-Za-z0-9+/]{43}$/.test(fp)) return `--accept-new-host-key needs a SHA256 fingerprint as ssh-keygen -lf prints it (SHA256:...), got "${fp}"`;
          out.accept.push(fp);
          break;
        }
        case '--max-parallel': {
          const n = Number(value());
          if (!Number.isInteger(n) || n < 1 || n > 64) return '--max-parallel must be 1..64';
          out.maxParallel = n;
          break;
        }
        case '--timeout': {
          const n = Number(value());
          if (!(n > 0)) return '--timeout must be a positive number of seconds';
          out.timeoutSec = n;
          break;
        }
        default:
          return `unknown argument "${a}"`;
      }
    } catch (e) {
      return errorMessage(e);
    }
  }
  if (!out.inventory) return '--inventory is required';
  return out;
}

export async function runSshCheck(argv: string[], io: CliIo): Promise<number> {
  const args = parseArgs(argv);
  if (typeof args === 'string') {
    io.stderr(`${args}\n${USAGE}`);
    return EXIT_USAGE;
  }
  let text: string;
  try {
    text = await io.readFile(args.inventory!, INVENTORY_READ);
  } catch (e) {
    io.stderr(`cannot read ${shownPath(args.inventory!)}: ${errorMessage(e)}\n`);
    return EXIT_USAGE;
  }
  const { inventory, findings } = parseInventory(text);
  // An address the loader refuses (10.3.60.051 is octal to ssh) must not be connected to.
  const errors = findings.filter((f) => f.severity === 'error');
  if (!inventory || errors.length) {
    for (const f of errors) io.stderr(`${formatFinding(args.inventory!, f)}\n`);
    io.stderr(`${shownPath(args.inventory!)}: not a valid inventory (run check-inventory); no host was contacted\n`);
    return EXIT_FAILED;
  }
  const unknownHosts = args.hosts.filter((h) => !inventory.hosts.some((x) => x.name === h));
  if (unknownHosts.length) {
    io.stderr(`no host named ${unknownHosts.join(', ')} in ${args.inventory}\n`);
    return EXIT_USAGE;
  }
  const hosts = inventory.hosts.filter((h) => args.hosts.length === 0 || args.hosts.includes(h.name));
  const home = homedir();
  const env = nodeSshConfigEnv([join(home, '.ssh', 'config'), ...(args.sshConfig ? [args.sshConfig] : [])], home);
  const resolved = resolveInventory(inventory, env);

  const prompt = new CliHostKeyPrompt(args.accept);
  const { pool } = createInventoryPool(inventory, {
    ...(args.sshConfig ? { sshConfigFile: args.sshConfig } : {}),
    ...(args.knownHosts ? { knownHostsFile: args.knownHosts } : {}),
    ownKnownHostsFile: args.ownKnownHosts ?? defaultOwnKnownHostsFile(home),
    prompt,
    ...(args.maxParallel ? { maxParallelHosts: args.maxParallel } : {}),
    pool: { connectTimeoutMs: args.timeoutSec * 1000 },
    auth: {
      passphrase: async (file) => {
        io.stderr(`${file} is encrypted: load it into ssh-agent (ssh-add ${file}); the command line does not ask for passphrases\n`);
        return undefined;
      },
    },
  });

  const failures: { host: string; kind: string }[] = [];
  const width = Math.max(...hosts.map((h) => h.name.length));
  const t0 = Date.now();
  try {
    await Promise.all(
      hosts.map(async (h) => {
        const r = resolved.get(h.name);
        if (r instanceof Error) {
          failures.push({ host: h.name, kind: 'config' });
          io.stdout(`${h.name.padEnd(width)}  FAILED  ${r.message}\n`);
          return;
        }
        for (const w of r?.warnings ?? []) io.stderr(`${h.name}: warning: ${w}\n`);
        const started = Date.now();
        try {
          const res = await pool.exec(h.name, sh`uname -n`, { timeoutMs: args.timeoutSec * 1000 });
          const conn = pool.connections().filter((c) => c.alias === h.name).pop();
          const via = r && r.jumps.length ? ` via ${r.jumps.map((j) => j.alias).join(' → ')}` : '';
          io.stdout(`${h.name.padEnd(width)}  ok      ${res.stdout.trim()}  (${r?.user}@${r?.hostname}:${r?.port}${via}; connect ${conn?.connectMs ?? '?'} ms, total ${Date.now() - started} ms)\n`);
        } catch (e) {
          const kind = e instanceof SshConnectError ? (e.kind === 'host-key' ? `host key ${e.hostKeyStatus ?? 'error'}` : e.kind) : 'command';
          failures.push({ host: h.name, kind });
          io.stdout(`${h.name.padEnd(width)}  FAILED  ${errorMessage(e)}\n`);
        }
      }),
    );
  } finally {
    await pool.close();
  }
  for (const m of prompt.messages) io.stderr(`${m}\n`);
  if (failures.length === 0) {
    io.stdout(`all ${hosts.length} hosts answered in ${Date.now() - t0} ms\n`);
    return EXIT_OK;
  }
  const by = (k: string) => failures.filter((f) => f.kind === k).map((f) => f.host);
  const parts = [
    ['host key unknown', by('host key unknown')],
    ['host key CHANGED', by('host key changed')],
    ['host key revoked', by('host key revoked')],
    ['host key error', by('host key error')],
    ['authentication', by('auth')],
    ['network', by('network')],
    ['configuration', by('config')],
    ['command', by('command')],
    ['restricted', by('restricted')],
  ].filter(([, hs]) => (hs as string[]).length > 0);
  io.stderr(`ssh-check failed for ${failures.length} of ${hosts.length} hosts: ${parts.map(([k, hs]) => `${k}: ${(hs as string[]).sort().join(', ')}`).join('; ')}\n`);
  return EXIT_FAILED;
}
