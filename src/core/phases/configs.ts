/**
 * The files the bring-up phases write to hosts. They come from the generators (the same ones the
 * "Generate cluster configs" command and the rules use), so what runs is what was linted.
 */
export interface PhaseConfigs {
  /** /etc/modules-load.d/k8s.conf on every node. */
  modules: string;
  /** /etc/sysctl.d/99-kubernetes-cri.conf on every node. */
  nodeSysctl: string;
  /** /etc/sysctl.d/99-haproxy-vip.conf on balancers (ip_nonlocal_bind). */
  balancerSysctl: string;
  /** /etc/containerd/config.toml on every node. */
  containerdConfig: string;
  /** Extra files for containerd's registry hosts (path → content), e.g. /etc/containerd/certs.d/<registry>/hosts.toml. */
  containerdHosts: Record<string, string>;
  haproxyConfig: string;
  /** keepalived.conf per balancer host name. */
  keepalivedConfig: Record<string, string>;
  /** kubeadm-config.yaml for `kubeadm init` on the first control-plane node. */
  kubeadmInitConfig: string;
  /**
   * The API server's audit policy (cluster.apiServerAuditLog), uploaded to every control-plane node before
   * kubeadm init/join: the kubeadm config names it, so an API server started without it would not start.
   */
  auditPolicy?: string;
}

/** How nodes get packages and the CNI manifest; from the inventory, or the lab's local sources. */
export interface PhaseSources {
  /** The apt line for /etc/apt/sources.list.d/kubernetes.list; absent: the host already has a source. */
  kubernetesApt?: string;
  /** URL of the key that signs it; the host downloads it into the keyring the line's signed-by names. */
  kubernetesAptKey?: string;
  /** Its sha256 pin (required for an http URL): checked on the node before the key is installed. */
  kubernetesAptKeySha256?: string;
  /** The apt line for Debian packages (air-gapped mirrors), written to debian-local.list. */
  debianApt?: string;
  debianAptKey?: string;
  debianAptKeySha256?: string;
  /** The CNI manifest text (applied with kubectl on the first control-plane node)... */
  cniManifest: string;
  /** ...or the URL the first control-plane node downloads it from. */
  cniManifestUrl?: string;
  /** The manifest's sha256 pin (required for an http URL): the node checks the download before applying it. */
  cniManifestSha256?: string;
  /** Extra preflight errors to ignore, e.g. SystemVerification on cgroup v1 hosts. */
  ignorePreflightErrors?: string[];
}
