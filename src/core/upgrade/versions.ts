/**
 * Kubernetes versions and the version-skew policy an upgrade must keep (kubernetes.io "Version Skew Policy",
 * the seed's upgrade section): the control plane goes first, one minor at a time; a kubelet is never newer
 * than any API server it talks to, and at most three minors older; kubectl within one minor of the API server.
 * The check is done twice: on the target (before a plan exists) and along the plan's order (every state the
 * cluster passes through), so a plan that upgraded a kubelet before the last API server is refused too.
 */
import { t } from '../l10n';

export interface KubeVersion {
  major: number;
  minor: number;
  patch: number;
}

/** `v1.33.13`, `1.33.13`, a Debian package version `1.33.13-1.1`, kubelet's `v1.33.13+k3s1`; undefined otherwise. */
export function parseVersion(text: string | undefined): KubeVersion | undefined {
  const m = /^v?(\d{1,3})\.(\d{1,3})\.(\d{1,4})(?:[-+~][0-9A-Za-z.+~-]*)?$/.exec((text ?? '').trim());
  if (!m) return undefined;
  return { major: Number(m[1]), minor: Number(m[2]), patch: Number(m[3]) };
}

export function formatVersion(v: KubeVersion): string {
  return `v${v.major}.${v.minor}.${v.patch}`;
}

/** `1.34`: the minor a package repository is split by (pkgs.k8s.io: core:/stable:/v1.34). */
export function minorOf(v: KubeVersion): string {
  return `${v.major}.${v.minor}`;
}

export function compareVersions(a: KubeVersion, b: KubeVersion): number {
  return a.major - b.major || a.minor - b.minor || a.patch - b.patch;
}

/** Minors from `a` to `b` (positive when b is newer); across majors only when both are 1.x here. */
export function minorDistance(a: KubeVersion, b: KubeVersion): number {
  return (b.major - a.major) * 1000 + (b.minor - a.minor);
}

export function lowest(vs: readonly KubeVersion[]): KubeVersion | undefined {
  return [...vs].sort(compareVersions)[0];
}

export function highest(vs: readonly KubeVersion[]): KubeVersion | undefined {
  return [...vs].sort(compareVersions).at(-1);
}

/** How far a kubelet may lag behind the API server (the policy since 1.28). */
export const KUBELET_MAX_MINORS_OLDER = 3;

export interface NodeVersion {
  node: string;
  version: KubeVersion;
}

export interface TargetInput {
  /** kube-apiserver's version per control-plane node (from its static pod's image). */
  apiServers: readonly NodeVersion[];
  /** The kubelet's version per node (control plane and workers). */
  kubelets: readonly NodeVersion[];
  target: KubeVersion;
}

export interface SkewProblem {
  /** The node the problem is about, when there is one. */
  node?: string;
  message: string;
}

/**
 * What refuses the target itself: a downgrade, a skipped minor, a kubelet newer than the target (or than an API
 * server now), a kubelet that would fall more than three minors behind once the control plane is at the target.
 * Patch upgrades inside the minor and the next minor are allowed; control-plane nodes still at different minors
 * (an interrupted upgrade) are allowed when the target is the newer one, so a resumed upgrade can finish.
 */
export function targetProblems(input: TargetInput): SkewProblem[] {
  const out: SkewProblem[] = [];
  const { target } = input;
  const oldest = lowest(input.apiServers.map((a) => a.version));
  const newest = highest(input.apiServers.map((a) => a.version));
  if (!oldest || !newest) return [{ message: t('no API server version is known: the control plane could not be read') }];
  if (target.major !== oldest.major) out.push({ message: t('{0} changes the major version from {1}: not an upgrade kubeadm does', formatVersion(target), oldest.major) });
  for (const a of input.apiServers) {
    if (compareVersions(target, a.version) < 0) out.push({ node: a.node, message: t('the API server on {0} is {1}, newer than the target {2}: kubeadm does not downgrade', a.node, formatVersion(a.version), formatVersion(target)) });
  }
  const ahead = minorDistance(oldest, target);
  if (ahead > 1) {
    const next = `${oldest.major}.${oldest.minor + 1}`;
    out.push({
      message:
        ahead - 1 === 1
          ? t('{0} skips 1 minor version: the control plane is at {1} and upgrades one minor at a time (to {2} first)', formatVersion(target), minorOf(oldest), next)
          : t('{0} skips {1} minor versions: the control plane is at {2} and upgrades one minor at a time (to {3} first)', formatVersion(target), ahead - 1, minorOf(oldest), next),
    });
  }
  if (minorDistance(oldest, newest) > 1) out.push({ message: t('the API servers are {0} and {1}: more than one minor apart, a state the skew policy does not allow', minorOf(oldest), minorOf(newest)) });
  for (const k of input.kubelets) {
    if (compareVersions(k.version, target) > 0) out.push({ node: k.node, message: t('the kubelet on {0} is {1}, newer than the target {2}: a kubelet must never be newer than the API server', k.node, formatVersion(k.version), formatVersion(target)) });
    else if (compareVersions(k.version, oldest) > 0 && minorDistance(oldest, k.version) > 0) {
      out.push({ node: k.node, message: t('the kubelet on {0} is {1}, a newer minor than the API server {2} now: the control plane must be upgraded before any kubelet', k.node, formatVersion(k.version), formatVersion(oldest)) });
    }
    const behind = minorDistance(k.version, target);
    if (behind > KUBELET_MAX_MINORS_OLDER) {
      out.push({ node: k.node, message: t("the kubelet on {0} is {1}: {2} minors behind {3} once the control plane is upgraded (at most {4}); upgrade that node's kubelet to {5} first", k.node, formatVersion(k.version), behind, formatVersion(target), KUBELET_MAX_MINORS_OLDER, minorOf(oldest)) });
    }
  }
  return out;
}

/** One change of the plan's order to a component's version. */
export interface VersionChange {
  kind: 'apiserver' | 'kubelet';
  node: string;
  /** The plan step that makes it (for the message). */
  stepId: string;
}

/**
 * Walks the plan's changes in order from the current versions: after each one, every kubelet must be no newer
 * than every API server, and no more than three minors older. Returns the first violations, naming the step.
 */
export function skewAlongPlan(input: TargetInput, changes: readonly VersionChange[]): SkewProblem[] {
  const api = new Map(input.apiServers.map((a) => [a.node, a.version]));
  const kubelet = new Map(input.kubelets.map((k) => [k.node, k.version]));
  const out: SkewProblem[] = [];
  for (const c of changes) {
    (c.kind === 'apiserver' ? api : kubelet).set(c.node, input.target);
    const oldestApi = lowest([...api.values()]);
    const newestApi = highest([...api.values()]);
    if (!oldestApi || !newestApi) continue;
    for (const [node, v] of kubelet) {
      if (compareVersions(v, oldestApi) > 0 && minorDistance(oldestApi, v) > 0) {
        out.push({ node, message: t('after {0}: the kubelet on {1} ({2}) is newer than an API server ({3})', c.stepId, node, formatVersion(v), formatVersion(oldestApi)) });
      }
      if (minorDistance(v, newestApi) > KUBELET_MAX_MINORS_OLDER) out.push({ node, message: t('after {0}: the kubelet on {1} ({2}) is more than {3} minors older than an API server ({4})', c.stepId, node, formatVersion(v), KUBELET_MAX_MINORS_OLDER, formatVersion(newestApi)) });
    }
    if (out.length) return out;
  }
  return out;
}

/** kubectl may be one minor older or newer than the API server: a warning, the upgrade moves it anyway. */
export function kubectlSkew(kubectl: KubeVersion, apiServer: KubeVersion): number {
  return Math.abs(minorDistance(apiServer, kubectl));
}

/**
 * Version-skew notes per node for the views' rows, from what the API reports (each node's kubelet, each control-plane
 * node's kube-apiserver image): a kubelet at a newer minor than the oldest API server, a kubelet more than three
 * minors behind the newest one, API servers at different minors (an upgrade half-way). Nodes without a note are absent.
 */
export function skewNotes(nodes: readonly { name: string; kubelet?: string | undefined; apiServer?: string | undefined }[]): Map<string, string> {
  const api = nodes.flatMap((n) => { const v = parseVersion(n.apiServer); return v ? [{ node: n.name, version: v }] : []; });
  const oldest = lowest(api.map((a) => a.version));
  const newest = highest(api.map((a) => a.version));
  const out = new Map<string, string>();
  if (!oldest || !newest) return out;
  const add = (node: string, note: string) => out.set(node, out.has(node) ? `${out.get(node)}; ${note}` : note);
  if (minorDistance(oldest, newest) > 0) for (const a of api) if (minorDistance(a.version, newest) > 0) add(a.node, t('API server {0} behind {1} on another node: an upgrade half-way', formatVersion(a.version), formatVersion(newest)));
  for (const n of nodes) {
    const k = parseVersion(n.kubelet);
    if (!k) continue;
    if (minorDistance(oldest, k) > 0) add(n.name, t('kubelet {0} newer than the API server {1}: not allowed by the skew policy', formatVersion(k), formatVersion(oldest)));
    else if (minorDistance(k, newest) > KUBELET_MAX_MINORS_OLDER) add(n.name, t('kubelet {0} more than {1} minors behind the API server {2}', formatVersion(k), KUBELET_MAX_MINORS_OLDER, formatVersion(newest)));
  }
  return out;
}
