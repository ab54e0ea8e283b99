/**
 * The watch engine: one Reflector per resource does list + watch like client-go's reflector, over a
 * tiny transport so unit tests can drive it with a fake and integration tests with a real API server.
 *
 * - list (paginated) → store replaced, resourceVersion kept → watch from that resourceVersion with
 *   `allowWatchBookmarks=true` and a server-side `timeoutSeconds`;
 * - the server ending the watch normally → re-watch from the last resourceVersion (no list);
 * - `410 Gone` (HTTP status or an `ERROR` event carrying code 410) → exactly one re-list;
 * - other errors → backoff with jitter (exponential, capped), then re-watch from the last
 *   resourceVersion (a list only if there is none yet);
 * - a stalled watch is detected and restarted: no close after `timeoutSeconds` + grace (the server
 *   always ends it by then), or no event and no bookmark for `idleStallMs` (the API server sends
 *   bookmarks about once a minute to watchers that allow them), e.g. a half-open connection after
 *   the VIP moved;
 * - start/stop by the consumer; a restart after stop resumes from the kept resourceVersion.
 */
import { ApiError, httpError } from './errors';
import { objectKey, type ApiStatus, type KObject } from './types';

export type Params = Record<string, string>;

export interface WatchEvent {
  type: 'ADDED' | 'MODIFIED' | 'DELETED' | 'BOOKMARK' | 'ERROR';
  object: KObject | ApiStatus;
}

export interface ListResult {
  items: KObject[];
  metadata: { resourceVersion?: string; continue?: string };
}

/**
 * What the engine needs from an API client. `list` is a GET of the collection; `watch` a GET with
 * `watch=true` streaming events in order, calling `onClose` exactly once: without an error when the
 * server ended the stream, with an ApiError otherwise (410 as `status: 410`). It returns an abort.
 */
export interface KubeTransport {
  list(path: string, params: Params): Promise<ListResult>;
  watch(path: string, params: Params, onEvent: (event: WatchEvent) => void, onClose: (error?: ApiError) => void): () => void;
}

export interface Clock {
  now(): number;
  setTimeout(fn: () => void, ms: number): unknown;
  clearTimeout(handle: unknown): void;
  random(): number;
}

export const realClock: Clock = {
  now: () => Date.now(),
  setTimeout: (fn, ms) => {
    const t = setTimeout(fn, ms);
    t.unref?.();
    return t;
  },
  clearTimeout: (h) => clearTimeout(h as NodeJS.Timeout),
  random: Math.random,
};

export interface ResourceSpec {
  /** Stable name of the resource set, e.g. `nodes`, `pods`. */
  key: string;
  /** Collection path, e.g. `/api/v1/namespaces/kube-system/pods`. */
  path: string;
  labelSelector?: string;
  fieldSelector?: string;
}

export interface Change {
  type: 'added' | 'modified' | 'deleted';
  key: string;
  object: KObject;
}

export interface ReflectorOptions {
  clock?: Clock;
  /** Server-side watch timeout; each watch picks a value in [t, 2t) like client-go. Default 300. */
  timeoutSeconds?: number;
  /** How long past timeoutSeconds an open watch may stay without being closed. Default 30 s. */
  stallGraceMs?: number;
  /** No event or bookmark for this long → the watch is considered stalled. Default 150 s (the API server sends
   *  bookmarks about once a minute, best effort: 2.5 periods avoid false restarts on a loaded server). */
  idleStallMs?: number;
  /** How often the stall detector looks. Default 5 s. */
  stallCheckMs?: number;
  backoffBaseMs?: number;
  backoffMaxMs?: number;
  /** Page size of lists. Default 500. */
  pageLimit?: number;
}

export type ReflectorState = 'stopped' | 'listing' | 'watching' | 'backoff';

export interface ReflectorStats {
  lists: number;
  relistsAfterGone: number;
  watches: number;
  events: number;
  bookmarks: number;
  errors: number;
  stallRestarts: number;
}

export class Reflector {
  readonly store = new Map<string, KObject>();
  resourceVersion: string | undefined;
  state: ReflectorState = 'stopped';
  /** True once the first list has completed. */
  synced = false;
  lastError: ApiError | undefined;
  readonly stats: ReflectorStats = { lists: 0, relistsAfterGone: 0, watches: 0, events: 0, bookmarks: 0, errors: 0, stallRestarts: 0 };

  private readonly clock: Clock;
  private readonly opts: Required<Omit<ReflectorOptions, 'clock'>>;
  private generation = 0;
  private failures = 0;
  private abortWatch: (() => void) | undefined;
  private retryTimer: unknown;
  private stallTimer: unknown;
  private watchOpenedAt = 0;
  private watchTimeoutMs = 0;
  private lastActivity = 0;

  constructor(
    private readonly transport: KubeTransport,
    readonly spec: ResourceSpec,
    private readonly onChange: (changes: Change[], reflector: Reflector) => void,
    options: ReflectorOptions = {},
    private readonly onStateChange?: (reflector: Reflector) => void,
  ) {
    this.clock = options.clock ?? realClock;
    this.opts = {
      timeoutSeconds: options.timeoutSeconds ?? 300,
      stallGraceMs: options.stallGraceMs ?? 30_000,
      idleStallMs: options.idleStallMs ?? 150_000,
      stallCheckMs: options.stallCheckMs ?? 5_000,
      backoffBaseMs: options.backoffBaseMs ?? 500,
      backoffMaxMs: options.backoffMaxMs ?? 30_000,
      pageLimit: options.pageLimit ?? 500,
    };
  }

  get running(): boolean {
    return this.state !== 'stopped';
  }

  /** When the last event or bookmark arrived on a healthy watch (undefined when not watching). */
  get lastActivityAt(): number | undefined {
    return this.state === 'watching' ? this.lastActivity : undefined;
  }

  start(): void {
    if (this.running) return;
    const gen = ++this.generation;
    if (this.resourceVersion) this.watch(gen);
    else void this.list(gen);
  }

  stop(): void {
    this.generation++;
    this.closeWatch();
    this.clock.clearTimeout(this.retryTimer);
    this.setState('stopped');
  }

  private setState(state: ReflectorState): void {
    if (this.state === state) return;
    this.state = state;
    this.onStateChange?.(this);
  }

  private baseParams(): Params {
    const p: Params = {};
    if (this.spec.labelSelector) p.labelSelector = this.spec.labelSelector;
    if (this.spec.fieldSelector) p.fieldSelector = this.spec.fieldSelector;
    return p;
  }

  private async list(gen: number): Promise<void> {
    this.setState('listing');
    this.stats.lists++;
    try {
      const items: KObject[] = [];
      let rv: string | undefined;
      let cont: string | undefined;
      do {
        const params: Params = { ...this.baseParams(), limit: String(this.opts.pageLimit) };
        if (cont) params.continue = cont;
        const page = await this.transport.list(this.spec.path, params);
        if (gen !== this.generation) return;
        for (const item of page.items) items.push(item);
        rv = page.metadata.resourceVersion;
        cont = page.metadata.continue || undefined;
      } while (cont);
      this.replace(items);
      this.resourceVersion = rv;
      this.synced = true;
      this.failures = 0;
      this.lastError = undefined;
      this.watch(gen);
    } catch (e) {
      if (gen !== this.generation) return;
      this.fail(gen, e instanceof ApiError ? e : new ApiError('other', this.spec.path, String(e)), true);
    }
  }

  private replace(items: KObject[]): void {
    const changes: Change[] = [];
    const seen = new Set<string>();
    for (const object of items) {
      const key = objectKey(object);
      seen.add(key);
      const old = this.store.get(key);
      if (!old) changes.push({ type: 'added', key, object });
      else if (old.metadata.resourceVersion !== object.metadata.resourceVersion) changes.push({ type: 'modified', key, object });
      this.store.set(key, object);
    }
    for (const [key, object] of this.store) {
      if (!seen.has(key)) {
        this.store.delete(key);
        changes.push({ type: 'deleted', key, object });
      }
    }
    // Always notify after a list, even without changes: consumers learn that the resource is synced.
    this.onChange(changes, this);
  }

  private watch(gen: number): void {
    this.closeWatch();
    this.setState('watching');
    this.stats.watches++;
    const t = this.opts.timeoutSeconds;
    const timeoutSeconds = Math.floor(t + this.clock.random() * t);
    const params: Params = { ...this.baseParams(), allowWatchBookmarks: 'true', timeoutSeconds: String(timeoutSeconds) };
    if (this.resourceVersion) params.resourceVersion = this.resourceVersion;
    this.watchOpenedAt = this.lastActivity = this.clock.now();
    this.watchTimeoutMs = timeoutSeconds * 1000;
    let closed = false;
    const abort = this.transport.watch(
      this.spec.path,
      params,
      (event) => {
        if (gen !== this.generation || closed) return;
        this.onEvent(gen, event);
      },
      (error) => {
        if (gen !== this.generation || closed) return;
        closed = true;
        this.abortWatch = undefined;
        this.clock.clearTimeout(this.stallTimer);
        if (!error) {
          // The server ended the watch at its timeout: continue from where we are.
          this.failures = 0;
          this.watch(gen);
        } else if (error.status === 410 || error.kind === 'gone') this.relistAfterGone(gen);
        else this.fail(gen, error, false);
      },
    );
    this.abortWatch = () => {
      closed = true;
      abort();
    };
    this.armStallCheck(gen);
  }

  private onEvent(gen: number, event: WatchEvent): void {
    this.lastActivity = this.clock.now();
    this.stats.events++;
    if (event.type === 'ERROR') {
      const status = event.object as ApiStatus;
      this.closeWatch();
      if (status.code === 410) this.relistAfterGone(gen);
      else this.fail(gen, httpError(status.code ?? 500, this.spec.path, JSON.stringify(status)), false);
      return;
    }
    const object = event.object as KObject;
    if (object.metadata?.resourceVersion) this.resourceVersion = object.metadata.resourceVersion;
    if (event.type === 'BOOKMARK') {
      this.stats.bookmarks++;
      return;
    }
    this.failures = 0;
    const key = objectKey(object);
    if (event.type === 'DELETED') {
      this.store.delete(key);
      this.onChange([{ type: 'deleted', key, object }], this);
    } else {
      const existed = this.store.has(key);
      this.store.set(key, object);
      this.onChange([{ type: existed ? 'modified' : 'added', key, object }], this);
    }
  }

  private relistAfterGone(gen: number): void {
    this.stats.relistsAfterGone++;
    this.resourceVersion = undefined;
    void this.list(gen);
  }

  private fail(gen: number, error: ApiError, relist: boolean): void {
    this.closeWatch();
    this.stats.errors++;
    this.failures++;
    this.lastError = error;
    this.setState('backoff');
    const ceiling = Math.min(this.opts.backoffMaxMs, this.opts.backoffBaseMs * 2 ** Math.min(this.failures - 1, 16));
    // Equal jitter: half fixed, half random, so many clients that failed together spread out.
    const delay = ceiling / 2 + this.clock.random() * (ceiling / 2);
    this.clock.clearTimeout(this.retryTimer);
    this.retryTimer = this.clock.setTimeout(() => {
      if (gen !== this.generation) return;
      if (relist || !this.resourceVersion) void this.list(gen);
      else this.watch(gen);
    }, delay);
  }

  private armStallCheck(gen: number): void {
    this.clock.clearTimeout(this.stallTimer);
    this.stallTimer = this.clock.setTimeout(() => {
      if (gen !== this.generation || this.state !== 'watching') return;
      const now = this.clock.now();
      const overdue = now - this.watchOpenedAt > this.watchTimeoutMs + this.opts.stallGraceMs;
      const idle = now - this.lastActivity > this.opts.idleStallMs;
      if (overdue || idle) {
        this.stats.stallRestarts++;
        this.watch(gen);
      } else this.armStallCheck(gen);
    }, this.opts.stallCheckMs);
  }

  private closeWatch(): void {
    this.clock.clearTimeout(this.stallTimer);
    const abort = this.abortWatch;
    this.abortWatch = undefined;
    abort?.();
  }
}
