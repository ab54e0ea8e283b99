/**
 * Which kubeconfig files to read and how to merge them, like kubectl:
 *  - the setting `kubeadmWorkbench.kubeconfig` (colon-separated like KUBECONFIG) when set,
 *    else the KUBECONFIG environment variable, else ~/.kube/config;
 *  - merging: the first file that defines a cluster, user or context name wins; `current-context`
 *    comes from the first file that sets one. Missing files in a list are skipped (kubectl does too),
 *    but a list with no existing file is an error.
 */
import { delimiter, join } from 'node:path';

export function kubeconfigPaths(setting: string | undefined, env: string | undefined, home: string): string[] {
  const pick = setting?.trim() ? setting : env?.trim() ? env : join(home, '.kube', 'config');
  const seen = new Set<string>();
  return pick
    .split(delimiter)
    .map((p) => p.trim())
    .filter((p) => p && !seen.has(p) && seen.add(p))
    .map((p) => (p.startsWith('~/') ? join(home, p.slice(2)) : p));
}

export interface Named {
  name: string;
}

export interface KubeconfigParts<C extends Named = Named, U extends Named = Named, X extends Named = Named> {
  clusters: C[];
  users: U[];
  contexts: X[];
  currentContext?: string | undefined;
}

export function mergeKubeconfigs<C extends Named, U extends Named, X extends Named>(parts: KubeconfigParts<C, U, X>[]): KubeconfigParts<C, U, X> {
  const firstWins = <T extends Named>(lists: T[][]): T[] => {
    const out = new Map<string, T>();
    for (const list of lists) for (const x of list) if (!out.has(x.name)) out.set(x.name, x);
    return [...out.values()];
  };
  return {
    clusters: firstWins(parts.map((p) => p.clusters ?? [])),
    users: firstWins(parts.map((p) => p.users ?? [])),
    contexts: firstWins(parts.map((p) => p.contexts ?? [])),
    currentContext: parts.map((p) => p.currentContext).find((c) => !!c),
  };
}

/** Does a kubeconfig cluster `server` URL point at the inventory's `controlPlaneEndpoint` (host:port)? */
export function serverMatchesEndpoint(server: string | undefined, endpoint: string): boolean {
  if (!server) return false;
  try {
    const u = new URL(server);
    const port = u.port || (u.protocol === 'https:' ? '443' : '80');
    const host = u.hostname.replace(/^\[|\]$/g, '').toLowerCase();
    const m = /^\[?([^\]]+?)\]?:(\d+)$/.exec(endpoint.trim());
    return !!m && m[1]!.toLowerCase() === host && m[2] === port;
  } catch {
    return false;
  }
}

/**
 * The context for the inventory's cluster when none was picked: the current-context when its server is the
 * inventory's controlPlaneEndpoint (the VIP), else the first context whose server is; undefined when none is. A
 * default kubeconfig whose current-context is another cluster is thus never the one watched, drained or upgraded.
 */
export function contextForEndpoint(choice: { current?: string | undefined; contexts: readonly { name: string; server?: string | undefined }[] }, endpoint: string): string | undefined {
  const current = choice.contexts.find((c) => c.name === choice.current);
  if (current && serverMatchesEndpoint(current.server, endpoint)) return current.name;
  return choice.contexts.find((c) => serverMatchesEndpoint(c.server, endpoint))?.name;
}
