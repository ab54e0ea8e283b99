/** sysctl.d and modules-load.d files as lintable kinds (see ../lint/registry.ts). */
import type { FileLinter } from '../lint/types';
import { SYSCTL_RULES, isModulesFile, isSysctlFile, lintModules, lintSysctl } from './lint';

export const sysctlLinter: FileLinter = {
  kind: 'sysctl',
  rules: SYSCTL_RULES.filter((r) => !r.id.startsWith('modules/')),
  detect: (path, text) => isSysctlFile(path, text),
  lint: lintSysctl,
};

export const modulesLinter: FileLinter = {
  kind: 'modules',
  rules: SYSCTL_RULES.filter((r) => r.id.startsWith('modules/')),
  detect: (path) => isModulesFile(path),
  lint: lintModules,
};
