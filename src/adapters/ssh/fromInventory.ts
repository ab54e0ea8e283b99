/**
 * Builds an SshPool for an inventory from the local machine's files: ~/.ssh/config (+ an optional workspace
 * SSH config), ~/.ssh/known_hosts (+ an optional extra file) and the extension's own known_hosts. Used by the
 * CLI (ssh-check and the engine verbs) and by the extension (which passes its modal prompt, SecretStorage-backed
 * passphrases, workspace trust and the maxParallelHosts setting).
 */
import { existsSync, readdirSync } from 'node:fs';
import { appendToFile, ensureRealFolder, readRegularSync, readRegularText } from '../fs/safeFile';

/** An SSH config or known_hosts file larger than this (or a FIFO, a device) is not read. */
const SSH_FILE_BYTES = 16 * 1024 * 1024;
import { homedir, userInfo, hostname } from 'node:os';
import { dirname, join } from 'node:path';
import type { Inventory } from '../../core/inventory/types';
import { explicitSshFor, resolveHost, type ResolvedHost, type SshConfigEnv, type SshTarget } from '../../core/ssh/config';
import { HostKeyVerifier, type HostKeyPrompt } from '../../core/ssh/hostKeyPolicy';
import type { RemoteExec } from '../../core/live/etcdSource';
import { sh } from '../../core/ssh/command';
import { ANY_EXIT_CODE, type SshTransport } from '../../core/ssh/transport';
import { SshPool, type AuthCallbacks, type PoolOptions } from './pool';
import { toError } from '../../core/errors';
import { t } from '../../core/l10n';

export interface InventoryPoolOptions {
  /** The workspace SSH config (setting kubeadmWorkbench.sshConfigFile), read after ~/.ssh/config. */
  sshConfigFile?: string;
  /** An extra known_hosts file (setting kubeadmWorkbench.knownHostsFile). */
  knownHostsFile?: string;
  /** The extension's own known_hosts (context.globalStorageUri/known_hosts); default ~/.config/kubeadm-workbench/known_hosts. */
  ownKnownHostsFile?: string;
  prompt: HostKeyPrompt;
  auth?: AuthCallbacks;
  maxParallelHosts?: number;
  allowConnect?: () => boolean;
  debug?: (message: string) => void;
  /** Home directory (tests). */
  homeDir?: string;
  pool?: Partial<PoolOptions>;
}

export function defaultOwnKnownHostsFile(home = homedir()): string {
  const base = process.env.XDG_CONFIG_HOME || join(home, '.config');
  return join(base, 'kubeadm-workbench', 'known_hosts');
}

export function nodeSshConfigEnv(files: string[], home = homedir()): SshConfigEnv {
  return {
    files,
    homeDir: home,
    localUser: safeUser(),
    localHostName: hostname(),
    readFile: (p) => {
      try {
        return readRegularSync(p, { maxBytes: SSH_FILE_BYTES }).toString('utf8');
      } catch {
        return undefined;
      }
    },
    listDir: (p) => {
      try {
        return readdirSync(p);
      } catch {
        return [];
      }
    },
  };
}

function safeUser(): string {
  try {
    return userInfo().username;
  } catch {
    return process.env.USER ?? 'root';
  }
}

/** The inventory host → SshTarget mapping (explicit settings: host's own over inventory-wide). */
export function inventoryTargets(inv: Inventory): Map<string, SshTarget> {
  const m = new Map<string, SshTarget>();
  for (const h of inv.hosts) m.set(h.name, { name: h.name, address: h.address, explicit: explicitSshFor(inv.ssh, h.ssh) });
  return m;
}

/** Resolves every host up front (so configuration errors show before connecting). */
export function resolveInventory(inv: Inventory, env: SshConfigEnv): Map<string, ResolvedHost | Error> {
  const targets = inventoryTargets(inv);
  const out = new Map<string, ResolvedHost | Error>();
  for (const [name, t] of targets) {
    try {
      out.set(name, resolveHost(t, env, (n) => targets.get(n)));
    } catch (e) {
      out.set(name, toError(e));
    }
  }
  return out;
}

export function createInventoryPool(inv: Inventory, opts: InventoryPoolOptions): { pool: SshPool; verifier: HostKeyVerifier; env: SshConfigEnv } {
  const home = opts.homeDir ?? homedir();
  const env = nodeSshConfigEnv([join(home, '.ssh', 'config'), ...(opts.sshConfigFile ? [opts.sshConfigFile] : [])], home);
  const targets = inventoryTargets(inv);
  const ownFile = opts.ownKnownHostsFile ?? defaultOwnKnownHostsFile(home);
  const verifier = new HostKeyVerifier(
    {
      files: [join(home, '.ssh', 'known_hosts'), ...(opts.knownHostsFile ? [opts.knownHostsFile] : [])],
      ownFile,
      read: async (p) => (existsSync(p) ? readRegularText(p, { maxBytes: SSH_FILE_BYTES }) : undefined),
      // Our own known_hosts: appended only when it is a regular file of this user (never through a link).
      append: async (p, text) => {
        await ensureRealFolder(dirname(p), { mode: 0o700, recursive: true, allowLink: true });
        await appendToFile(p, text, 0o600);
      },
      hashed: true,
    },
    opts.prompt,
  );
  const pool = new SshPool({
    resolve: (name) => {
      const target = targets.get(name);
      if (!target) throw new Error(t('no host named "{0}" in the inventory', name));
      return resolveHost(target, env, (n) => targets.get(n));
    },
    hostKeys: verifier,
    ...(opts.auth ? { auth: opts.auth } : {}),
    ...(opts.allowConnect ? { allowConnect: opts.allowConnect } : {}),
    ...(opts.maxParallelHosts ? { maxParallelHosts: opts.maxParallelHosts } : {}),
    ...(opts.debug ? { debug: opts.debug } : {}),
    ...opts.pool,
  });
  return { pool, verifier, env };
}

/** The live views' RemoteExec (a shell script on a host, every exit status returned) over an SSH transport. */
export function remoteExecOver(transport: SshTransport, timeoutMs = 20_000): RemoteExec {
  return {
    exec: async (host, script) => {
      const r = await transport.exec(host, sh`sh -c ${script}`, { okCodes: [...ANY_EXIT_CODE], timeoutMs });
      return { code: r.code ?? -1, stdout: r.stdout, stderr: r.stderr };
    },
  };
}
