/** kubeadm configuration files as a lintable kind (see ../lint/registry.ts). */
import type { FileLinter } from '../lint/types';
import { lintKubeadm } from './lint';
import { KUBEADM_RULES } from './rules';

export function isKubeadmConfig(path: string, text: string): boolean {
  if (/(^|[\\/])kubeadm[^\\/]*\.ya?ml$/i.test(path)) return true;
  return /^apiVersion:\s*["']?kubeadm\.k8s\.io\//m.test(text.slice(0, 65536));
}

export const kubeadmLinter: FileLinter = {
  kind: 'kubeadm',
  rules: KUBEADM_RULES,
  detect: isKubeadmConfig,
  lint: lintKubeadm,
  crossFile: true,
};
