/**
 * Which pods a drain evicts, keeps or refuses — kubectl drain's rules, so a drain from the
 * extension does exactly what an administrator expects from `kubectl drain`:
 *   1. pods already deleting longer than skipWaitForDeleteTimeout: skipped;
 *   2. DaemonSet pods: refused unless ignoreDaemonSets (then kept, with a warning);
 *      a pod whose DaemonSet is gone is evicted only with force;
 *   3. mirror (static) pods: kept silently — the kubelet owns them, the API cannot remove them;
 *   4. pods with emptyDir volumes: refused unless deleteEmptyDirData (their data is lost);
 *   5. pods without a controller: refused unless force (nothing recreates them).
 * Succeeded and Failed pods pass rules 2, 4 and 5. The first rule that does not allow
 * deletion decides; one refused pod fails the whole drain before anything is evicted.
 */

export interface DrainPod {
  namespace: string;
  name: string;
  uid: string;
  phase?: string;
  annotations?: Record<string, string>;
  /** The owner with controller=true, if any. */
  controller?: { apiVersion: string; kind: string; name: string };
  hasEmptyDir: boolean;
  /** ISO time the pod was marked for deletion. */
  deletionTimestamp?: string;
}

export interface DrainOptions {
  ignoreDaemonSets: boolean;
  deleteEmptyDirData: boolean;
  force: boolean;
  /** kubectl's --skip-wait-for-delete-timeout; 0 disables. */
  skipWaitForDeleteTimeoutSeconds: number;
  /** Give up waiting for evictions after this long (kubectl's --timeout; ours is finite by default). */
  timeoutSeconds: number;
}

export const DEFAULT_DRAIN_OPTIONS: DrainOptions = {
  ignoreDaemonSets: false,
  deleteEmptyDirData: false,
  force: false,
  skipWaitForDeleteTimeoutSeconds: 0,
  timeoutSeconds: 300,
};

export type PodVerdict =
  | { action: 'evict'; warning?: string }
  | { action: 'keep'; reason: 'mirror' | 'daemonset' | 'deleting'; warning?: string }
  /** `kind` says which rule refused (the plan words it by that); `reason` is kubectl's text, or the API's error for `lookup`. */
  | { action: 'refuse'; kind: RefusalKind; reason: string };

/** Which of kubectl's rules refused a pod: its DaemonSet, its emptyDir, no controller, or a DaemonSet lookup that failed. */
export type RefusalKind = 'daemonset' | 'local-storage' | 'unmanaged' | 'lookup';

export interface ClassifiedPod {
  pod: DrainPod;
  verdict: PodVerdict;
}

export interface DrainClassification {
  pods: ClassifiedPod[];
  toEvict: DrainPod[];
  /** kubectl-style messages: "cannot delete <reason>: ns/a, ns/b". Non-empty means the drain must not start. */
  errors: string[];
  /** kubectl-style: "<warning>: ns/a, ns/b". */
  warnings: string[];
}

export const MIRROR_POD_ANNOTATION = 'kubernetes.io/config.mirror';

// kubectl's own words, line for line: the drain's output is compared with kubectl's, so these stay English.
const DAEMONSET_FATAL = 'DaemonSet-managed Pods (use --ignore-daemonsets to ignore)';
const DAEMONSET_WARNING = 'ignoring DaemonSet-managed Pods';
const LOCAL_STORAGE_FATAL = 'Pods with local storage (use --delete-emptydir-data to override)';
const UNMANAGED_FATAL = 'Pods that declare no controller (use --force to override)';
const UNMANAGED_WARNING = 'deleting Pods that declare no controller';

/** Answers whether the pod's DaemonSet still exists; `error` carries the API's message otherwise. */
export type DaemonSetLookup = (namespace: string, name: string) => { exists: true } | { exists: false; notFound: boolean; error: string };

export function classifyPodsForDrain(pods: DrainPod[], options: DrainOptions, daemonSet: DaemonSetLookup, now = Date.now()): DrainClassification {
  const classified = pods.map((pod) => ({ pod, verdict: verdictFor(pod, options, daemonSet, now) }));
  const errors = groupMessages(classified, (v) => (v.action === 'refuse' ? `cannot delete ${v.reason}` : undefined));
  const warnings = groupMessages(classified, (v) => (v.action !== 'refuse' ? v.warning : undefined));
  return { pods: classified, toEvict: classified.filter((c) => c.verdict.action === 'evict').map((c) => c.pod), errors, warnings };
}

function verdictFor(pod: DrainPod, options: DrainOptions, daemonSet: DaemonSetLookup, now: number): PodVerdict {
  const finished = pod.phase === 'Succeeded' || pod.phase === 'Failed';

  if (options.skipWaitForDeleteTimeoutSeconds > 0 && pod.deletionTimestamp) {
    const deletingFor = (now - Date.parse(pod.deletionTimestamp)) / 1000;
    if (Math.floor(deletingFor) > options.skipWaitForDeleteTimeoutSeconds) return { action: 'keep', reason: 'deleting' };
  }

  if (pod.controller && isDaemonSet(pod.controller) && !finished) {
    const found = daemonSet(pod.namespace, pod.controller.name);
    // A pod whose DaemonSet is gone is evicted with force; otherwise the lookup error refuses it.
    if (!found.exists && !(found.notFound && options.force)) return { action: 'refuse', kind: 'lookup', reason: found.error };
    if (found.exists && !options.ignoreDaemonSets) return { action: 'refuse', kind: 'daemonset', reason: DAEMONSET_FATAL };
    if (found.exists) return { action: 'keep', reason: 'daemonset', warning: DAEMONSET_WARNING };
  }

  if (pod.annotations && MIRROR_POD_ANNOTATION in pod.annotations) return { action: 'keep', reason: 'mirror' };

  if (pod.hasEmptyDir && !finished && !options.deleteEmptyDirData) return { action: 'refuse', kind: 'local-storage', reason: LOCAL_STORAGE_FATAL };

  if (!finished && !pod.controller) {
    if (!options.force) return { action: 'refuse', kind: 'unmanaged', reason: UNMANAGED_FATAL };
    return { action: 'evict', warning: UNMANAGED_WARNING };
  }

  // kubectl reports the status of the last rule a pod passed; for an evicted pod that is the
  // controller rule, so its "deleting Pods with local storage" warning never reaches the output.
  // We print the same lines so both tools can be compared line by line.
  return { action: 'evict' };
}

function isDaemonSet(ref: { apiVersion: string; kind: string }): boolean {
  return ref.kind === 'DaemonSet' && ref.apiVersion === 'apps/v1';
}

function groupMessages(pods: ClassifiedPod[], message: (v: PodVerdict) => string | undefined): string[] {
  const byMessage = new Map<string, string[]>();
  for (const { pod, verdict } of pods) {
    const m = message(verdict);
    if (m) byMessage.set(m, [...(byMessage.get(m) ?? []), `${pod.namespace}/${pod.name}`]);
  }
  return [...byMessage].map(([m, names]) => `${m}: ${names.join(', ')}`);
}
