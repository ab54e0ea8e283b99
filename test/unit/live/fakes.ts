/** Test doubles for the watch engine: a manual clock and a scriptable transport. */
import { ApiError } from '../../../src/core/live/errors';
import type { KObject } from '../../../src/core/live/types';
import type { Clock, KubeTransport, ListResult, Params, WatchEvent } from '../../../src/core/live/watch';

export class ManualClock implements Clock {
  t = 1_000_000;
  private seq = 0;
  private timers = new Map<number, { at: number; fn: () => void }>();
  now(): number {
    return this.t;
  }
  setTimeout(fn: () => void, ms: number): unknown {
    const id = ++this.seq;
    this.timers.set(id, { at: this.t + ms, fn });
    return id;
  }
  clearTimeout(h: unknown): void {
    this.timers.delete(h as number);
  }
  random(): number {
    return 0.5;
  }
  /** Advances time, running due timers in order (and timers they schedule). */
  async advance(ms: number): Promise<void> {
    const end = this.t + ms;
    for (;;) {
      const due = [...this.timers.entries()].filter(([, v]) => v.at <= end).sort((a, b) => a[1].at - b[1].at)[0];
      if (!due) break;
      this.timers.delete(due[0]);
      this.t = Math.max(this.t, due[1].at);
      due[1].fn();
      await flush();
    }
    this.t = end;
  }
}

export const flush = () => new Promise<void>((r) => setImmediate(r));

export interface OpenWatch {
  path: string;
  params: Params;
  emit: (e: WatchEvent) => void;
  close: (error?: ApiError) => void;
  aborted: boolean;
}

export class FakeTransport implements KubeTransport {
  lists: { path: string; params: Params }[] = [];
  watches: OpenWatch[] = [];
  /** Objects returned by the next lists, per path. */
  data = new Map<string, KObject[]>();
  rv = 100;
  failNextList: ApiError | undefined;

  async list(path: string, params: Params): Promise<ListResult> {
    this.lists.push({ path, params });
    if (this.failNextList) {
      const e = this.failNextList;
      this.failNextList = undefined;
      throw e;
    }
    return { items: [...(this.data.get(path) ?? [])], metadata: { resourceVersion: String(this.rv) } };
  }

  watch(path: string, params: Params, onEvent: (e: WatchEvent) => void, onClose: (error?: ApiError) => void): () => void {
    const w: OpenWatch = { path, params, emit: onEvent, close: onClose, aborted: false };
    this.watches.push(w);
    return () => {
      w.aborted = true;
    };
  }

  get current(): OpenWatch {
    const w = this.watches.at(-1);
    if (!w) throw new Error('no watch');
    return w;
  }
}

export function lease(name: string, renewTime: string, rv: string, ns = 'kube-node-lease', extra: Partial<KObject['metadata']> = {}, spec: Record<string, unknown> = {}): KObject {
  return { metadata: { name, namespace: ns, resourceVersion: rv, ...extra }, spec: { holderIdentity: name, leaseDurationSeconds: 40, renewTime, ...spec } } as KObject;
}

export function gone(): ApiError {
  return new ApiError('gone', 'test', 'too old resource version', 410);
}
