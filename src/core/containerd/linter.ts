/** containerd config.toml as a lintable kind (see ../lint/registry.ts). */
import { fileTargets, isForNodes } from '../lint/targets';
import type { FileLinter } from '../lint/types';
import { CONTAINERD_RULES, isContainerdConfig, lintContainerd } from './lint';

/** What the Kubernetes nodes need of containerd; a config for other hosts (a balancer's) is not asked it. */
const NODE_ONLY = new Set(['containerd/cri-disabled', 'containerd/systemd-cgroup', 'containerd/sandbox-image', 'containerd/registry-config-path', 'containerd/registry-hosts']);

export const containerdLinter: FileLinter = {
  kind: 'containerd',
  rules: CONTAINERD_RULES,
  detect: isContainerdConfig,
  lint: (file, context) => {
    if (!isForNodes(fileTargets(file.path, file.text, context.inventory))) return lintContainerd(file, {}).filter((f) => !NODE_ONLY.has(f.rule));
    return lintContainerd(file, context);
  },
};
