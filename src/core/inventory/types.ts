/**
 * The inventory: the single source of truth for one cluster (inventory.yaml in the workspace).
 * Every phase, rule and view reads this model, never the YAML directly.
 */
import type { Range } from '../findings';

export const ROLES = ['loadbalancer', 'control-plane', 'worker', 'etcd'] as const;
export type Role = (typeof ROLES)[number];

export const CNIS = ['flannel', 'calico'] as const;
export type Cni = (typeof CNIS)[number];

export interface SshSettings {
  user?: string;
  port?: number;
  identityFile?: string;
  /** OpenSSH ProxyJump syntax: `[user@]host[:port][,next...]`, or the name of an inventory host. */
  proxyJump?: string;
}

export interface VrrpSettings {
  state: 'MASTER' | 'BACKUP';
  priority: number;
  interface: string;
  /** Same on every balancer of the cluster; defaults to 51 as in the seed. */
  virtualRouterId?: number;
}

export interface HostSpec {
  name: string;
  address: string;
  roles: Role[];
  ssh?: SshSettings;
  vrrp?: VrrpSettings;
  /** Free-form labels the user wants on the Node. */
  labels?: Record<string, string>;
}

export interface PackageSource {
  /** apt line for the Kubernetes packages, e.g. `deb [signed-by=...] https://pkgs.k8s.io/core:/stable:/v1.30/deb/ /`. */
  kubernetesApt?: string;
  /** URL of the key that signs kubernetesApt. */
  kubernetesAptKey?: string;
  /** SHA-256 of that key file: required for an http URL, checked on the node before the key is installed. */
  kubernetesAptKeySha256?: string;
  /** apt line for Debian packages (containerd, haproxy, keepalived) in air-gapped sites. */
  debianApt?: string;
  /** URL of the key that signs debianApt. */
  debianAptKey?: string;
  debianAptKeySha256?: string;
}

export interface ClusterSpec {
  name: string;
  kubernetesVersion: string;
  /** `host:port` of the VIP on the load balancers, never a node's own address. */
  controlPlaneEndpoint: string;
  podSubnet: string;
  serviceSubnet: string;
  cni: Cni;
  /** Where kubeadm pulls control-plane images from (air-gapped registries). */
  imageRepository?: string;
  /** Registry host → mirror endpoints, written into containerd's hosts configuration. */
  registryMirrors?: Record<string, string[]>;
  packages?: PackageSource;
  /** The CNI manifest to apply after init: a workspace-relative path or an https URL. */
  cniManifest?: string;
  /** SHA-256 of the CNI manifest (required for an http URL), checked before it is applied with the admin kubeconfig. */
  cniManifestSha256?: string;
  /** kubeadm preflight checks to ignore on every init/join, e.g. SystemVerification on cgroup v1 hosts. */
  ignorePreflightErrors?: string[];
  containerd?: ContainerdOptions;
  /**
   * A YAML file (relative to the inventory) whose documents — a KubeProxyConfiguration, kubelet
   * tweaks — are added to the generated kubeadm-config.yaml, replacing a generated document of
   * the same kind. For site specifics the inventory does not model.
   */
  kubeadmExtraConfig?: string;
  /**
   * The API servers write an audit log of pod creates, bindings and status writes (policy in
   * core/generate/auditPolicy.ts): what the `kubectl run` timeline reads for the API server's own stages.
   */
  apiServerAuditLog?: boolean;
}

export interface ContainerdOptions {
  /**
   * Hosts without CAP_SYS_RESOURCE (nodes that are themselves containers: LXC, systemd-nspawn)
   * cannot lower a process's OOM score; containerd must then clamp it instead of failing every
   * container start.
   */
  restrictOomScoreAdj?: boolean;
}

export interface Inventory {
  cluster: ClusterSpec;
  ssh: SshSettings;
  hosts: HostSpec[];
}

/** Where each part of the inventory sits in the file, so views and diagnostics can point at it. */
export interface InventoryLocations {
  hosts: Map<string, Range>;
  fields: Map<string, Range>;
}

export function hostsWithRole(inv: Inventory, role: Role): HostSpec[] {
  return inv.hosts.filter((h) => h.roles.includes(role));
}

/** The names of the hosts with one of the roles, in inventory order (the hosts an operation's preflight checks). */
export function hostsWith(inv: Inventory, ...roles: Role[]): string[] {
  return inv.hosts.filter((h) => h.roles.some((r) => roles.includes(r))).map((h) => h.name);
}

/** A host that is (or becomes) a Kubernetes node: a control-plane node or a worker — not a bare load balancer. */
export function isKubernetesHost(h: { roles: readonly string[] }): boolean {
  return h.roles.includes('control-plane') || h.roles.includes('worker');
}

/** The inventory's Kubernetes nodes (control plane and workers), in inventory order. */
export function kubernetesHosts(inv: Inventory): HostSpec[] {
  return inv.hosts.filter(isKubernetesHost);
}

export function splitEndpoint(endpoint: string): { host: string; port: number } | undefined {
  const m = /^\[?([^\]]+?)\]?:(\d{1,5})$/.exec(endpoint.trim());
  if (!m) return undefined;
  const port = Number(m[2]);
  if (port < 1 || port > 65535) return undefined;
  return { host: m[1]!, port };
}

/** The effective SSH settings for a host: defaults overlaid with the host's own. */
export function sshFor(inv: Inventory, host: HostSpec): Required<Pick<SshSettings, 'user' | 'port'>> & SshSettings {
  return { user: 'root', port: 22, ...inv.ssh, ...host.ssh };
}
