/**
 * Evicts pods through the Eviction API the way kubectl drain does: every pod in parallel;
 * 429 (a PodDisruptionBudget says not now) → retry every 5 s; 404 → already gone; a terminating
 * namespace → retry; anything else fails that pod. After an accepted eviction, wait until the pod
 * is gone *by UID* (a new pod with the same name is a replacement, not the old one).
 * Unlike kubectl's default, the whole drain has a finite timeout.
 */

import type { DrainPod } from './classify';

export type EvictionResult =
  | { kind: 'accepted' }
  | { kind: 'not-found' }
  | { kind: 'too-many-requests'; message: string }
  | { kind: 'namespace-terminating'; message: string }
  | { kind: 'failed'; message: string };

/** The two API calls a drain needs; the adapter maps HTTP status codes onto EvictionResult. */
export interface EvictionClient {
  evict(pod: DrainPod): Promise<EvictionResult>;
  /** The pod's current UID and deletion mark, or undefined when it no longer exists. */
  getPod(namespace: string, name: string): Promise<{ uid: string; deletionTimestamp?: string } | undefined>;
}

export type EvictionEvent =
  | { type: 'evicting'; pod: DrainPod; attempt: number }
  | { type: 'retry'; pod: DrainPod; reason: string; afterMs: number }
  | { type: 'waiting'; pod: DrainPod }
  | { type: 'gone'; pod: DrainPod }
  | { type: 'failed'; pod: DrainPod; error: string };

export interface EvictOptions {
  timeoutMs: number;
  retryIntervalMs?: number;
  pollIntervalMs?: number;
  signal?: AbortSignal;
  onEvent?: (event: EvictionEvent) => void;
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
        const result = await client.evict(pod);
        if (result.kind === 'accepted') break;
        if (result.kind === 'not-found') {
          outcome.evicted.push(pod);
          emit({ type: 'gone', pod });
          return;
        }
        if (result.kind === 'too-many-requests' || result.kind === 'namespace-terminating') {
          const afterMs = options.retryIntervalMs ?? EVICTION_RETRY_MS;
          emit({ type: 'retry', pod, reason: result.message, afterMs });
          await sleep(Math.min(afterMs, Math.max(0, deadline - now())), options.signal);
          continue;
        }
        return fail(pod, `error when evicting pods/"${pod.name}" -n "${pod.namespace}": ${result.message}`);
      }
      emit({ type: 'waiting', pod });
      for (;;) {
        const current = await client.getPod(pod.namespace, pod.name);
        if (!current || current.uid !== pod.uid) {
          outcome.evicted.push(pod);
          emit({ type: 'gone', pod });
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

function abortableSleep(ms: number, signal?: AbortSignal): Promise<void> {
  return new Promise((resolve) => {
    const timer = setTimeout(done, ms);
    function done(): void {
      clearTimeout(timer);
      signal?.removeEventListener('abort', done);
      resolve();
    }
    signal?.addEventListener('abort', done, { once: true });
  });
}
