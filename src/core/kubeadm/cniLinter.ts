/** The CNI manifest (flannel's kube-flannel.yml) as a lintable kind: its Network must be the cluster's pod subnet. */
import { CROSS_FILE_RULES } from '../lint/crossFile';
import type { FileLinter } from '../lint/types';
import { isFlannelManifest } from './cni';

export const cniManifestLinter: FileLinter = {
  kind: 'cni-manifest',
  // its findings are the cross-file pod subnet, which the registry adds; the rules are listed for hovers
  rules: CROSS_FILE_RULES,
  detect: isFlannelManifest,
  lint: () => [],
  crossFile: true,
};
