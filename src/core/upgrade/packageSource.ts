/**
 * The Kubernetes package source of the target minor. pkgs.k8s.io (and a mirror laid out like it, the lab's) is
 * split per minor — `…/core:/stable:/v1.33/deb/` — so a node only sees the next minor's packages once its
 * kubernetes.list names that minor. The line is derived from the inventory's, parsed and rendered from its
 * validated parts (as the prepare phase writes it); a URI without exactly one `/vX.Y/` is refused rather than
 * guessed at.
 */
import { parseAptLine, renderAptLine } from '../inventory/apt';
import { t } from '../l10n';
import { downloadUrl } from '../inventory/fields';
import type { Inventory } from '../inventory/types';
import { minorOf, type KubeVersion } from './versions';

export const DEFAULT_KUBERNETES_APT = (minor: string) => `deb [signed-by=/etc/apt/keyrings/kubernetes-apt-keyring.gpg] https://pkgs.k8s.io/core:/stable:/v${minor}/deb/ /`;
export const DEFAULT_KUBERNETES_APT_KEY = (minor: string) => `https://pkgs.k8s.io/core:/stable:/v${minor}/deb/Release.key`;

export interface TargetSource {
  kubernetesApt: string;
  kubernetesAptKey?: string;
  /**
   * The inventory's pin of its key (pkgs.k8s.io and a mirror laid out like it sign every minor with one key, so the
   * target minor's key file is the same one); the node checks it before installing the key.
   */
  kubernetesAptKeySha256?: string;
  /** Where a flat repository's package index is (`<uri>Packages`), for the preflight's read from each node. */
  packagesIndexUrl?: string;
  /** The line's signed-by keyring (as prepare writes it on every node): what the source's InRelease is checked against. */
  signedBy?: string;
}

const MINOR_SEGMENT = /\/v\d+\.\d+\//g;

function switchMinor(url: string, minor: string, what: string): string {
  const found = url.match(MINOR_SEGMENT) ?? [];
  if (found.length !== 1) throw new Error(t("{0} {1} is not split per minor version (one /vX.Y/ in its path, as pkgs.k8s.io's): switch it to {2} by hand, or set packages.kubernetesApt to the {2} source", what, url, minor));
  return url.replace(MINOR_SEGMENT, `/v${minor}/`);
}

/** The inventory's Kubernetes package source with the target's minor (pkgs.k8s.io's when the inventory names none). */
export function targetPackageSource(inv: Inventory, target: KubeVersion): TargetSource {
  const minor = minorOf(target);
  const line = inv.cluster.packages?.kubernetesApt;
  const key = inv.cluster.packages?.kubernetesAptKey;
  const parsed = parseAptLine(line ?? DEFAULT_KUBERNETES_APT(minor));
  if (typeof parsed === 'string') throw new Error(`packages.kubernetesApt ${parsed}`);
  const switched = { ...parsed, uri: line ? switchMinor(parsed.uri, minor, t('the package source')) : parsed.uri };
  const again = parseAptLine(renderAptLine(switched));
  if (typeof again === 'string') throw new Error(t('the {0} package source {1}', minor, again));
  const out: TargetSource = { kubernetesApt: renderAptLine(again), ...(again.signedBy ? { signedBy: again.signedBy } : {}) };
  const keyUrl = line ? (key ? switchMinor(key, minor, t('the package key')) : undefined) : DEFAULT_KUBERNETES_APT_KEY(minor);
  if (keyUrl) {
    const bad = downloadUrl(keyUrl);
    if (bad) throw new Error(t('the {0} package key {1}: {2}', minor, keyUrl, bad));
    out.kubernetesAptKey = keyUrl;
    const pin = inv.cluster.packages?.kubernetesAptKeySha256;
    if (line && key && pin) out.kubernetesAptKeySha256 = pin;
  }
  if (again.suite === '/') out.packagesIndexUrl = `${again.uri.endsWith('/') ? again.uri : `${again.uri}/`}Packages`;
  return out;
}
