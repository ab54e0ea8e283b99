/** kubeadm-config.yaml and the CNI manifest, loaded together (../../../engine/lintModules.ts), with their cross-file facts. */
import { cniManifestLinter } from '../../kubeadm/cniLinter';
import { KUBEADM_FACTS } from '../../kubeadm/facts';
import { kubeadmLinter } from '../../kubeadm/linter';
import type { KindFamily } from './family';

export const FAMILY: KindFamily = { linters: [kubeadmLinter, cniManifestLinter], facts: KUBEADM_FACTS };
