/**
 * Images pulled while the nodes are prepared, so that kubeadm init and the joins find them in containerd and
 * pull nothing (kubeadm's preflight pulls only what is missing; the kubelet starts pods from what is there).
 * Control-plane nodes get what `kubeadm config images list` names for the version and the inventory's registry;
 * workers get what runs on them: the sandbox (pause) image, kube-proxy and the CNI's images. The CNI's images
 * come from its manifest; one given by URL is read by the cluster, not here, so its images are left to the kubelet.
 */
import { t } from '../l10n';
import { parseAllDocuments } from 'yaml';
import { type Inventory } from '../inventory/types';
import { sandboxImage } from '../generate/containerd';
import { and, sh, type RemoteCommand } from '../ssh/command';
import type { Step } from '../plan/types';
import { all } from './checks';
import type { PhaseSources } from './configs';

const CRI_SOCKET = 'unix:///run/containerd/containerd.sock';

/** Every container image a manifest names (containers and init containers of every document), in order, once each. */
export function manifestImages(manifest: string): string[] {
  const found: string[] = [];
  const walk = (node: unknown): void => {
    if (Array.isArray(node)) node.forEach(walk);
    else if (node && typeof node === 'object') {
      for (const [k, v] of Object.entries(node)) {
        if (k === 'image' && typeof v === 'string') found.push(v);
        else walk(v);
      }
    }
  };
  for (const doc of parseAllDocuments(manifest)) if (!doc.errors.length) walk(doc.toJS());
  return [...new Set(found)];
}

/** What the images of a worker are: the sandbox image, kube-proxy of the version, the CNI's images. */
export function workerImages(inv: Inventory, sources: Pick<PhaseSources, 'cniManifest' | 'cniManifestUrl'>): string[] {
  const repo = (inv.cluster.imageRepository ?? 'registry.k8s.io').replace(/\/+$/, '');
  const cni = sources.cniManifestUrl ? [] : manifestImages(sources.cniManifest);
  return [...new Set([sandboxImage(inv), `${repo}/kube-proxy:v${inv.cluster.kubernetesVersion}`, ...cni])];
}

function kubeadmImageFlags(inv: Inventory): RemoteCommand {
  const repo = inv.cluster.imageRepository ? sh` --image-repository ${inv.cluster.imageRepository}` : sh``;
  return sh`--kubernetes-version ${'v' + inv.cluster.kubernetesVersion}${repo}`;
}

const present = (image: string) => sh`crictl inspecti -q ${image} >/dev/null 2>&1`;

/** The prepare step that pulls a node's images; its check asks containerd for each of them (a resumed run skips it). */
export function imagePullStep(inv: Inventory, controlPlane: boolean, sources: Pick<PhaseSources, 'cniManifest' | 'cniManifestUrl'>): Omit<Step, 'id' | 'phase' | 'host'> {
  const extra = controlPlane ? workerImages(inv, sources).filter((i) => !i.includes('/kube-proxy:')) : workerImages(inv, sources);
  const pullMissing = extra.map((i) => sh`{ ${present(i)} || crictl pull ${i} >/dev/null; }`);
  const flags = kubeadmImageFlags(inv);
  // In a subshell: the first image containerd does not have ends the check (and a failed listing fails it).
  const kubeadmImagesPresent = sh`(l=$(kubeadm config images list ${flags} 2>/dev/null) || exit 1; for i in $l; do crictl inspecti -q "$i" >/dev/null 2>&1 || exit 1; done)`;
  return {
    title: controlPlane ? t('Pull the control-plane, sandbox and CNI images') : t('Pull the sandbox, kube-proxy and CNI images'),
    why: t('Pulled here, beside the other hosts\' preparation, they are not pulled by kubeadm init, each control-plane join (one at a time) and each node\'s first pods.'),
    check: all(...(controlPlane ? [kubeadmImagesPresent] : []), ...extra.map(present)),
    run: controlPlane
      ? and(sh`kubeadm config images pull ${flags} --cri-socket ${CRI_SOCKET} >/dev/null`, ...pullMissing)
      : and(...pullMissing),
    timeoutMs: 10 * 60_000,
  };
}
