/**
 * What the nodes download and then trust as root: the apt sources' signing keys (installed into a keyring) and the
 * CNI manifest (applied with the cluster-admin kubeconfig). Checked across fields, for the loader (each problem at
 * its field's line) and for a model handed to a generator (validate.ts's modelProblems):
 *  - over plain http only with a sha256 pin, which the node compares before using the file;
 *  - a pin pins something;
 *  - a downloaded key never goes into /usr/share/keyrings (the distribution's keyrings: debian-archive-keyring.gpg);
 *  - two sources never share a keyring.
 * On the node itself the keyring must also be new, or one this tool wrote (phases/aptSources.ts records them).
 */
import { APT_SOURCES, DISTRIBUTION_KEYRINGS, parseAptLine } from './apt';
import type { InventoryRuleId } from './rules';
import type { ClusterSpec, PackageSource } from './types';
import { t } from '../l10n';

export interface DownloadProblem {
  /** The field under `cluster`, e.g. `packages.kubernetesAptKey` or `cniManifest`. */
  field: string;
  rule: InventoryRuleId;
  message: string;
}

export const sha256Hex = (v: string): string | undefined => (/^[0-9a-f]{64}$/.test(v) ? undefined : t('is not a SHA-256: 64 lowercase hex digits, as sha256sum prints them'));

/** The keyring an apt source's key is written to (its signed-by, else our default), when it has a key. */
export function keyringOf(line: string | undefined, keyUrl: string | undefined, fallback: string): string | undefined {
  const parsed = line ? parseAptLine(line) : undefined;
  if (typeof parsed !== 'object') return undefined;
  return parsed.signedBy ?? (keyUrl ? fallback : undefined);
}

export function downloadProblems(c: ClusterSpec): DownloadProblem[] {
  const out = aptKeyProblems(c.packages ?? {});
  if (c.cniManifest?.startsWith('http://') && c.cniManifestSha256 === undefined) {
    out.push({ field: 'cniManifest', rule: 'inventory/plain-http', message: t('cniManifest is downloaded over plain http and applied with the cluster-admin kubeconfig: anyone on the path can swap it. Use https, or pin the file with cniManifestSha256 (its sha256sum), which the node checks before applying it.') });
  }
  return out;
}

/** The apt sources' keys: pins, plain http, distribution keyrings, shared keyrings. */
export function aptKeyProblems(p: PackageSource): DownloadProblem[] {
  const out: DownloadProblem[] = [];
  const seen = new Map<string, string>();
  for (const s of APT_SOURCES) {
    const line = p[s.line];
    const key = p[s.key];
    const pin = p[s.pin];
    if (pin !== undefined && key === undefined) out.push({ field: `packages.${s.pin}`, rule: 'inventory/sha256', message: t('packages.{0} pins nothing: packages.{1} is not set.', s.pin, s.key) });
    if (key?.startsWith('http://') && pin === undefined) {
      out.push({ field: `packages.${s.key}`, rule: 'inventory/plain-http', message: t('packages.{0} is downloaded over plain http and installed as root as a key apt trusts: anyone on the path can swap it. Use https, or pin the file with packages.{1} (its sha256sum), which every node checks.', s.key, s.pin) });
    }
    const keyring = keyringOf(line, key, s.keyring);
    if (!keyring) continue;
    if (key && keyring.startsWith(DISTRIBUTION_KEYRINGS)) {
      out.push({ field: `packages.${s.line}`, rule: 'inventory/keyring-distribution', message: t("packages.{0}'s keyring {1} is in {2}, where packages keep their keyrings (debian-archive-keyring.gpg): the key from packages.{3} would be written over it on every node. Name a new file in /etc/apt/keyrings/ in signed-by.", s.line, keyring, DISTRIBUTION_KEYRINGS, s.key) });
    }
    const other = seen.get(keyring);
    if (other) out.push({ field: `packages.${s.line}`, rule: 'inventory/keyring-shared', message: t("packages.{0} names the keyring {1} of packages.{2}: each source's key would overwrite the other's. Give each source its own keyring file.", s.line, keyring, other) });
    else seen.set(keyring, s.line);
  }
  return out;
}
