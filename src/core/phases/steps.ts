/**
 * What every phase builder of the bring-up shares: a step's id from its phase, host and key, an uploaded file, the
 * apt command line, the pinned package versions and the hosts a phase runs on.
 */
import { hostsWithRole, kubernetesHosts, type HostSpec, type Inventory } from '../inventory/types';
import { raw } from '../ssh/command';
import type { Step, UploadFile } from '../plan/types';
import { t } from '../l10n';

/** Why the steps that only wait for a state (they change nothing) have no separate check. */
export const GATE = 'a gate: it only asks the host or the API for a state and changes nothing, so it is its own check';
// Our config files may be written before their package is installed: keep them (force-confold).
export const APT = raw('DEBIAN_FRONTEND=noninteractive apt-get -o DPkg::Lock::Timeout=300 -o Dpkg::Options::=--force-confold -y -q');

export function file(path: string, content: string, mode = 0o644, secretContent = false): UploadFile {
  return { path, content, mode, ...(secretContent ? { secret: true } : {}) };
}

export function step(phase: Step['phase'], host: HostSpec, key: string, rest: Omit<Step, 'id' | 'phase' | 'host'>): Step {
  return { id: `${phase}/${host.name}/${key}`, phase, host: host.name, ...rest };
}

/** Debian package versions of the Kubernetes packages are `<version>-<revision>`. */
export function pinned(inv: Inventory, pkg: string): string {
  return `${pkg}=${inv.cluster.kubernetesVersion}-*`;
}

export function nodesOf(inv: Inventory): HostSpec[] {
  return kubernetesHosts(inv);
}

export function firstControlPlane(inv: Inventory): HostSpec {
  const cp = hostsWithRole(inv, 'control-plane')[0];
  if (!cp) throw new Error(t('the inventory has no control-plane host'));
  return cp;
}
