/**
 * Control Plane model: per control-plane node its four static pods as seen through their mirror pods,
 * the node's readiness and taints, and the cluster add-ons (CoreDNS, kube-proxy, the CNI DaemonSet).
 *
 * Static vs mirror: kubelet runs static pods from /etc/kubernetes/manifests and publishes a mirror pod
 * carrying `kubernetes.io/config.mirror` (and `kubernetes.io/config.source: file`), owned by the Node.
 *
 * Drift, method: kubelet's config.hash is an FNV hash over its internal pod object (defaults applied),
 * not reproducible from the YAML. So two checks instead:
 *  1. `manifestDrift()` compares the manifest read over SSH with the mirror pod's spec on the fields
 *     kubeadm changes (image, command, args of each container): a difference means kubelet has not
 *     picked up the file (or the mirror is stale);
 *  2. `config.hash` vs `config.mirror` on the mirror pod, and config.hash changes across reads
 *     (tracked by the caller): a static pod that was re-created from a changed manifest.
 */
import { t } from '../l10n';
import type { HostSpec, Inventory } from '../inventory/types';
import { parseTime, type Condition, type Container, type DaemonSet, type Deployment, type Node, type Pod } from './types';

export const CONTROL_PLANE_COMPONENTS = ['etcd', 'kube-apiserver', 'kube-controller-manager', 'kube-scheduler'] as const;
export type Component = (typeof CONTROL_PLANE_COMPONENTS)[number];

export const MIRROR_ANNOTATION = 'kubernetes.io/config.mirror';
export const SOURCE_ANNOTATION = 'kubernetes.io/config.source';
export const HASH_ANNOTATION = 'kubernetes.io/config.hash';
const CP_LABEL = 'node-role.kubernetes.io/control-plane';

export type NodeReadiness = 'Ready' | 'NotReady' | 'Unknown';

export interface ComponentPod {
  component: Component;
  podName: string;
  /** False when no pod of this component exists on the node (description says "missing"). */
  present: boolean;
  phase: string;
  readyContainers: number;
  totalContainers: number;
  ready: boolean;
  restarts: number;
  /** kubectl's AGE: since the pod object was created (creationTimestamp), else since it started. */
  ageMs: number | undefined;
  mirror: boolean;
  source: string | undefined;
  configHash: string | undefined;
  /** config.hash differs from config.mirror: kubelet is replacing the mirror pod. */
  mirrorStale: boolean;
  /** Waiting/terminated reason of a container that is not running, e.g. CrashLoopBackOff. */
  reason: string | undefined;
  /** Filled by the caller from `manifestDrift()` when the manifest could be read over SSH. */
  drift?: DriftResult;
  /**
   * The node is not Ready: this status is what its kubelet last reported, not the present (kubectl still prints it).
   * Such a pod is never counted ready.
   */
  stale?: boolean;
}

export interface ControlPlaneNode {
  name: string;
  /** The inventory host of this node, when the inventory names it. */
  host: string | undefined;
  readiness: NodeReadiness;
  readyReason: string | undefined;
  taints: string[];
  unschedulable: boolean;
  kubeletVersion: string | undefined;
  /** The tag of the kube-apiserver pod's image on this node (kubeadm tags it with the Kubernetes version). */
  apiServerVersion?: string;
  components: ComponentPod[];
}

export interface Addon {
  name: string;
  kind: 'Deployment' | 'DaemonSet';
  namespace: string;
  role: 'dns' | 'proxy' | 'cni';
  desired: number;
  ready: number;
  healthy: boolean;
}

export interface ControlPlaneModel {
  nodes: ControlPlaneNode[];
  addons: Addon[];
}

export interface ControlPlaneInput {
  now: number;
  pods: Pod[];
  nodes: Node[];
  daemonSets: DaemonSet[];
  deployments: Deployment[];
  inventory?: Inventory | undefined;
}

/**
 * The node's status word as kubectl prints it: `Ready` when the Ready condition is True, `NotReady` when it is False
 * or Unknown (the node controller sets Unknown when the kubelet stops reporting — kubectl still says NotReady),
 * `Unknown` only when there is no Ready condition at all. The condition's own status stays in `condition`.
 */
export function nodeReadiness(node: Node | undefined): { readiness: NodeReadiness; reason: string | undefined; condition: Condition | undefined } {
  const c = node?.status?.conditions?.find((x) => x.type === 'Ready');
  if (!c) return { readiness: 'Unknown', reason: undefined, condition: undefined };
  return { readiness: c.status === 'True' ? 'Ready' : 'NotReady', reason: c.reason, condition: c };
}

/** kubectl's STATUS column of `get nodes`: the readiness, `,SchedulingDisabled` when cordoned. */
export function kubectlNodeStatus(node: Node | undefined): string {
  return `${nodeReadiness(node).readiness}${node?.spec?.unschedulable ? ',SchedulingDisabled' : ''}`;
}

export function isMirrorPod(pod: Pod): boolean {
  return !!pod.metadata.annotations?.[MIRROR_ANNOTATION];
}

/** The control-plane component a kube-system pod belongs to, by kubeadm's `component` label or its name. */
export function componentOf(pod: Pod): Component | undefined {
  const label = pod.metadata.labels?.component;
  if (label && (CONTROL_PLANE_COMPONENTS as readonly string[]).includes(label)) return label as Component;
  const node = pod.spec?.nodeName;
  for (const c of CONTROL_PLANE_COMPONENTS) if (node ? pod.metadata.name === `${c}-${node}` : pod.metadata.name.startsWith(`${c}-`)) return c;
  return undefined;
}

/** The inventory host for a node: same name, or the node's InternalIP equal to the host's address. */
export function hostForNode(inventory: Inventory | undefined, nodeName: string, node?: Node): HostSpec | undefined {
  if (!inventory) return undefined;
  const byName = inventory.hosts.find((h) => h.name === nodeName || h.name === nodeName.split('.')[0]);
  if (byName) return byName;
  const addresses = new Set((node?.status?.addresses ?? []).map((a) => a.address));
  return inventory.hosts.find((h) => addresses.has(h.address));
}

export function describeTaint(t: { key: string; value?: string; effect: string }): string {
  return `${t.key}${t.value ? `=${t.value}` : ''}:${t.effect}`;
}

export function componentPod(component: Component, pod: Pod | undefined, now: number): ComponentPod {
  if (!pod) {
    return {
      component, podName: '', present: false, phase: 'Missing', readyContainers: 0, totalContainers: 0, ready: false, restarts: 0,
      ageMs: undefined, mirror: false, source: undefined, configHash: undefined, mirrorStale: false, reason: undefined,
    };
  }
  const statuses = pod.status?.containerStatuses ?? [];
  const total = Math.max(statuses.length, pod.spec?.containers?.length ?? 0);
  const readyContainers = statuses.filter((s) => s.ready).length;
  // kubectl's AGE: from the object's creationTimestamp (a static pod's mirror is created after the pod started).
  const created = parseTime(pod.metadata.creationTimestamp) ?? parseTime(pod.status?.startTime);
  const annotations = pod.metadata.annotations ?? {};
  const notRunning = statuses.find((s) => !s.state?.running);
  const reason = notRunning?.state?.waiting?.reason ?? notRunning?.state?.terminated?.reason ?? pod.status?.reason;
  const podReady = pod.status?.conditions?.find((c) => c.type === 'Ready')?.status === 'True';
  return {
    component,
    podName: pod.metadata.name,
    present: true,
    phase: pod.status?.phase ?? 'Unknown',
    readyContainers,
    totalContainers: total,
    ready: podReady || (total > 0 && readyContainers === total),
    restarts: statuses.reduce((n, s) => n + (s.restartCount ?? 0), 0),
    ageMs: created === undefined ? undefined : now - created,
    mirror: !!annotations[MIRROR_ANNOTATION],
    source: annotations[SOURCE_ANNOTATION],
    configHash: annotations[HASH_ANNOTATION],
    mirrorStale: !!annotations[MIRROR_ANNOTATION] && !!annotations[HASH_ANNOTATION] && annotations[MIRROR_ANNOTATION] !== annotations[HASH_ANNOTATION],
    reason,
  };
}

function imageTag(pod: Pod | undefined): { apiServerVersion?: string } {
  const tag = /:([^:/@]+)$/.exec(pod?.spec?.containers?.[0]?.image ?? '')?.[1];
  return tag ? { apiServerVersion: tag } : {};
}

export function buildControlPlane(input: ControlPlaneInput): ControlPlaneModel {
  const { now } = input;
  const byNode = new Map<string, Map<Component, Pod>>();
  for (const pod of input.pods) {
    const component = componentOf(pod);
    const nodeName = pod.spec?.nodeName;
    if (!component || !nodeName) continue;
    let m = byNode.get(nodeName);
    if (!m) byNode.set(nodeName, (m = new Map()));
    const existing = m.get(component);
    // Prefer the mirror pod when a (mis)labelled ordinary pod has the same component.
    if (!existing || (!isMirrorPod(existing) && isMirrorPod(pod))) m.set(component, pod);
  }
  const nodesByName = new Map(input.nodes.map((n) => [n.metadata.name, n]));
  const cpNames = new Set<string>();
  for (const n of input.nodes) if (n.metadata.labels && CP_LABEL in n.metadata.labels) cpNames.add(n.metadata.name);
  for (const name of byNode.keys()) cpNames.add(name);
  for (const h of input.inventory?.hosts ?? []) {
    if (!h.roles.includes('control-plane')) continue;
    // An inventory control-plane host without a Node yet still gets a row, so "missing" is visible.
    const node = input.nodes.find((n) => hostForNode(input.inventory, n.metadata.name, n)?.name === h.name);
    cpNames.add(node?.metadata.name ?? h.name);
  }
  const nodes: ControlPlaneNode[] = [...cpNames].sort().map((name) => {
    const node = nodesByName.get(name);
    const { readiness, reason } = nodeReadiness(node);
    const pods = byNode.get(name);
    return {
      name,
      host: hostForNode(input.inventory, name, node)?.name,
      readiness: node ? readiness : 'Unknown',
      readyReason: node ? reason : t('no Node object'),
      taints: (node?.spec?.taints ?? []).map(describeTaint),
      unschedulable: !!node?.spec?.unschedulable,
      kubeletVersion: node?.status?.nodeInfo?.kubeletVersion,
      ...imageTag(pods?.get('kube-apiserver')),
      components: CONTROL_PLANE_COMPONENTS.map((c) => {
        const cp = componentPod(c, pods?.get(c), now);
        return node && readiness !== 'Ready' && cp.present ? { ...cp, ready: false, stale: true } : cp;
      }),
    };
  });
  return { nodes, addons: buildAddons(input.daemonSets, input.deployments) };
}

const CNI_DAEMONSETS: Record<string, string> = { 'kube-flannel-ds': 'flannel', 'calico-node': 'calico', cilium: 'cilium', 'weave-net': 'weave' };

export function buildAddons(daemonSets: DaemonSet[], deployments: Deployment[]): Addon[] {
  const addons: Addon[] = [];
  const dns = deployments.find((d) => d.metadata.name === 'coredns' && (d.metadata.namespace ?? 'kube-system') === 'kube-system');
  if (dns) {
    const desired = dns.spec?.replicas ?? dns.status?.replicas ?? 0;
    const ready = dns.status?.readyReplicas ?? 0;
    addons.push({ name: 'coredns', kind: 'Deployment', namespace: 'kube-system', role: 'dns', desired, ready, healthy: desired > 0 && ready >= desired });
  }
  for (const ds of daemonSets) {
    const name = ds.metadata.name;
    const role = name === 'kube-proxy' && ds.metadata.namespace === 'kube-system' ? 'proxy' : name in CNI_DAEMONSETS ? 'cni' : undefined;
    if (!role) continue;
    const desired = ds.status?.desiredNumberScheduled ?? 0;
    const ready = ds.status?.numberReady ?? 0;
    addons.push({ name, kind: 'DaemonSet', namespace: ds.metadata.namespace ?? '', role, desired, ready, healthy: ready >= desired });
  }
  const order = { dns: 0, proxy: 1, cni: 2 };
  return addons.sort((a, b) => order[a.role] - order[b.role] || a.name.localeCompare(b.name));
}

export interface DriftResult {
  drift: boolean;
  differences: string[];
}

/**
 * Compares a static pod manifest (parsed YAML from /etc/kubernetes/manifests/<component>.yaml) with
 * the mirror pod: per container, image, command and args. See the module comment for why not the hash.
 */
export function manifestDrift(manifest: { spec?: { containers?: Container[] } } | undefined, mirror: Pod): DriftResult {
  const differences: string[] = [];
  const want = manifest?.spec?.containers ?? [];
  const have = new Map((mirror.spec?.containers ?? []).map((c) => [c.name, c]));
  if (!want.length) differences.push(t('manifest has no containers'));
  for (const c of want) {
    const m = have.get(c.name);
    if (!m) {
      differences.push(t('container {0} is not in the mirror pod', c.name));
      continue;
    }
    have.delete(c.name);
    if ((c.image ?? '') !== (m.image ?? '')) differences.push(t('{0}: image {1} → {2} in the manifest', c.name, String(m.image), String(c.image)));
    for (const field of ['command', 'args'] as const) {
      const a = c[field] ?? [];
      const b = m[field] ?? [];
      const added = a.filter((x) => !b.includes(x));
      const removed = b.filter((x) => !a.includes(x));
      for (const x of added) differences.push(t('{0}: {1} {2} only in the manifest', c.name, field, x));
      for (const x of removed) differences.push(t('{0}: {1} {2} only in the running pod', c.name, field, x));
    }
  }
  for (const name of have.keys()) differences.push(t('container {0} is not in the manifest', name));
  return { drift: differences.length > 0, differences };
}
