/** containerd config.toml as a lintable kind (see ../lint/registry.ts). */
import { crossFileFindingsFor } from '../lint/crossFile';
import type { FileLinter } from '../lint/types';
import { CONTAINERD_RULES, isContainerdConfig, lintContainerd } from './lint';

export const containerdLinter: FileLinter = {
  kind: 'containerd',
  rules: CONTAINERD_RULES,
  detect: isContainerdConfig,
  lint: (file, context) => [...lintContainerd(file, context), ...crossFileFindingsFor('containerd', file, context)],
};
