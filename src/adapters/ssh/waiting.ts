/**
 * Waiting for a turn inside the SSH pool: a counting semaphore whose waiters can give up (cancel), and a way
 * to stop awaiting a promise when a signal aborts (the awaited work itself goes on).
 */
export class Semaphore {
  private active = 0;
  private readonly waiters: (() => void)[] = [];
  constructor(readonly limit: number) {}
  /** Waits for a slot; an abort while waiting leaves the queue (and rejects) without taking one. */
  async acquire(signal?: AbortSignal): Promise<void> {
    if (this.active < this.limit) {
      this.active++;
      return;
    }
    await new Promise<void>((resolve, reject) => {
      const onAbort = () => {
        const i = this.waiters.indexOf(grant);
        if (i >= 0) this.waiters.splice(i, 1);
        reject(new AbortedWhileWaiting());
      };
      const grant = () => {
        signal?.removeEventListener('abort', onAbort);
        resolve();
      };
      this.waiters.push(grant);
      signal?.addEventListener('abort', onAbort, { once: true });
    });
  }
  release(): void {
    const next = this.waiters.shift();
    if (next) next();
    else this.active--;
  }
  get inUse(): number {
    return this.active;
  }
}

export class AbortedWhileWaiting extends Error {}

/** Rejects with AbortedWhileWaiting when `signal` aborts first (the awaited work itself goes on). */
export function abortable<T>(p: Promise<T>, signal: AbortSignal): Promise<T> {
  if (signal.aborted) return Promise.reject(new AbortedWhileWaiting());
  return new Promise<T>((resolve, reject) => {
    const onAbort = () => reject(new AbortedWhileWaiting());
    signal.addEventListener('abort', onAbort, { once: true });
    p.then(
      (v) => {
        signal.removeEventListener('abort', onAbort);
        resolve(v);
      },
      (e: unknown) => {
        signal.removeEventListener('abort', onAbort);
        reject(e);
      },
    );
  });
}
