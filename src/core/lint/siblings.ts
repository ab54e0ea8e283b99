/**
 * Which other config files a file is checked against (LintContext.siblings). A workspace may hold more
 * than one set of configs for the same cluster — typically the live files and a `generated/` copy — and
 * cross-file rules must not compare the two sets ("two MASTERs"). Files belong to the same set when they
 * share a config root: their folder without a trailing `etc/...` part (etc/sysctl.d/x.conf belongs to the
 * folder above etc) and without per-host folders named after inventory hosts (lb1/keepalived.conf belongs
 * to the folder above lb1). Editor-free: the editor and `kubeadm-workbench lint` share it.
 */

export function configRoot(path: string, hostNames: ReadonlySet<string> = new Set()): string {
  const segments = path.split(/[\\/]+/).filter((s) => s && s !== '.');
  segments.pop(); // the file name
  const etc = segments.indexOf('etc');
  if (etc >= 0) segments.length = etc;
  while (segments.length && hostNames.has(segments[segments.length - 1]!)) segments.pop();
  if (segments.length && segments[segments.length - 1] === 'hosts') segments.pop();
  return segments.join('/');
}

/** The candidates in the same config set as `path`, without `path` itself. */
export function siblingsOf<T extends { path: string }>(path: string, candidates: readonly T[], hostNames: ReadonlySet<string> = new Set()): T[] {
  const root = configRoot(path, hostNames);
  return candidates.filter((c) => c.path !== path && configRoot(c.path, hostNames) === root);
}

const KEEPALIVED_NAME = /(^|[\\/])keepalived[^\\/]*\.conf$/i;

/**
 * For a keepalived*.conf, the keepalived*.conf candidates of other config sets: the Keepalived linter pairs files by
 * VRRP instance wherever they lie (lb1/keepalived.conf and lb2/keepalived.conf are two sets by their folders), and
 * decides itself which of them are this file's peers (core/keepalived/pair.ts peersElsewhere). Empty for other files.
 */
export function vrrpFilesElsewhere<T extends { path: string }>(path: string, candidates: readonly T[], hostNames: ReadonlySet<string> = new Set()): T[] {
  if (!KEEPALIVED_NAME.test(path)) return [];
  const root = configRoot(path, hostNames);
  return candidates.filter((c) => c.path !== path && KEEPALIVED_NAME.test(c.path) && configRoot(c.path, hostNames) !== root);
}
