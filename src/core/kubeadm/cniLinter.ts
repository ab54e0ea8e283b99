/** The CNI manifest (flannel's kube-flannel.yml) as a lintable kind: its Network must be the cluster's pod subnet. */
import { CROSS_FILE_RULES, crossFileFindingsFor } from '../lint/crossFile';
import type { FileLinter } from '../lint/types';
import { isFlannelManifest } from './cni';

export const cniManifestLinter: FileLinter = {
  kind: 'cni-manifest',
  rules: CROSS_FILE_RULES,
  detect: isFlannelManifest,
  lint: (file, context) => crossFileFindingsFor('cni-manifest', file, context),
};
