/** The nodes' system files, loaded together (../../../engine/lintModules.ts): containerd's config.toml, sysctl.d and modules-load.d. */
import { containerdLinter } from '../../containerd/linter';
import { modulesLinter, sysctlLinter } from '../../sysctl/linter';
import type { KindFamily } from './family';

export const FAMILY: KindFamily = { linters: [containerdLinter, sysctlLinter, modulesLinter], facts: {} };
