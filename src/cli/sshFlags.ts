/**
 * The SSH options every verb that reaches hosts takes, and the pool built from them: the inventory's hosts
 * through ~/.ssh/config plus --ssh-config, known_hosts plus --known-hosts, and host keys accepted only when
 * their fingerprint is given with --accept-new-host-key (never silently).
 */
import { createInventoryPool } from '../adapters/ssh/fromInventory';
import type { SshPool } from '../adapters/ssh/pool';
import type { Inventory } from '../core/inventory/types';
import { CliHostKeyPrompt } from '../core/ssh/hostKeyPolicy';
import type { FlagSpec } from './args';

export const SSH_FLAGS: FlagSpec = {
  'ssh-config': 'string',
  'known-hosts': 'string',
  'own-known-hosts': 'string',
  'accept-new-host-key': 'list',
};

export interface PoolFromFlagsOptions {
  /** Where the host-key prompt's messages go (default: kept for the caller's own error). */
  report?: (line: string) => void;
  connectTimeoutMs?: number;
  maxParallelHosts?: number;
}

export function poolFromFlags(inventory: Inventory, flags: Record<string, unknown>, opts: PoolFromFlagsOptions = {}): SshPool {
  const path = (name: string) => flags[name] as string | undefined;
  return createInventoryPool(inventory, {
    prompt: new CliHostKeyPrompt((flags['accept-new-host-key'] as string[] | undefined) ?? [], opts.report),
    ...(path('ssh-config') ? { sshConfigFile: path('ssh-config')! } : {}),
    ...(path('known-hosts') ? { knownHostsFile: path('known-hosts')! } : {}),
    ...(path('own-known-hosts') ? { ownKnownHostsFile: path('own-known-hosts')! } : {}),
    ...(opts.maxParallelHosts ? { maxParallelHosts: opts.maxParallelHosts } : {}),
    ...(opts.connectTimeoutMs ? { pool: { connectTimeoutMs: opts.connectTimeoutMs } } : {}),
  }).pool;
}
