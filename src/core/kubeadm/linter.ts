/** kubeadm configuration files as a lintable kind (see ../lint/registry.ts). */
import type { FileLinter } from '../lint/types';
import { lintKubeadm } from './lint';
import { KUBEADM_RULES } from './rules';
import { isKubeadmConfig } from './detect';

export { isKubeadmConfig };


export const kubeadmLinter: FileLinter = {
  kind: 'kubeadm',
  rules: KUBEADM_RULES,
  detect: isKubeadmConfig,
  lint: lintKubeadm,
  crossFile: true,
};
