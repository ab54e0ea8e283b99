/**
 * The pause (sandbox) image kubeadm uses per Kubernetes minor version: `PauseVersion` in upstream
 * cmd/kubeadm/app/constants/constants.go (1.34.12 read from the Go module cache: "3.10.1"; 1.23–1.32 as listed
 * per release in minikube's constants_kubeadm_images.go; 1.33 → 3.10). containerd's sandbox image must
 * match it, or kubeadm's preflight warns and nodes pull a second pause image.
 */
import { parseVersion } from '../kubeadm/lint';

const TABLE: Array<[number, string]> = [
  // [first minor, pause version] — newest first.
  [34, '3.10.1'],
  [31, '3.10'],
  [26, '3.9'],
  [25, '3.8'],
  [24, '3.7'],
  [23, '3.6'],
];

export function pauseVersionFor(kubernetesVersion: string): string | undefined {
  const v = parseVersion(kubernetesVersion);
  if (!v) return undefined;
  const minor = v[0] > 1 ? 99 : v[1];
  return TABLE.find(([first]) => minor >= first)?.[1];
}

export function pauseImageFor(kubernetesVersion: string, imageRepository?: string): string | undefined {
  const tag = pauseVersionFor(kubernetesVersion);
  return tag ? `${(imageRepository ?? 'registry.k8s.io').replace(/\/+$/, '')}/pause:${tag}` : undefined;
}
