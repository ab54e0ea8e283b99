/**
 * The kind of a file, by name and content, without loading any linter: each kind's test is a small module of its own
 * (../kubeadm/detect.ts, ../haproxy/detect.ts, …), so that the command line and the lint worker detect every file and
 * then load only the linters of the kinds present (../../engine/lintModules.ts). The order is the registry's (more
 * specific first); test/unit/lint/kinds.test.ts holds the two to the same order and tests.
 */
import { isContainerdConfig } from '../containerd/detect';
import { detectHaproxy } from '../haproxy/detect';
import { detectKeepalived } from '../keepalived/detect';
import { isFlannelManifest, isKubeadmConfig } from '../kubeadm/detect';
import { isModulesFile, isSysctlFile } from '../sysctl/detect';
import type { FileKind } from './types';

export function isInventoryFile(path: string): boolean {
  return /(^|[\\/])inventory\.ya?ml$/.test(path);
}

/** Each kind's test, in detection order. */
export const KIND_TESTS: ReadonlyArray<{ kind: FileKind; detect(path: string, text: string): boolean }> = [
  { kind: 'inventory', detect: isInventoryFile },
  { kind: 'cni-manifest', detect: isFlannelManifest },
  { kind: 'kubeadm', detect: isKubeadmConfig },
  { kind: 'haproxy', detect: detectHaproxy },
  { kind: 'keepalived', detect: detectKeepalived },
  { kind: 'containerd', detect: isContainerdConfig },
  { kind: 'sysctl', detect: (path, text) => isSysctlFile(path, text) },
  { kind: 'modules', detect: (path) => isModulesFile(path) },
];

export function detectKind(path: string, text: string): FileKind | undefined {
  return KIND_TESTS.find((k) => k.detect(path, text))?.kind;
}
