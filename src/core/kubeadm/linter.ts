/** kubeadm configuration files as a lintable kind (see ../lint/registry.ts). */
import type { FileLinter } from '../lint/types';
import { crossFileFindingsFor } from '../lint/crossFile';
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
  lint: (file, context) => [...lintKubeadm(file, context), ...crossFileFindingsFor('kubeadm', file, context)],
};
