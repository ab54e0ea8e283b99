/**
 * Evicts pods through the Eviction API the way kubectl drain does: every pod in parallel;
 * 429 (a PodDisruptionBudget says not now) → retry after 5 s — or, unlike kubectl, as soon as that budget allows a
 * disruption again (its status read every half second; the line printed stays kubectl's); 404 → already gone; a terminating
 * namespace → retry; anything else fails that pod. After an accepted eviction, wait until the pod
 * is gone *by UID* (a new pod with the same name is a replacement, not the old one).
 * Unlike kubectl's default, the whole drain has a finite timeout.
 */

import type { DrainPod } from './classify';
import { abortableSleep } from '../sleep';
import { errorMessage } from '../errors';

export type EvictionResult =
  | { kind: 'accepted' }
  | { kind: 'not-found' }
  /** `budget`: the PodDisruptionBudget the API server named (its Status details), when it named one. */
  | { kind: 'too-many-requests'; message: string; budget?: string }
  | { kind: 'namespace-terminating'; message: string }
  | { kind: 'failed'; message: string };

/** The two API calls a drain needs; the adapter maps HTTP status codes onto EvictionResult. */
export interface EvictionClient {
  evict(pod: DrainPod): Promise<EvictionResult>;
  /** The pod's current UID and deletion mark, or undefined when it no longer exists. */
  getPod(namespace: string, name: string): Promise<{ uid: string; deletionTimestamp?: string } | undefined>;
  /** Whether the PodDisruptionBudget allows a disruption now (status.disruptionsAllowed > 0); undefined when unknown. */
  budgetAllows?(namespace: string, budget: string): Promise<boolean | undefined>;
}

export type EvictionEvent =
  | { type: 'evicting'; pod: DrainPod; attempt: number }
  | { type: 'retry'; pod: DrainPod; kind: 'too-many-requests' | 'namespace-terminating'; reason: string; afterMs: number }
  | { type: 'waiting'; pod: DrainPod }
  /** `notFound`: the eviction answered 404 — the pod was already gone (kubectl prints nothing for it). */
  | { type: 'gone'; pod: DrainPod; notFound?: boolean }
  /** Still terminating after skipWaitForDeleteTimeoutSeconds: not waited for any longer (kubectl's skip). */
  | { type: 'skipped'; pod: DrainPod; message: string }
  | { type: 'failed'; pod: DrainPod; error: string };

export interface EvictOptions {
  timeoutMs: number;
  retryIntervalMs?: number;
  pollIntervalMs?: number;
  signal?: AbortSignal;
  onEvent?: (event: EvictionEvent) => void;
  /** Server-side dry run: an accepted eviction removed nothing, so there is nothing to wait for. */
  skipWait?: boolean;
  /** kubectl's --skip-wait-for-delete-timeout: stop waiting for a pod deleting longer than this; 0 never. */
  skipWaitForDeleteTimeoutSeconds?: number;
  /** Injected for tests; defaults to real time. */
  sleep?: (ms: number, signal?: AbortSignal) => Promise<void>;
  now?: () => number;
}

export interface EvictOutcome {
  evicted: DrainPod[];
  failed: { pod: DrainPod; error: string }[];
}

export const EVICTION_RETRY_MS = 5000;
const POLL_MS = 1000;
/** How often a refused eviction's budget is read while its retry waits. */
export const BUDGET_POLL_MS = 500;

export async function evictPods(pods: DrainPod[], client: EvictionClient, options: EvictOptions): Promise<EvictOutcome> {
  const now = options.now ?? Date.now;
  const sleep = options.sleep ?? abortableSleep;
  const deadline = now() + options.timeoutMs;
  const emit = options.onEvent ?? (() => {});
  const outcome: EvictOutcome = { evicted: [], failed: [] };

  const fail = (pod: DrainPod, error: string): void => {
    outcome.failed.push({ pod, error });
    emit({ type: 'failed', pod, error });
  };

  await Promise.all(
    pods.map(async (pod) => {
      for (let attempt = 1; ; attempt++) {
        if (options.signal?.aborted) return fail(pod, 'cancelled');
        if (now() >= deadline) return fail(pod, `error when evicting pods/"${pod.name}" -n "${pod.namespace}": global timeout reached: ${Math.round(options.timeoutMs / 1000)}s`);
        emit({ type: 'evicting', pod, attempt });
        let result: EvictionResult;
        try {
          result = await client.evict(pod);
        } catch (e) {
          result = { kind: 'failed', message: errorMessage(e) };
        }
        if (result.kind === 'accepted') break;
        if (result.kind === 'not-found') {
          outcome.evicted.push(pod);
          emit({ type: 'gone', pod, notFound: true });
          return;
        }
        // In a terminating namespace an eviction is refused for good; a pod already marked for deletion
        // there goes away by itself, so (like kubectl) wait for it instead of retrying.
        if (result.kind === 'namespace-terminating' && (await client.getPod(pod.namespace, pod.name).catch(() => undefined))?.deletionTimestamp) break;
        if (result.kind === 'too-many-requests' || result.kind === 'namespace-terminating') {
          const afterMs = options.retryIntervalMs ?? EVICTION_RETRY_MS;
          emit({ type: 'retry', pod, kind: result.kind, reason: result.message, afterMs });
          const wait = Math.min(afterMs, Math.max(0, deadline - now()));
          const budget = result.kind === 'too-many-requests' ? result.budget : undefined;
          if (budget && client.budgetAllows) {
            // The replacement of the pod evicted before may be Ready well before the 5 s are up: retry then.
            for (const until = now() + wait; now() < until && !options.signal?.aborted; ) {
              await sleep(Math.min(BUDGET_POLL_MS, Math.max(0, until - now())), options.signal);
              if (options.signal?.aborted || (await client.budgetAllows(pod.namespace, budget).catch(() => undefined))) break;
            }
          } else await sleep(wait, options.signal);
          continue;
        }
        return fail(pod, `error when evicting pods/"${pod.name}" -n "${pod.namespace}": ${result.message}`);
      }
      if (options.skipWait) {
        outcome.evicted.push(pod);
        return;
      }
      emit({ type: 'waiting', pod });
      for (;;) {
        let current: Awaited<ReturnType<EvictionClient['getPod']>>;
        try {
          current = await client.getPod(pod.namespace, pod.name);
        } catch (e) {
          return fail(pod, `error when waiting for pod "${pod.name}" in namespace "${pod.namespace}" to terminate: ${errorMessage(e)}`);
        }
        if (!current || current.uid !== pod.uid) {
          outcome.evicted.push(pod);
          emit({ type: 'gone', pod });
          return;
        }
        const skipAfter = options.skipWaitForDeleteTimeoutSeconds ?? 0;
        if (skipAfter > 0 && current.deletionTimestamp && Math.floor((now() - Date.parse(current.deletionTimestamp)) / 1000) > skipAfter) {
          outcome.evicted.push(pod);
          emit({ type: 'skipped', pod, message: `pod "${pod.name}" has DeletionTimestamp older than ${skipAfter} seconds, skipping` });
          return;
        }
        if (options.signal?.aborted) return fail(pod, 'cancelled');
        if (now() >= deadline) return fail(pod, `error when waiting for pod "${pod.name}" in namespace "${pod.namespace}" to terminate: global timeout reached`);
        await sleep(Math.min(options.pollIntervalMs ?? POLL_MS, Math.max(0, deadline - now())), options.signal);
      }
    }),
  );
  return outcome;
}
