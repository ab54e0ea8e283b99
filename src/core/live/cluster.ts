/**
 * The live cluster: one Reflector per watched resource, started while at least one consumer needs it
 * (views acquire their resources while visible and release them when hidden), change notifications
 * coalesced to ≤ 2 per second with the set of changed objects, and an etcd reader polled only while
 * someone needs etcd (etcd has no watch for member status).
 */
import type { Inventory } from '../inventory/types';
import { Coalescer } from './coalesce';
import { describeError, type ApiError } from './errors';
import type { EtcdModel } from './etcd';
import { Resources, type ResourceKey } from './resources';
import { buildLiveModel, type ClusterObjects, type LiveModel } from './snapshot';
import { verdict, type Verdict } from './status';
import type { DaemonSet, Deployment, Lease, Node, Pod } from './types';
import { Reflector, realClock, type Change, type Clock, type KubeTransport, type ReflectorOptions } from './watch';

/** A changed object: `<resource>:<namespace/name>`, or `<resource>:*` after a list, or `etcd`. */
export type ChangeKey = string;

export interface LiveClusterOptions extends ReflectorOptions {
  /** Coalescing interval of change notifications. Default 500 ms. */
  notifyIntervalMs?: number;
  /** How often etcd is read while needed. Default ETCD_INTERVAL_MS. */
  etcdIntervalMs?: number;
}

/**
 * 2 s: a member lost just after a read answered shows after this pause and one more read — that read's exec (and a
 * second one when the first hangs on the lost node, etcdReader's hedge) plus etcdctl's command timeout. 3 s left a
 * powered-off member unseen for ~5–8 s.
 */
export const ETCD_INTERVAL_MS = 2_000;

export type EtcdReader = () => Promise<EtcdModel>;

export class LiveCluster {
  readonly reflectors: Record<ResourceKey, Reflector>;
  private readonly refs = new Map<ResourceKey, number>();
  private readonly listeners = new Set<(keys: Set<ChangeKey>) => void>();
  private readonly coalescer: Coalescer<ChangeKey>;
  private readonly clock: Clock;
  private etcdRefs = 0;
  private etcdTimer: unknown;
  private etcdBusy = false;
  etcd: EtcdModel | undefined;
  etcdError: string | undefined;
  private inv: Inventory | undefined;
  /** Bumped on every delivery: views built from the same delivery share one model. */
  private version = 0;
  private cached: { key: string; model: LiveModel } | undefined;

  get inventory(): Inventory | undefined {
    return this.inv;
  }

  set inventory(inventory: Inventory | undefined) {
    this.inv = inventory;
    this.version++;
  }

  constructor(
    transport: KubeTransport,
    private readonly etcdReader?: EtcdReader,
    private readonly options: LiveClusterOptions = {},
  ) {
    this.clock = options.clock ?? realClock;
    this.coalescer = new Coalescer(
      (keys) => {
        this.version++;
        this.listeners.forEach((l) => l(keys));
      },
      options.notifyIntervalMs ?? 500,
      this.clock,
    );
    const onChange = (changes: Change[], r: Reflector) => {
      if (!changes.length) this.coalescer.mark(`${r.spec.key}:*`);
      for (const c of changes) this.coalescer.mark(`${r.spec.key}:${c.key}`);
    };
    const onState = (r: Reflector) => this.coalescer.mark(`${r.spec.key}:state`);
    this.reflectors = Object.fromEntries(
      (Object.keys(Resources) as ResourceKey[]).map((k) => [k, new Reflector(transport, Resources[k], onChange, options, onState)]),
    ) as Record<ResourceKey, Reflector>;
  }

  /** Listens to coalesced changes. Returns the unsubscribe. */
  onDidChange(listener: (keys: Set<ChangeKey>) => void): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  /** Starts the watches of `resources` (and etcd polling when `etcd`) until the returned release is called. */
  acquire(resources: readonly ResourceKey[], etcd = false): () => void {
    for (const k of resources) {
      const n = (this.refs.get(k) ?? 0) + 1;
      this.refs.set(k, n);
      if (n === 1) this.reflectors[k].start();
    }
    if (etcd) this.acquireEtcd();
    let released = false;
    return () => {
      if (released) return;
      released = true;
      for (const k of resources) {
        const n = (this.refs.get(k) ?? 1) - 1;
        this.refs.set(k, n);
        if (n === 0) this.reflectors[k].stop();
      }
      if (etcd) this.releaseEtcd();
    };
  }

  private acquireEtcd(): void {
    if (!this.etcdReader) return;
    if (++this.etcdRefs === 1) void this.pollEtcd();
  }

  private releaseEtcd(): void {
    if (!this.etcdReader) return;
    if (--this.etcdRefs === 0) {
      this.clock.clearTimeout(this.etcdTimer);
      this.etcdTimer = undefined;
    }
  }

  /** Reads etcd now (also used by a manual refresh). */
  async refreshEtcd(): Promise<void> {
    if (!this.etcdReader || this.etcdBusy) return;
    this.etcdBusy = true;
    try {
      this.etcd = await this.etcdReader();
      this.etcdError = undefined;
    } catch (e) {
      this.etcdError = describeError(e);
    } finally {
      this.etcdBusy = false;
    }
    this.coalescer.mark('etcd');
  }

  private async pollEtcd(): Promise<void> {
    await this.refreshEtcd();
    if (this.etcdRefs > 0) {
      this.clock.clearTimeout(this.etcdTimer);
      this.etcdTimer = this.clock.setTimeout(() => void this.pollEtcd(), this.options.etcdIntervalMs ?? ETCD_INTERVAL_MS);
    }
  }

  objects(): ClusterObjects {
    const values = <T>(k: ResourceKey) => [...this.reflectors[k].store.values()] as T[];
    return {
      pods: values<Pod>('pods'),
      nodes: values<Node>('nodes'),
      nodeLeases: values<Lease>('nodeLeases'),
      systemLeases: values<Lease>('systemLeases'),
      daemonSets: values<DaemonSet>('daemonSets'),
      deployments: values<Deployment>('deployments'),
    };
  }

  /**
   * The models of the current state. Views refreshing for the same delivery (and within the same 250 ms for
   * the time-based states) share one build: with 5,000 nodes a build is tens of milliseconds.
   */
  model(now?: number): LiveModel {
    const t = now ?? this.clock.now();
    const key = now === undefined ? `${this.version}:${Math.floor(t / 250)}` : '';
    if (key && this.cached?.key === key) return this.cached.model;
    const model = buildLiveModel(this.objects(), t, this.inv, this.etcd);
    if (key) this.cached = { key, model };
    return model;
  }

  /** The latest event or bookmark on any open watch: proof the API answers through the endpoint. */
  lastHeardAt(): number | undefined {
    let latest: number | undefined;
    for (const r of Object.values(this.reflectors)) {
      const t = r.lastActivityAt;
      if (t !== undefined && (latest === undefined || t > latest)) latest = t;
    }
    return latest;
  }

  /** True when every reflector in `resources` has listed at least once. */
  synced(resources: readonly ResourceKey[]): boolean {
    return resources.every((k) => this.reflectors[k].synced);
  }

  /** The first error among `resources`' reflectors that are currently failing. */
  error(resources: readonly ResourceKey[]): ApiError | undefined {
    for (const k of resources) {
      const r = this.reflectors[k];
      if (r.state === 'backoff' && r.lastError) return r.lastError;
    }
    return undefined;
  }

  /**
   * The verdict on what is being watched now (stale stores of stopped watches do not count): the full verdict while
   * pods and nodes are watched, etcd's alone while only etcd is read, undefined when nothing is.
   */
  verdict(): Verdict | undefined {
    const current = (keys: ResourceKey[]) => keys.every((k) => this.reflectors[k].synced && this.reflectors[k].state !== 'stopped');
    const full = current(['pods', 'nodes']);
    const etcd = this.etcdRefs > 0 ? this.etcd : undefined;
    if (!full && !etcd) return undefined;
    const model = this.model();
    if (full) return verdict({ ...model, etcd, leases: current(['nodeLeases', 'systemLeases']) ? model.leases : { nodes: [], leaders: [], apiservers: [] } });
    return verdict({ ...model, etcd, controlPlane: { nodes: [], addons: [] }, hosts: [], leases: { nodes: [], leaders: [], apiservers: [] } });
  }

  /** A watch or list the API server refused (401/403) among the running reflectors: we are not who we need to be. */
  denial(): ApiError | undefined {
    for (const r of Object.values(this.reflectors)) {
      const e = r.lastError;
      if (r.state === 'backoff' && e && (e.kind === 'auth' || e.kind === 'forbidden')) return e;
    }
    return undefined;
  }

  dispose(): void {
    for (const r of Object.values(this.reflectors)) r.stop();
    this.clock.clearTimeout(this.etcdTimer);
    this.coalescer.dispose();
    this.listeners.clear();
  }
}
