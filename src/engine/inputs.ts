/**
 * Everything a bring-up plan needs besides the inventory: the generated config files (the same
 * generators the editor's "Generate cluster configs" and the rules use) and the package and CNI
 * sources. Shared by the CLI and the extension.
 */
import { createHash } from 'node:crypto';
import { generateClusterConfigs, type GeneratedFile, type GenerateOptions } from '../core/generate';
import { AUDIT_POLICY_PATH } from '../core/generate/auditPolicy';
import { mergeKubeadmDocuments } from '../core/generate/mergeDocuments';
import type { Inventory } from '../core/inventory/types';
import type { PhaseConfigs, PhaseSources } from '../core/phases/configs';
import { readWorkspaceFile } from './workspaceFiles';
import { t } from '../core/l10n';

/**
 * The cluster's config files as the plan uploads them and as `generate` writes them — one function for both, so the
 * kubeadm-config.yaml a user reviews is the one kubeadm init gets: with cluster.kubeadmExtraConfig (`extraKubeadm`,
 * its text) merged in.
 */
export function clusterConfigFiles(inv: Inventory, extraKubeadm: string | undefined, options: GenerateOptions = {}): GeneratedFile[] {
  const files = generateClusterConfigs(inv, options);
  if (!extraKubeadm) return files;
  return files.map((f) => (f.path === 'kubeadm-config.yaml' ? { ...f, text: mergeKubeadmDocuments(f.text, extraKubeadm) } : f));
}

/** `extraKubeadm`: the text of cluster.kubeadmExtraConfig, when the inventory names one. */
export function phaseConfigs(inv: Inventory, extraKubeadm?: string, vrrpAuthPass?: string): PhaseConfigs {
  const files = clusterConfigFiles(inv, extraKubeadm, vrrpAuthPass ? { vrrpAuthPass } : {});
  const text = (path: string): string => {
    const f = files.find((x) => x.path === path);
    if (!f) throw new Error(t('the generator produced no {0}', path));
    return f.text;
  };
  const optional = (path: string): string | undefined => files.find((x) => x.path === path)?.text;
  const keepalived: Record<string, string> = {};
  for (const f of files) if (f.host && /keepalived/.test(f.path)) keepalived[f.host] = f.text;
  const containerdHosts: Record<string, string> = {};
  for (const f of files) if (f.path.startsWith('etc/containerd/certs.d/')) containerdHosts[`/${f.path}`] = f.text;
  return {
    modules: text('etc/modules-load.d/k8s.conf'),
    nodeSysctl: text('etc/sysctl.d/99-kubernetes-cri.conf'),
    balancerSysctl: optional('etc/sysctl.d/99-loadbalancer.conf') ?? 'net.ipv4.ip_nonlocal_bind = 1\n',
    containerdConfig: text('etc/containerd/config.toml'),
    containerdHosts,
    haproxyConfig: optional('haproxy.cfg') ?? '',
    keepalivedConfig: keepalived,
    ...(optional(AUDIT_POLICY_PATH.slice(1)) !== undefined ? { auditPolicy: optional(AUDIT_POLICY_PATH.slice(1))! } : {}),
    kubeadmInitConfig: text('kubeadm-config.yaml'),
  };
}

/**
 * The flannel release applied for each Kubernetes minor, pinned: a `releases/latest` URL would apply whatever
 * flannel published last, untested with this cluster and different on the next run. Update with the lab's
 * FLANNEL_VERSION (lab/versions.env) after the lab has run with it.
 */
export const FLANNEL_VERSIONS: Record<string, string> = Object.fromEntries(
  Array.from({ length: 34 - 24 + 1 }, (_, i) => [`1.${24 + i}`, 'v0.27.4']),
);

export function flannelManifestUrl(kubernetesVersion: string): string | undefined {
  const minor = /^v?(\d+\.\d+)\./.exec(kubernetesVersion)?.[1];
  const version = minor ? FLANNEL_VERSIONS[minor] : undefined;
  return version && `https://github.com/flannel-io/flannel/releases/download/${version}/kube-flannel.yml`;
}

/**
 * The CNI manifest: the inventory's `cniManifest` (a file inside the inventory's folder, or an https URL the
 * first control-plane node downloads), else flannel's release pinned for the Kubernetes version.
 */
export async function phaseSources(inv: Inventory, inventoryDir: string, readFile: (path: string) => Promise<string>): Promise<PhaseSources> {
  const ref = inv.cluster.cniManifest ?? (inv.cluster.cni === 'flannel' ? flannelManifestUrl(inv.cluster.kubernetesVersion) : undefined);
  if (!ref) throw new Error(t('set cluster.cniManifest in the inventory: there is no pinned default manifest for {0} on Kubernetes {1}', String(inv.cluster.cni), inv.cluster.kubernetesVersion));
  const isUrl = /^https?:\/\//.test(ref);
  const p = inv.cluster.packages ?? {};
  const pin = inv.cluster.cniManifestSha256;
  const manifest = isUrl ? '' : await readWorkspaceFile(inventoryDir, ref, readFile, 'cluster.cniManifest');
  // A pinned local file is held to its pin too: the file may have changed since the pin was written.
  if (!isUrl && pin !== undefined && createHash('sha256').update(manifest, 'utf8').digest('hex') !== pin) {
    throw new Error(t('cluster.cniManifest {0} is not the file cluster.cniManifestSha256 pins (its sha256 differs): check the file, then update the pin', ref));
  }
  return {
    ...(isUrl ? { cniManifestUrl: ref, cniManifest: '' } : { cniManifest: manifest }),
    ...(pin !== undefined ? { cniManifestSha256: pin } : {}),
    ...(p.kubernetesApt ? { kubernetesApt: p.kubernetesApt } : {}),
    ...(p.kubernetesAptKey ? { kubernetesAptKey: p.kubernetesAptKey } : {}),
    ...(p.kubernetesAptKeySha256 ? { kubernetesAptKeySha256: p.kubernetesAptKeySha256 } : {}),
    ...(p.debianApt ? { debianApt: p.debianApt } : {}),
    ...(p.debianAptKey ? { debianAptKey: p.debianAptKey } : {}),
    ...(p.debianAptKeySha256 ? { debianAptKeySha256: p.debianAptKeySha256 } : {}),
    ...(inv.cluster.ignorePreflightErrors?.length ? { ignorePreflightErrors: inv.cluster.ignorePreflightErrors } : {}),
  };
}

/** Reads cluster.kubeadmExtraConfig from inside the inventory's folder. */
export async function readKubeadmExtra(inv: Inventory, inventoryDir: string, readFile: (path: string) => Promise<string>): Promise<string | undefined> {
  const ref = inv.cluster.kubeadmExtraConfig;
  return ref ? readWorkspaceFile(inventoryDir, ref, readFile, 'cluster.kubeadmExtraConfig') : undefined;
}
