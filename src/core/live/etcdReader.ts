/**
 * Which etcd pod the live views read etcd through (etcdctl exec'd in it), and how: the pod read last stays the reader
 * while it is ready on a Ready node and answers; others are asked only when it fails or is slow. Before this, three
 * pods raced on every read and the fastest won, so "via exec etcd-…" flipped between nodes on almost every refresh,
 * and a pod still "ready 0/1" could be read through while a ready one was there.
 */
import { t } from '../l10n';
import { ETCDCTL_COMMAND_TIMEOUT_MS } from './etcdSource';

export interface EtcdPodCandidate {
  name: string;
  node: string;
  /** Its Node is Ready. */
  nodeReady: boolean;
  /** Every container ready (kubectl's READY n/n) and the Ready condition not False. */
  podReady: boolean;
}

/** Ready pods on Ready nodes first, then pods on Ready nodes, then the rest; by name within a rank (stable). */
function rank(p: EtcdPodCandidate): number {
  return p.podReady && p.nodeReady ? 0 : p.nodeReady ? 1 : 2;
}

/**
 * The pods to read through, in order: only the best rank there is (a pod that is not ready is read only when no
 * ready one exists); the last reader first when it is still of that rank; at most `max`.
 */
export function etcdReadOrder(candidates: readonly EtcdPodCandidate[], last: string | undefined, max = 3): EtcdPodCandidate[] {
  if (!candidates.length) return [];
  const best = Math.min(...candidates.map(rank));
  const usable = candidates.filter((p) => rank(p) === best).sort((a, b) => a.name.localeCompare(b.name));
  const sticky = usable.find((p) => p.name === last);
  return (sticky ? [sticky, ...usable.filter((p) => p !== sticky)] : usable).slice(0, max);
}

/**
 * When a read through one pod has not answered, the next starts (the live views' reader): etcdctl gives up on its own
 * after its command timeout, so an answer later than that is a pod on a node that went away, or an exec sent to its
 * API server.
 */
export const ETCD_HEDGE_AFTER_MS = ETCDCTL_COMMAND_TIMEOUT_MS;
/** Then one more exec every 0.75 s while nothing answered (each a new connection the balancer may send elsewhere). */
export const ETCD_RETRY_EVERY_MS = 750;

/**
 * Reads through `order[0]`; the others start only when it failed, or when it has not answered within `hedgeAfterMs`
 * (a pod on a node that just died still looks Running, and its exec fails only at its timeout). While nothing has
 * answered, one more attempt starts every `retryEveryMs` after that, through the order again from its start, up to
 * `maxAttempts` in all: each exec is a new connection through the balancer, and while a control-plane node has just
 * died the balancer still sends a third of new connections to its API server (until its health check marks it down,
 * ~6 s on the lab), and one read's three execs can all land there or on the dead pod (the likely cause of a CI run
 * whose live model said "at risk" 10.6 s after a power-off, where others took 3.5–3.7 s). Only a slow read is tried
 * again: when every started attempt has failed, the read rejects at once (a refused exec would be refused again).
 * The first answer wins and names its pod; `failed` hears each failure.
 */
export function readThroughFirst<T>(
  order: readonly EtcdPodCandidate[],
  read: (pod: EtcdPodCandidate) => Promise<T>,
  opts: { hedgeAfterMs: number; retryEveryMs?: number; maxAttempts?: number; failed?: (pod: EtcdPodCandidate, e: unknown) => void },
): Promise<{ value: T; via: EtcdPodCandidate }> {
  return new Promise((resolve, reject) => {
    if (!order.length) return reject(new Error(t('no etcd pod to read through')));
    const maxAttempts = Math.max(order.length, opts.maxAttempts ?? 2 * order.length);
    const retryEveryMs = opts.retryEveryMs ?? opts.hedgeAfterMs / 2;
    let settled = false;
    let started = 0;
    let failures = 0;
    let timer: ReturnType<typeof setTimeout> | undefined;
    const finish = (): void => {
      settled = true;
      clearTimeout(timer);
    };
    const start = (pod: EtcdPodCandidate): void => {
      started++;
      read(pod).then(
        (value) => {
          if (settled) return;
          finish();
          resolve({ value, via: pod });
        },
        (e: unknown) => {
          opts.failed?.(pod, e);
          failures++;
          if (settled) return;
          if (started === 1 && order.length > 1) startRest();
          else if (failures === started) {
            finish();
            reject(new Error(t('every etcd pod failed')));
          }
        },
      );
    };
    /** Again through the order from its start, one attempt per tick, while nothing answers. */
    const retry = (): void => {
      if (settled || started >= maxAttempts) return;
      start(order[started % order.length]!);
      if (started < maxAttempts) timer = setTimeout(retry, retryEveryMs);
    };
    /** The first round's other pods, all at once (after a failure or the hedge). */
    const startRest = (): void => {
      clearTimeout(timer);
      if (started > 1) return;
      for (const pod of order.slice(1)) start(pod);
      if (!settled && started < maxAttempts) timer = setTimeout(retry, retryEveryMs);
    };
    start(order[0]!);
    if (order.length > 1) timer = setTimeout(() => !settled && startRest(), opts.hedgeAfterMs);
    else if (maxAttempts > 1) timer = setTimeout(retry, opts.hedgeAfterMs);
  });
}
