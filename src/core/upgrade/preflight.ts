/**
 * The upgrade's preflight: the facts the engine gathered (read-only, over SSH and the API) turned into findings.
 * An error refuses the upgrade before anything changes; a warning is shown with the plan. Every finding names
 * what it is about — the node, the image, the resource — so an air-gapped cluster learns which image its
 * registry lacks, not that "something" is missing.
 */
import { formatVersion, kubectlSkew, lowest, minorDistance, minorOf, parseVersion, targetProblems, type KubeVersion, type NodeVersion } from './versions';
import { DEPRECATION_GUIDE, gvOf, removedApisInUse, TABLE_COVERS_THROUGH, type ServedResource } from './removedApis';

export type UpgradeSeverity = 'error' | 'warning';

export interface UpgradeFinding {
  severity: UpgradeSeverity;
  /** Stable id, e.g. `upgrade/image-missing`. */
  rule: string;
  /** The node, image or resource the finding is about. */
  subject: string;
  message: string;
}

export interface StaticPodVersions {
  apiserver?: string;
  controllerManager?: string;
  scheduler?: string;
  etcd?: string;
}

export interface NodeFacts {
  name: string;
  role: 'control-plane' | 'worker';
  /** Why the node could not be read over SSH; the other fields are then absent. */
  unreachable?: string;
  kubeadm?: string;
  kubelet?: string;
  kubectl?: string;
  /** Image tags of the static pods' manifests (control-plane nodes). */
  staticPods?: StaticPodVersions;
  /** The Node's Ready condition (from the API); undefined: the API has no such Node or did not answer. */
  ready?: boolean;
  /** Free bytes on the file systems holding these folders. */
  diskFree?: { etcd?: number; containerd?: number };
  /** Versions of each package the target minor's package source offers to this node; absent: not asked. */
  offered?: { kubeadm: string[]; kubelet: string[]; kubectl: string[] };
  /** Why the target's package source could not be read from this node. */
  offeredError?: string;
}

export interface EtcdMemberFact {
  name: string;
  learner: boolean;
  healthy: boolean;
  problem?: string;
}

export interface CertificateFact {
  name: string;
  /** Days until it expires; negative: expired. */
  daysLeft: number;
}

export interface ImageFact {
  image: string;
  present: boolean;
  /** The registry would not say (it wants credentials): a warning, not a refusal. */
  unknown?: boolean;
  /** What the registry said, when not present. */
  detail?: string;
}

export interface UpgradeFacts {
  target: KubeVersion;
  nodes: NodeFacts[];
  coreDns?: string;
  kubeProxy?: string;
  /** Undefined with `etcdError`: etcd could not be read. */
  etcd?: EtcdMemberFact[];
  etcdError?: string;
  certificates?: CertificateFact[];
  certificatesError?: string;
  /** Every image kubeadm pulls for the target, and whether the registry has it. */
  images?: ImageFact[];
  imagesError?: string;
  served?: ServedResource[];
  servedError?: string;
}

/** Below these, the upgrade refuses (etcd must hold a snapshot and a compacted copy; new images ~ 0.5 GB per node). */
export const MIN_FREE_ETCD_BYTES = 1024 ** 3;
export const MIN_FREE_CONTAINERD_BYTES = 1024 ** 3;
/** Below these, a warning. */
export const LOW_FREE_ETCD_BYTES = 2 * 1024 ** 3;
export const LOW_FREE_CONTAINERD_BYTES = 3 * 1024 ** 3;

const GIB = 1024 ** 3;
const gib = (n: number) => `${(n / GIB).toFixed(1)} GiB`;

/** The control plane's API server versions and the kubelets' from the facts (unparseable ones are findings). */
export function versionsOf(facts: UpgradeFacts): { apiServers: NodeVersion[]; kubelets: NodeVersion[] } {
  const apiServers: NodeVersion[] = [];
  const kubelets: NodeVersion[] = [];
  for (const n of facts.nodes) {
    const a = parseVersion(n.staticPods?.apiserver);
    if (n.role === 'control-plane' && a) apiServers.push({ node: n.name, version: a });
    const k = parseVersion(n.kubelet);
    if (k) kubelets.push({ node: n.name, version: k });
  }
  return { apiServers, kubelets };
}

function at(v: string | undefined, target: KubeVersion): boolean {
  const p = parseVersion(v);
  return p !== undefined && formatVersion(p) === formatVersion(target);
}

/** The node has nothing left to upgrade: its kubelet (and on a control-plane node its static pods) are at the target. */
export function nodeAtTarget(n: NodeFacts, target: KubeVersion): boolean {
  if (!at(n.kubelet, target) || !at(n.kubeadm, target)) return false;
  if (n.role === 'worker') return true;
  return at(n.staticPods?.apiserver, target) && at(n.staticPods?.controllerManager, target) && at(n.staticPods?.scheduler, target);
}

export function preflight(facts: UpgradeFacts): UpgradeFinding[] {
  const out: UpgradeFinding[] = [];
  const add = (severity: UpgradeSeverity, rule: string, subject: string, message: string) => out.push({ severity, rule, subject, message });
  const { target } = facts;
  const tv = formatVersion(target);

  for (const n of facts.nodes) {
    if (n.unreachable !== undefined) {
      add('error', 'upgrade/node-unreachable', n.name, `${n.name} does not answer over SSH (${n.unreachable}): every node is upgraded, so every node must answer`);
      continue;
    }
    for (const [what, v] of [['kubeadm', n.kubeadm], ['kubelet', n.kubelet]] as const) {
      if (!parseVersion(v)) add('error', 'upgrade/version-unknown', n.name, `${what} on ${n.name} has no version we can read (${v ?? 'not installed'})`);
    }
    if (n.role === 'control-plane') {
      const pods = n.staticPods ?? {};
      for (const [what, v] of [['kube-apiserver', pods.apiserver], ['kube-controller-manager', pods.controllerManager], ['kube-scheduler', pods.scheduler]] as const) {
        if (!parseVersion(v)) add('error', 'upgrade/version-unknown', n.name, `the ${what} static pod on ${n.name} has no image version we can read (${v ?? 'no manifest'})`);
      }
      if (pods.apiserver && pods.controllerManager && pods.apiserver !== pods.controllerManager) {
        add('warning', 'upgrade/control-plane-mixed', n.name, `${n.name} runs kube-apiserver ${pods.apiserver} and kube-controller-manager ${pods.controllerManager}: an earlier upgrade stopped half-way; this one finishes it`);
      }
    }
    const kubectl = parseVersion(n.kubectl);
    if (kubectl && kubectlSkew(kubectl, target) > 1) add('warning', 'upgrade/kubectl-skew', n.name, `kubectl on ${n.name} is ${formatVersion(kubectl)}, more than one minor from ${tv}: it is upgraded with the kubelet`);
    if (n.ready === false) add('error', 'upgrade/node-not-ready', n.name, `the Node ${n.name} is NotReady: fix it before the upgrade (a drain would wait on it, and kubeadm's preflight refuses NotReady control-plane nodes)`);
    if (n.ready === undefined) add('error', 'upgrade/node-unknown', n.name, `the API has no Ready state for ${n.name} (not a Node, or the API did not answer)`);
    const disk = n.diskFree ?? {};
    if (n.role === 'control-plane' && disk.etcd !== undefined) {
      if (disk.etcd < MIN_FREE_ETCD_BYTES) add('error', 'upgrade/disk-etcd', n.name, `${gib(disk.etcd)} free on ${n.name}'s /var/lib/etcd: the pre-upgrade snapshot and etcd's own growth need at least ${gib(MIN_FREE_ETCD_BYTES)}`);
      else if (disk.etcd < LOW_FREE_ETCD_BYTES) add('warning', 'upgrade/disk-etcd', n.name, `only ${gib(disk.etcd)} free on ${n.name}'s /var/lib/etcd`);
    }
    if (disk.containerd !== undefined) {
      if (disk.containerd < MIN_FREE_CONTAINERD_BYTES) add('error', 'upgrade/disk-containerd', n.name, `${gib(disk.containerd)} free on ${n.name}'s /var/lib/containerd: the target's images need at least ${gib(MIN_FREE_CONTAINERD_BYTES)} (kubelet's image garbage collection would start evicting)`);
      else if (disk.containerd < LOW_FREE_CONTAINERD_BYTES) add('warning', 'upgrade/disk-containerd', n.name, `only ${gib(disk.containerd)} free on ${n.name}'s /var/lib/containerd`);
    }
    if (n.offeredError) add('error', 'upgrade/packages-unreachable', n.name, `${n.name} cannot read the package source for ${minorOf(target)}: ${n.offeredError}`);
    else if (n.offered) {
      // Workers too: kubernetes.io's worker steps upgrade kubeadm and run `kubeadm upgrade node` before the kubelet.
      for (const p of ['kubeadm', 'kubelet', 'kubectl'] as const) {
        const has = n.offered[p].some((v) => at(v, target));
        if (!has) add('error', 'upgrade/package-missing', `${n.name}: ${p}`, `the package source for ${minorOf(target)} offers ${n.name} no ${p} ${target.major}.${target.minor}.${target.patch} (offered: ${n.offered[p].join(', ') || 'none'})`);
      }
    }
  }

  const { apiServers, kubelets } = versionsOf(facts);
  for (const p of targetProblems({ apiServers, kubelets, target })) add('error', 'upgrade/skew', p.node ?? 'cluster', p.message);
  const kubeProxy = parseVersion(facts.kubeProxy);
  if (kubeProxy && minorDistance(target, kubeProxy) > 0) add('error', 'upgrade/skew', 'kube-proxy', `kube-proxy is ${formatVersion(kubeProxy)}, newer than the target ${tv}`);

  if (facts.etcdError !== undefined || !facts.etcd) add('error', 'upgrade/etcd-unreadable', 'etcd', `etcd's members could not be read: ${facts.etcdError ?? 'not asked'}`);
  else {
    for (const m of facts.etcd) {
      if (m.learner) add('error', 'upgrade/etcd-learner', m.name, `etcd member ${m.name} is a learner (an interrupted join): every member must vote before a control-plane node restarts its etcd; finish or remove that join first`);
      if (!m.healthy) add('error', 'upgrade/etcd-unhealthy', m.name, `etcd member ${m.name} is unhealthy${m.problem ? ` (${m.problem})` : ''}: restarting another member's etcd during the upgrade could lose the quorum`);
    }
    const cps = facts.nodes.filter((n) => n.role === 'control-plane').length;
    const voting = facts.etcd.filter((m) => !m.learner).length;
    if (voting !== cps) add('warning', 'upgrade/etcd-members', 'etcd', `etcd has ${voting} voting member${voting === 1 ? '' : 's'} and the inventory ${cps} control-plane node${cps === 1 ? '' : 's'}`);
  }

  if (facts.certificatesError !== undefined) add('warning', 'upgrade/certificates-unknown', 'certificates', `certificate state not read: ${facts.certificatesError}`);
  for (const c of facts.certificates ?? []) {
    if (c.daysLeft < 0) add('error', 'upgrade/certificate-expired', c.name, `the certificate ${c.name} has expired: renew it first (kubeadm-workbench certs renew); kubeadm's upgrade cannot reach the cluster with it`);
    else if (c.daysLeft < 7) add('warning', 'upgrade/certificate-expiring', c.name, `the certificate ${c.name} expires in ${c.daysLeft} day${c.daysLeft === 1 ? '' : 's'}: kubeadm upgrade renews the certificates it manages`);
  }

  if (facts.imagesError !== undefined) add('error', 'upgrade/images-unknown', 'images', `the images kubeadm pulls for ${tv} could not be checked: ${facts.imagesError}`);
  for (const i of facts.images ?? []) {
    if (i.unknown) add('warning', 'upgrade/image-unknown', i.image, `${i.image}: ${i.detail ?? 'not checked'}`);
    if (!i.present) add('error', 'upgrade/image-missing', i.image, `the registry has no ${i.image}${i.detail ? ` (${i.detail})` : ''}: kubeadm pulls it for ${tv}; push it to the registry or mirror first`);
  }

  if (facts.servedError !== undefined) add('warning', 'upgrade/served-unknown', 'APIs', `the served APIs could not be read: ${facts.servedError}`);
  const current = lowest(apiServers.map((a) => a.version));
  if (current && facts.served) {
    for (const r of removedApisInUse(facts.served, current, target)) {
      const what = `${r.api.resource}.${gvOf(r.api)}`;
      if (r.requested) add('error', 'upgrade/removed-api-in-use', what, `${r.api.kind} ${gvOf(r.api)} is removed in ${r.api.removedIn} and clients still request it: move them to ${r.api.replacement} (${DEPRECATION_GUIDE})`);
      else add('warning', 'upgrade/removed-api-objects', what, `${r.count} ${r.api.kind} object${r.count === 1 ? '' : 's'} exist while ${gvOf(r.api)} is removed in ${r.api.removedIn}: stored objects stay readable through ${r.api.replacement}; manifests that still say ${gvOf(r.api)} fail after the upgrade`);
    }
  }
  if (minorDistance(parseVersion(`${TABLE_COVERS_THROUGH}.0`)!, target) > 0) add('warning', 'upgrade/removed-api-table', 'APIs', `the removed-API table was read up to ${TABLE_COVERS_THROUGH}; ${minorOf(target)} may remove APIs it does not know`);
  return out;
}

export function refusals(findings: readonly UpgradeFinding[]): UpgradeFinding[] {
  return findings.filter((f) => f.severity === 'error');
}

/** The versions per node, as a table the plan shows above its steps. */
export function versionTable(facts: UpgradeFacts): string {
  const rows = [['node', 'role', 'kubeadm', 'kubelet', 'kubectl', 'apiserver', 'ctrl-mgr', 'scheduler', 'etcd', 'Ready']];
  for (const n of facts.nodes) {
    const p = n.staticPods ?? {};
    rows.push([n.name, n.role, n.kubeadm ?? '-', n.kubelet ?? '-', n.kubectl ?? '-', p.apiserver ?? '-', p.controllerManager ?? '-', p.scheduler ?? '-', p.etcd ?? '-', n.unreachable !== undefined ? 'no SSH' : n.ready === undefined ? '?' : n.ready ? 'yes' : 'NO']);
  }
  const widths = rows[0]!.map((_, i) => Math.max(...rows.map((r) => r[i]!.length)));
  const lines = rows.map((r) => r.map((c, i) => c.padEnd(widths[i]!)).join('  ').trimEnd());
  lines.push(`CoreDNS ${facts.coreDns ?? '?'}, kube-proxy ${facts.kubeProxy ?? '?'}; target ${formatVersion(facts.target)}`);
  return lines.join('\n');
}

export function renderFindings(findings: readonly UpgradeFinding[]): string {
  if (!findings.length) return 'preflight: nothing found';
  return findings.map((f) => `${f.severity === 'error' ? 'ERROR' : 'warning'} [${f.subject}] ${f.message}`).join('\n');
}
