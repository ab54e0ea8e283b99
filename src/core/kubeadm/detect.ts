/** Whether a file is a kubeadm configuration or flannel's manifest, by name and content: cheap, without the parser or the schemas (../lint/kinds.ts). */

export function isKubeadmConfig(path: string, text: string): boolean {
  if (/(^|[\\/])kubeadm[^\\/]*\.ya?ml$/i.test(path)) return true;
  return /^apiVersion:\s*["']?kubeadm\.k8s\.io\//m.test(text.slice(0, 65536));
}

export function isFlannelManifest(path: string, text: string): boolean {
  if (/(^|[\\/])kube-flannel[^\\/]*\.ya?ml$/i.test(path)) return true;
  const head = text.slice(0, 200_000);
  return /^kind:\s*ConfigMap\s*$/m.test(head) && head.includes('net-conf.json');
}
