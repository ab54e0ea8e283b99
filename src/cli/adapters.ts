/**
 * The command line's adapter setup, in one place: the SSH pool over an inventory (the SSH flags, the host-key prompt
 * that accepts only the fingerprints given with --accept-new-host-key, its messages on stderr) and the Kubernetes
 * connection (--kubeconfig, else KUBECONFIG, else ~/.kube/config; --context, else the one the inventory's endpoint
 * names when asked). A verb declared with defineVerb (./verb.ts) gets both from its context, closed when it ends;
 * the editor's counterpart is editor/hostSessions.ts.
 */
import type { ConnectOptions, KubeConnection } from '../adapters/kube/index';
import { loadKubeAdapter } from '../adapters/kube/load';
import type { SshPool } from '../adapters/ssh/pool';
import type { Inventory } from '../core/inventory/types';
import type { CliIo } from './io';
import { maxParallel } from './planRun';
import { poolFromFlags } from './sshFlags';

/** How long a verb waits for a host's SSH handshake unless it says otherwise. */
export const VERB_CONNECT_TIMEOUT_MS = 8000;

export interface CliSshOptions {
  /** Default VERB_CONNECT_TIMEOUT_MS; 0: the pool's own default (the bring-up's). */
  connectTimeoutMs?: number;
  /** How many hosts at once; 'from-flags': --max-parallel N (default 10). */
  maxParallelHosts?: number | 'from-flags';
  /** false: the host-key prompt's messages are kept for the caller's own error instead of printed. */
  report?: boolean;
}

/** The SSH pool a verb reaches the inventory's hosts through, built from its flags. */
export function cliSshPool(inventory: Inventory, flags: Record<string, unknown>, io: CliIo, opts: CliSshOptions = {}): SshPool {
  return poolFromFlags(inventory, flags, {
    ...(opts.report === false ? {} : { report: (line: string) => io.stderr(`${line}\n`) }),
    ...(opts.connectTimeoutMs === 0 ? {} : { connectTimeoutMs: opts.connectTimeoutMs ?? VERB_CONNECT_TIMEOUT_MS }),
    ...(opts.maxParallelHosts ? { maxParallelHosts: opts.maxParallelHosts === 'from-flags' ? maxParallel(flags) : opts.maxParallelHosts } : {}),
  });
}

/** The cluster's API connection a verb's flags name (--kubeconfig, --context); the adapter loads on first use. */
export function cliKubeConnection(flags: Record<string, unknown>, opts: Omit<ConnectOptions, 'kubeconfig' | 'context'> & { context?: string } = {}): Promise<KubeConnection> {
  const { context, ...rest } = opts;
  return loadKubeAdapter().connect({ kubeconfig: (flags.kubeconfig as string | undefined) ?? '', context: context ?? (flags.context as string | undefined) ?? '', ...rest });
}
