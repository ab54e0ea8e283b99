/**
 * Host facts: parsed from FACTS_SCRIPT's output, then checked across the inventory for the traps the
 * seed warns about — cloned VMs (same machine-id, product_uuid or SSH host key: kubelet, etcd and
 * the CNI identify a node by them), swap on, missing kernel modules and sysctls, cgroup drivers
 * that disagree, clocks that are not synchronised.
 */
import { t } from '../l10n';
import { createHash } from 'node:crypto';
import type { HostSpec, Inventory } from '../inventory/types';

export interface HostFacts {
  host: string;
  os?: { id?: string; versionId?: string; pretty?: string };
  kernel?: string;
  hostname?: string;
  machineId?: string;
  productUuid?: string;
  /** SHA256 fingerprints (OpenSSH format) of the host's public keys. */
  hostKeyFingerprints: string[];
  swapActive: string[];
  swapInFstab: string[];
  modules: { overlay: boolean; br_netfilter: boolean };
  sysctl: Record<string, string>;
  timeSynchronized?: boolean;
  timeService?: string;
  cgroupFs?: string;
  containerd?: { version?: string; active: boolean; systemdCgroup?: boolean };
  kubelet?: { version?: string; active: boolean; cgroupDriver?: string };
  kubeadmVersion?: string;
  heldPackages: string[];
  addresses: { iface: string; cidr: string }[];
  joined: { kubeletConf: boolean; adminConf: boolean; etcd: boolean };
  haproxy?: { version?: string; active: boolean };
  keepalived?: { version?: string; active: boolean };
}

export function parseFacts(host: string, output: string): HostFacts {
  const sections = new Map<string, string[]>();
  let current: string[] | undefined;
  for (const line of output.split('\n')) {
    const m = /^@@([\w-]+)$/.exec(line);
    if (m) {
      current = [];
      sections.set(m[1]!, current);
    } else current?.push(line);
  }
  const lines = (name: string): string[] => (sections.get(name) ?? []).map((l) => l.trim()).filter(Boolean);
  const first = (name: string): string | undefined => lines(name)[0];
  const kv = (name: string): Record<string, string> => Object.fromEntries(lines(name).map((l) => [l.slice(0, l.indexOf('=')), l.slice(l.indexOf('=') + 1).replace(/^"|"$/g, '')]));

  const os = kv('os');
  const modules = lines('modules').map((l) => l.split(' ')[0]);
  const sysModules = lines('sys-modules');
  const filesystems = lines('filesystems').join('\n');
  const services = kv('time-services');
  const timeService = Object.entries(services).find(([, state]) => state === 'active')?.[0];
  const containerdVersion = first('containerd')?.split(/\s+/)[2];
  const systemdCgroupLine = first('containerd-systemd-cgroup');
  const kubeletVersion = first('kubelet')?.replace(/^Kubernetes\s+/, '');
  const kubeletDriver = first('kubelet-cgroup-driver')?.split(':')[1]?.trim();
  const haproxy = lines('haproxy');
  const keepalived = lines('keepalived');
  const joined = lines('joined');
  const ntp = first('ntp');

  const facts: HostFacts = {
    host,
    os: { ...(os.ID ? { id: os.ID } : {}), ...(os.VERSION_ID ? { versionId: os.VERSION_ID } : {}), ...(os.PRETTY_NAME ? { pretty: os.PRETTY_NAME } : {}) },
    hostKeyFingerprints: lines('host-keys').map(fingerprintOfPublicKeyLine).filter((f): f is string => Boolean(f)),
    swapActive: lines('swaps').slice(1).map((l) => l.split(/\s+/)[0]!),
    swapInFstab: lines('fstab-swap'),
    modules: {
      overlay: modules.includes('overlay') || sysModules.includes('overlay') || /\boverlay\b/.test(filesystems),
      br_netfilter: modules.includes('br_netfilter') || sysModules.includes('br_netfilter') || first('bridge-nf') === 'present',
    },
    sysctl: kv('sysctl'),
    heldPackages: lines('held'),
    addresses: lines('addresses').map((l) => {
      const parts = l.split(/\s+/);
      return { iface: parts[1]!, cidr: parts[3]! };
    }),
    joined: { kubeletConf: joined.includes('kubelet.conf'), adminConf: joined.includes('admin.conf'), etcd: joined.includes('etcd') },
  };
  const set = <K extends keyof HostFacts>(k: K, v: HostFacts[K] | undefined): void => {
    if (v !== undefined && v !== '') facts[k] = v;
  };
  set('kernel', first('kernel'));
  set('hostname', first('hostname'));
  set('machineId', first('machine-id'));
  set('productUuid', first('product-uuid')?.toLowerCase());
  if (ntp === 'yes' || ntp === 'no') facts.timeSynchronized = ntp === 'yes';
  set('timeService', timeService);
  set('cgroupFs', first('cgroup'));
  if (containerdVersion || first('containerd-state') === 'active') {
    facts.containerd = {
      active: first('containerd-state') === 'active',
      ...(containerdVersion ? { version: containerdVersion } : {}),
      ...(systemdCgroupLine ? { systemdCgroup: /=\s*true/.test(systemdCgroupLine) } : {}),
    };
  }
  if (kubeletVersion || first('kubelet-state') === 'active') {
    facts.kubelet = { active: first('kubelet-state') === 'active', ...(kubeletVersion ? { version: kubeletVersion } : {}), ...(kubeletDriver ? { cgroupDriver: kubeletDriver } : {}) };
  }
  set('kubeadmVersion', first('kubeadm'));
  if (haproxy.length) facts.haproxy = { active: haproxy.includes('active'), ...(haproxy[0]?.startsWith('HAProxy') || haproxy[0]?.startsWith('HA-Proxy') ? { version: haproxy[0] } : {}) };
  if (keepalived.length) facts.keepalived = { active: keepalived.includes('active'), ...(/^Keepalived/.test(keepalived[0] ?? '') ? { version: keepalived[0] } : {}) };
  return facts;
}

/** `ssh-ed25519 AAAA... comment` → `SHA256:...` exactly as `ssh-keygen -lf` prints it. */
export function fingerprintOfPublicKeyLine(line: string): string | undefined {
  const blob = line.trim().split(/\s+/)[1];
  if (!blob) return undefined;
  const digest = createHash('sha256').update(Buffer.from(blob, 'base64')).digest('base64').replace(/=+$/, '');
  return `SHA256:${digest}`;
}

export type FactSeverity = 'error' | 'warning' | 'info';

export interface FactFinding {
  host: string;
  rule: string;
  severity: FactSeverity;
  message: string;
  why: string;
}

const NODE_ROLES = new Set(['control-plane', 'worker', 'etcd']);

export function analyzeFacts(inv: Inventory, facts: HostFacts[]): FactFinding[] {
  const out: FactFinding[] = [];
  const byName = new Map(inv.hosts.map((h) => [h.name, h] as const));
  const add = (host: string, rule: string, severity: FactSeverity, message: string, why: string): void => void out.push({ host, rule, severity, message, why });

  duplicates(facts, (f) => (f.machineId ? [f.machineId] : []), (hosts, value) =>
    hosts.forEach((h) => add(h, 'facts/cloned-machine-id', 'error', t('machine-id {0}… is shared by {1}.', value.slice(0, 8), hosts.join(', ')), t('A cloned VM keeps its machine-id; systemd, DHCP and journald treat clones as one machine, and kubeadm nodes must be unique. Run `rm /etc/machine-id && systemd-machine-id-setup` on the clone.'))));
  duplicates(facts, (f) => (f.productUuid ? [f.productUuid] : []), (hosts, value) =>
    hosts.forEach((h) => add(h, 'facts/cloned-product-uuid', 'error', t('product_uuid {0} is shared by {1}.', value, hosts.join(', ')), t('kubeadm requires a unique product_uuid per node; identical ones come from cloned VMs and confuse kubelet and CNI plugins.'))));
  duplicates(facts, (f) => f.hostKeyFingerprints, (hosts, value) =>
    hosts.forEach((h) => add(h, 'facts/cloned-host-key', 'error', t('SSH host key {0} is shared by {1}.', value, hosts.join(', ')), t('Cloned host keys let one machine impersonate another; regenerate them with `rm /etc/ssh/ssh_host_* && dpkg-reconfigure openssh-server`.'))));

  for (const f of facts) {
    const spec = byName.get(f.host);
    const isNode = spec?.roles.some((r) => NODE_ROLES.has(r)) ?? false;
    const isBalancer = spec?.roles.includes('loadbalancer') ?? false;
    if (f.os?.id && (f.os.id !== 'debian' || f.os.versionId !== '12')) add(f.host, 'facts/os', 'warning', t('{0} is not Debian 12.', f.os.pretty ?? f.os.id), t('The procedure and package sources are written for Debian 12 (bookworm).'));
    if (spec && !f.addresses.some((a) => a.cidr.split('/')[0] === spec.address)) add(f.host, 'facts/address', 'error', t('inventory address {0} is not on any interface ({1}).', spec.address, f.addresses.map((a) => `${a.iface} ${a.cidr}`).join(', ') || t('none')), t('kubeadm advertises and etcd listens on this address; a wrong one breaks the join.'));
    if (spec?.vrrp && !f.addresses.some((a) => a.iface === spec.vrrp!.interface)) add(f.host, 'facts/vrrp-interface', 'error', t('VRRP interface {0} does not exist ({1}).', spec.vrrp.interface, [...new Set(f.addresses.map((a) => a.iface))].join(', ')), t('Keepalived puts the VIP on this interface; check `ip a` as the seed says.'));
    if (f.hostname && spec && f.hostname !== spec.name && f.hostname.split('.')[0] !== spec.name) add(f.host, 'facts/hostname', 'warning', t('hostname is {0}, the inventory says {1}.', f.hostname, spec.name), t('kubeadm registers the node under its hostname unless told otherwise; mismatches produce surprising Node names.'));
    if (isNode && (f.swapActive.length || f.swapInFstab.length)) add(f.host, 'facts/swap', 'error', f.swapActive.length ? t('swap is on ({0}).', f.swapActive.join(', ')) : t('swap is configured in /etc/fstab.'), t('kubelet refuses to start with swap on by default, and swapping breaks the scheduler\'s memory guarantees.'));
    if (isNode && !f.modules.overlay) add(f.host, 'facts/module-overlay', 'error', t('kernel module overlay is not available.'), t('containerd\'s overlayfs snapshotter needs it for every container layer.'));
    if (isNode && !f.modules.br_netfilter) add(f.host, 'facts/module-br-netfilter', 'error', t('kernel module br_netfilter is not loaded.'), t('Without it bridged pod traffic bypasses iptables and Services stop working.'));
    if (isNode) {
      for (const key of ['net.bridge.bridge-nf-call-iptables', 'net.bridge.bridge-nf-call-ip6tables', 'net.ipv4.ip_forward']) {
        if (f.sysctl[key] !== undefined && f.sysctl[key] !== '1') add(f.host, 'facts/sysctl', 'error', t('{0} = {1}, needs 1.', key, f.sysctl[key] || t('unset')), t('Pods on the bridge must pass through iptables and the node must route between pods and Services.'));
      }
    }
    if (isBalancer && f.sysctl['net.ipv4.ip_nonlocal_bind'] !== undefined && f.sysctl['net.ipv4.ip_nonlocal_bind'] !== '1') add(f.host, 'facts/nonlocal-bind', 'warning', t('net.ipv4.ip_nonlocal_bind = {0}, needs 1 on a balancer.', f.sysctl['net.ipv4.ip_nonlocal_bind']), t('HAProxy must bind the VIP before Keepalived brings it up, or it crash-loops at boot.'));
    if (f.timeSynchronized === false) add(f.host, 'facts/time', 'warning', f.timeService ? t('the clock is not synchronised ({0} active).', f.timeService) : t('the clock is not synchronised (no time service active).'), t('Certificates and etcd leases depend on agreeing clocks; skew breaks TLS and leader election.'));
    if (isNode && f.containerd?.systemdCgroup === false) add(f.host, 'facts/containerd-cgroup', 'error', t('containerd uses the cgroupfs driver (SystemdCgroup = false).'), t('kubelet uses systemd; two cgroup managers on one node make it unstable under memory pressure.'));
    if (isNode && f.kubelet?.cgroupDriver && f.kubelet.cgroupDriver !== 'systemd') add(f.host, 'facts/kubelet-cgroup', 'error', t('kubelet cgroupDriver is {0}.', f.kubelet.cgroupDriver), t('kubelet and containerd must both use systemd on a systemd host.'));
    const want = inv.cluster.kubernetesVersion;
    for (const [what, have] of [['kubeadm', f.kubeadmVersion], ['kubelet', f.kubelet?.version]] as const) {
      if (isNode && have && have.replace(/^v/, '') !== want) add(f.host, 'facts/version', 'warning', t('{0} is {1}, the inventory pins {2}.', what, have, want), t('kubeadm and kubelet must match the cluster version (kubelet may lag by minor versions only during upgrades).'));
    }
  }
  return out;
}

function duplicates(facts: HostFacts[], values: (f: HostFacts) => string[], report: (hosts: string[], value: string) => void): void {
  const seen = new Map<string, string[]>();
  for (const f of facts) for (const v of new Set(values(f))) seen.set(v, [...(seen.get(v) ?? []), f.host]);
  for (const [value, hosts] of seen) if (hosts.length > 1) report(hosts, value);
}

export function hostSpec(inv: Inventory, name: string): HostSpec | undefined {
  return inv.hosts.find((h) => h.name === name);
}
