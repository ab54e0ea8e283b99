/**
 * The upgrade's preflight: the facts the engine gathered (read-only, over SSH and the API) turned into findings.
 * An error refuses the upgrade before anything changes; a warning is shown with the plan. Every finding names
 * what it is about — the node, the image, the resource — so an air-gapped cluster learns which image its
 * registry lacks, not that "something" is missing.
 */
import { t } from '../l10n';
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
      add('error', 'upgrade/node-unreachable', n.name, t('{0} does not answer over SSH ({1}): every node is upgraded, so every node must answer', n.name, n.unreachable));
      continue;
    }
    for (const [what, v] of [['kubeadm', n.kubeadm], ['kubelet', n.kubelet]] as const) {
      if (!parseVersion(v)) add('error', 'upgrade/version-unknown', n.name, t('{0} on {1} has no version we can read ({2})', what, n.name, v ?? t('not installed')));
    }
    if (n.role === 'control-plane') {
      const pods = n.staticPods ?? {};
      for (const [what, v] of [['kube-apiserver', pods.apiserver], ['kube-controller-manager', pods.controllerManager], ['kube-scheduler', pods.scheduler]] as const) {
        if (!parseVersion(v)) add('error', 'upgrade/version-unknown', n.name, t('the {0} static pod on {1} has no image version we can read ({2})', what, n.name, v ?? t('no manifest')));
      }
      if (pods.apiserver && pods.controllerManager && pods.apiserver !== pods.controllerManager) {
        add('warning', 'upgrade/control-plane-mixed', n.name, t('{0} runs kube-apiserver {1} and kube-controller-manager {2}: an earlier upgrade stopped half-way; this one finishes it', n.name, pods.apiserver, pods.controllerManager));
      }
    }
    const kubectl = parseVersion(n.kubectl);
    if (kubectl && kubectlSkew(kubectl, target) > 1) add('warning', 'upgrade/kubectl-skew', n.name, t('kubectl on {0} is {1}, more than one minor from {2}: it is upgraded with the kubelet', n.name, formatVersion(kubectl), tv));
    if (n.ready === false) add('error', 'upgrade/node-not-ready', n.name, t('the Node {0} is NotReady: fix it before the upgrade (a drain would wait on it, and kubeadm\'s preflight refuses NotReady control-plane nodes)', n.name));
    if (n.ready === undefined) add('error', 'upgrade/node-unknown', n.name, t('the API has no Ready state for {0} (not a Node, or the API did not answer)', n.name));
    const disk = n.diskFree ?? {};
    if (n.role === 'control-plane' && disk.etcd !== undefined) {
      if (disk.etcd < MIN_FREE_ETCD_BYTES) add('error', 'upgrade/disk-etcd', n.name, t('{0} free on {1}\'s /var/lib/etcd: the pre-upgrade snapshot and etcd\'s own growth need at least {2}', gib(disk.etcd), n.name, gib(MIN_FREE_ETCD_BYTES)));
      else if (disk.etcd < LOW_FREE_ETCD_BYTES) add('warning', 'upgrade/disk-etcd', n.name, t('only {0} free on {1}\'s /var/lib/etcd', gib(disk.etcd), n.name));
    }
    if (disk.containerd !== undefined) {
      if (disk.containerd < MIN_FREE_CONTAINERD_BYTES) add('error', 'upgrade/disk-containerd', n.name, t('{0} free on {1}\'s /var/lib/containerd: the target\'s images need at least {2} (kubelet\'s image garbage collection would start evicting)', gib(disk.containerd), n.name, gib(MIN_FREE_CONTAINERD_BYTES)));
      else if (disk.containerd < LOW_FREE_CONTAINERD_BYTES) add('warning', 'upgrade/disk-containerd', n.name, t('only {0} free on {1}\'s /var/lib/containerd', gib(disk.containerd), n.name));
    }
    if (n.offeredError) add('error', 'upgrade/packages-unreachable', n.name, t('{0} cannot read the package source for {1}: {2}', n.name, minorOf(target), n.offeredError));
    else if (n.offered) {
      // Workers too: kubernetes.io's worker steps upgrade kubeadm and run `kubeadm upgrade node` before the kubelet.
      for (const p of ['kubeadm', 'kubelet', 'kubectl'] as const) {
        const has = n.offered[p].some((v) => at(v, target));
        if (!has) add('error', 'upgrade/package-missing', `${n.name}: ${p}`, t('the package source for {0} offers {1} no {2} {3}.{4}.{5} (offered: {6})', minorOf(target), n.name, p, target.major, target.minor, target.patch, n.offered[p].join(', ') || t('none')));
      }
    }
  }

  const { apiServers, kubelets } = versionsOf(facts);
  for (const p of targetProblems({ apiServers, kubelets, target })) add('error', 'upgrade/skew', p.node ?? 'cluster', p.message);
  const kubeProxy = parseVersion(facts.kubeProxy);
  if (kubeProxy && minorDistance(target, kubeProxy) > 0) add('error', 'upgrade/skew', 'kube-proxy', t('kube-proxy is {0}, newer than the target {1}', formatVersion(kubeProxy), tv));

  if (facts.etcdError !== undefined || !facts.etcd) add('error', 'upgrade/etcd-unreadable', 'etcd', t('etcd\'s members could not be read: {0}', facts.etcdError ?? t('not asked')));
  else {
    for (const m of facts.etcd) {
      if (m.learner) add('error', 'upgrade/etcd-learner', m.name, t('etcd member {0} is a learner (an interrupted join): every member must vote before a control-plane node restarts its etcd; finish or remove that join first', m.name));
      if (!m.healthy) add('error', 'upgrade/etcd-unhealthy', m.name, m.problem ? t('etcd member {0} is unhealthy ({1}): restarting another member\'s etcd during the upgrade could lose the quorum', m.name, m.problem) : t('etcd member {0} is unhealthy: restarting another member\'s etcd during the upgrade could lose the quorum', m.name));
    }
    const cps = facts.nodes.filter((n) => n.role === 'control-plane').length;
    const voting = facts.etcd.filter((m) => !m.learner).length;
    if (voting !== cps) add('warning', 'upgrade/etcd-members', 'etcd', t('etcd has {0} and the inventory {1}', voting === 1 ? t('1 voting member') : t('{0} voting members', voting), cps === 1 ? t('1 control-plane node') : t('{0} control-plane nodes', cps)));
  }

  if (facts.certificatesError !== undefined) add('warning', 'upgrade/certificates-unknown', 'certificates', t('certificate state not read: {0}', facts.certificatesError));
  for (const c of facts.certificates ?? []) {
    if (c.daysLeft < 0) add('error', 'upgrade/certificate-expired', c.name, t('the certificate {0} has expired: renew it first (kubeadm-workbench certs renew); kubeadm\'s upgrade cannot reach the cluster with it', c.name));
    else if (c.daysLeft < 7) add('warning', 'upgrade/certificate-expiring', c.name, (c.daysLeft === 1 ? t('the certificate {0} expires in 1 day: kubeadm upgrade renews the certificates it manages', c.name) : t('the certificate {0} expires in {1} days: kubeadm upgrade renews the certificates it manages', c.name, c.daysLeft)));
  }

  if (facts.imagesError !== undefined) add('error', 'upgrade/images-unknown', 'images', t('the images kubeadm pulls for {0} could not be checked: {1}', tv, facts.imagesError));
  for (const i of facts.images ?? []) {
    if (i.unknown) add('warning', 'upgrade/image-unknown', i.image, t('{0}: {1}', i.image, i.detail ?? t('not checked')));
    if (!i.present) add('error', 'upgrade/image-missing', i.image, i.detail ? t('the registry has no {0} ({1}): kubeadm pulls it for {2}; push it to the registry or mirror first', i.image, i.detail, tv) : t('the registry has no {0}: kubeadm pulls it for {1}; push it to the registry or mirror first', i.image, tv));
  }

  if (facts.servedError !== undefined) add('warning', 'upgrade/served-unknown', 'APIs', t('the served APIs could not be read: {0}', facts.servedError));
  const current = lowest(apiServers.map((a) => a.version));
  if (current && facts.served) {
    for (const r of removedApisInUse(facts.served, current, target)) {
      const what = `${r.api.resource}.${gvOf(r.api)}`;
      if (r.requested) add('error', 'upgrade/removed-api-in-use', what, t('{0} {1} is removed in {2} and clients still request it: move them to {3} ({4})', r.api.kind, gvOf(r.api), r.api.removedIn, r.api.replacement, DEPRECATION_GUIDE));
      else add('warning', 'upgrade/removed-api-objects', what, (r.count === 1 ? t('1 {0} object exist while {1} is removed in {2}: stored objects stay readable through {3}; manifests that still say {1} fail after the upgrade', r.api.kind, gvOf(r.api), r.api.removedIn, r.api.replacement) : t('{0} {1} objects exist while {2} is removed in {3}: stored objects stay readable through {4}; manifests that still say {2} fail after the upgrade', r.count, r.api.kind, gvOf(r.api), r.api.removedIn, r.api.replacement)));
    }
  }
  if (minorDistance(parseVersion(`${TABLE_COVERS_THROUGH}.0`)!, target) > 0) add('warning', 'upgrade/removed-api-table', 'APIs', t('the removed-API table was read up to {0}; {1} may remove APIs it does not know', TABLE_COVERS_THROUGH, minorOf(target)));
  return out;
}

export function refusals(findings: readonly UpgradeFinding[]): UpgradeFinding[] {
  return findings.filter((f) => f.severity === 'error');
}

/** The versions per node, as a table the plan shows above its steps. */
export function versionTable(facts: UpgradeFacts): string {
  const rows = [[t('node'), t('role'), 'kubeadm', 'kubelet', 'kubectl', 'apiserver', 'ctrl-mgr', 'scheduler', 'etcd', 'Ready']];
  for (const n of facts.nodes) {
    const p = n.staticPods ?? {};
    const ready = n.unreachable !== undefined ? t('no SSH') : n.ready === undefined ? '?' : n.ready ? t('yes') : t('NO');
    rows.push([n.name, n.role === 'control-plane' ? t('control-plane') : t('worker'), n.kubeadm ?? '-', n.kubelet ?? '-', n.kubectl ?? '-', p.apiserver ?? '-', p.controllerManager ?? '-', p.scheduler ?? '-', p.etcd ?? '-', ready]);
  }
  const widths = rows[0]!.map((_, i) => Math.max(...rows.map((r) => r[i]!.length)));
  const lines = rows.map((r) => r.map((c, i) => c.padEnd(widths[i]!)).join('  ').trimEnd());
  lines.push(t('CoreDNS {0}, kube-proxy {1}; target {2}', facts.coreDns ?? '?', facts.kubeProxy ?? '?', formatVersion(facts.target)));
  return lines.join('\n');
}

export function renderFindings(findings: readonly UpgradeFinding[]): string {
  if (!findings.length) return t('preflight: nothing found');
  return findings.map((f) => `${f.severity === 'error' ? 'ERROR' : 'warning'} [${f.subject}] ${f.message}`).join('\n');
}
