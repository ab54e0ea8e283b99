/**
 * "Generate cluster configs from inventory": every file the seed writes, from the inventory alone.
 * Paths are relative to the workspace folder; `host` is set for files that differ per host.
 */
import { hostsWithRole, type Inventory } from '../inventory/types';
import { assertValidInventory } from '../inventory/validate';
import { generateContainerdConfig, generateRegistryHosts, needsRegistryConfig, type ContainerdLayout } from './containerd';
import { generateHaproxyConfig } from './haproxy';
import { generateKeepalivedConfigs } from './keepalived';
import { generateKubeadmConfig } from './kubeadm';
import { AUDIT_POLICY_PATH, generateAuditPolicy } from './auditPolicy';
import { generateBalancerSysctl, generateModules, generateNodeSysctl } from './sysctl';

export interface GeneratedFile {
  path: string;
  text: string;
  /** The inventory host the file is for, when it is per host (keepalived.conf). */
  host?: string;
}

export interface GenerateOptions {
  /** containerd config layout: 2 for containerd 1.6/1.7 (default), 3 for containerd 2.x. */
  containerdLayout?: ContainerdLayout;
  /** The control-plane host `kubeadm init` runs on (default: the first one). */
  initHost?: string;
  /** Leave out the HAProxy/Keepalived files. */
  skipBalancers?: boolean;
  /** The cluster's stored VRRP password (see generateKeepalivedConfigs). */
  vrrpAuthPass?: string;
  /** An audit policy for the kubectl run timeline and the kubeadm flags that use it (default: cluster.apiServerAuditLog). */
  auditLog?: boolean;
}

export function generateClusterConfigs(inv: Inventory, options: GenerateOptions = {}): GeneratedFile[] {
  assertValidInventory(inv);
  const files: GeneratedFile[] = [];
  const auditLog = options.auditLog ?? inv.cluster.apiServerAuditLog === true;
  files.push({ path: 'kubeadm-config.yaml', text: generateKubeadmConfig(inv, { ...(options.initHost ? { initHost: options.initHost } : {}), ...(auditLog ? { auditLog: true } : {}) }) });
  if (auditLog) files.push({ path: AUDIT_POLICY_PATH.slice(1), text: generateAuditPolicy() });
  files.push({ path: 'etc/containerd/config.toml', text: generateContainerdConfig(inv, { layout: options.containerdLayout ?? 2 }) });
  if (needsRegistryConfig(inv)) files.push(...generateRegistryHosts(inv));
  files.push({ path: 'etc/sysctl.d/99-kubernetes-cri.conf', text: generateNodeSysctl() });
  files.push({ path: 'etc/modules-load.d/k8s.conf', text: generateModules() });
  const balancers = hostsWithRole(inv, 'loadbalancer');
  if (balancers.length && !options.skipBalancers) {
    files.push({ path: 'etc/sysctl.d/99-loadbalancer.conf', text: generateBalancerSysctl() });
    files.push({ path: 'haproxy.cfg', text: generateHaproxyConfig(inv) });
    const keepalived = generateKeepalivedConfigs(inv, options.vrrpAuthPass ? { authPass: options.vrrpAuthPass } : {});
    const names = Object.keys(keepalived);
    for (const [host, text] of Object.entries(keepalived)) {
      files.push({ path: names.length === 1 ? 'keepalived.conf' : `keepalived-${host}.conf`, text, host });
    }
  }
  return files;
}
