/**
 * The editor's connection to the cluster: the kubeconfig from `kubeadmWorkbench.kubeconfig` or
 * KUBECONFIG (merged like kubectl), the context picked with "Kubeadm: Select Cluster Context"
 * (remembered per workspace), and the LiveCluster the views watch through.
 *
 * Lazy: nothing connects at activation. The first view that becomes visible acquires its resources,
 * which loads the kube adapter bundle (dist/kube.js) and connects. Views release when hidden, so
 * watches run only while someone looks. In an untrusted workspace nothing connects.
 */
import * as vscode from 'vscode';
import type { KubeConnection, KubeconfigChoice } from '../adapters/kube/index';
import { loadKubeAdapter } from '../adapters/kube/load';
import type { LiveCluster, ChangeKey } from '../core/live/cluster';
import { describeError, errorKind, type FailureKind } from '../core/live/errors';
import type { ResourceKey } from '../core/live/resources';
import { contextForEndpoint } from '../core/live/kubeconfig';
import type { RemoteExec } from '../core/live/etcdSource';
import type { InventoryWorkspace } from './inventoryWorkspace';
import { assessHealth, type ClusterHealth, type HealthInput } from '../core/live/health';
import type { BalancersModel } from '../core/live/balancers';
import { withBalancers, withProblems, type Problem } from '../core/live/status';
import { setting } from './settings';
import { log } from './log';
import { ALL_RESOURCES } from '../core/live/resources';

/** How often the health facts (/readyz, identity) are asked while the window is focused. */
const HEALTH_EVERY_MS = 30_000;

const CONTEXT_KEY = 'kubeadm.clusterContext';

export type ConnectionState =
  | { kind: 'idle' }
  | { kind: 'untrusted' }
  | { kind: 'connecting' }
  | { kind: 'connected'; context: string; server: string }
  | { kind: 'error'; message: string; failure?: FailureKind };

interface Claim {
  resources: readonly ResourceKey[];
  etcd: boolean;
  release?: () => void;
}

export class ClusterConnection implements vscode.Disposable {
  private readonly stateEmitter = new vscode.EventEmitter<ConnectionState>();
  /** Connection state changes (connecting, connected, error, disconnected). */
  readonly onDidChangeState = this.stateEmitter.event;
  private readonly changeEmitter = new vscode.EventEmitter<Set<ChangeKey>>();
  /** Coalesced object changes (≤ 2 per second) from the watches. */
  readonly onDidChange = this.changeEmitter.event;
  private readonly healthEmitter = new vscode.EventEmitter<ClusterHealth | undefined>();
  /** The health model changed state or headline (status bar, views). */
  readonly onDidChangeHealth = this.healthEmitter.event;
  private readonly disposables: vscode.Disposable[] = [this.stateEmitter, this.changeEmitter, this.healthEmitter];
  /** The health model (core/live/health.ts) of the connected cluster; undefined until first assessed. */
  health: ClusterHealth | undefined;
  private facts: HealthInput | undefined;
  private healthTimer: NodeJS.Timeout | undefined;
  private lastHealthProbe = 0;
  /** Health probes sent (for the idle-requests measurement). */
  healthProbes = 0;
  private conn: KubeConnection | undefined;
  private connecting: Promise<KubeConnection | undefined> | undefined;
  /** The last logged failure of each watch, so a watch in backoff is logged once, not at every retry. */
  private readonly watchFailures = new Map<ResourceKey, string>();
  private unsubscribe: (() => void) | undefined;
  private readonly claims = new Set<Claim>();
  /** Untrusted from the start in Restricted Mode: the status bar says that is what stops it, not "no cluster". */
  state: ConnectionState = vscode.workspace.isTrusted ? { kind: 'idle' } : { kind: 'untrusted' };

  constructor(
    private readonly extension: vscode.ExtensionContext,
    private readonly inventory: InventoryWorkspace,
    /**
     * The SSH layer as a RemoteExec, when the extension has one: etcd is then read over SSH on a control-plane
     * host when the API cannot be used. Without it etcd is read only through the API.
     */
    private readonly remote?: () => RemoteExec | undefined,
  ) {
    this.disposables.push(
      vscode.workspace.onDidChangeConfiguration((e) => e.affectsConfiguration('kubeadmWorkbench.kubeconfig') && void this.reconnect()),
      vscode.workspace.onDidGrantWorkspaceTrust(() => void this.reconnect()),
      vscode.window.onDidChangeWindowState((w) => w.focused && this.conn && Date.now() - this.lastHealthProbe > HEALTH_EVERY_MS && void this.probeHealth()),
      inventory.onDidChange((loaded) => {
        if (this.conn) {
          this.conn.cluster.inventory = loaded?.inventory;
          this.changeEmitter.fire(new Set(['inventory']));
        }
      }),
    );
  }

  get cluster(): LiveCluster | undefined {
    return this.conn?.cluster;
  }

  get connection(): KubeConnection | undefined {
    return this.conn;
  }

  private setState(state: ConnectionState): void {
    this.state = state;
    this.stateEmitter.fire(state);
  }

  private kubeconfigSetting(): string {
    return setting('kubeconfig');
  }

  /** Watches `resources` (and polls etcd when `etcd`) until the returned disposable is disposed. */
  acquire(resources: readonly ResourceKey[], etcd = false): vscode.Disposable {
    const claim: Claim = { resources, etcd };
    this.claims.add(claim);
    void this.ensure().then((conn) => {
      if (conn && this.claims.has(claim) && !claim.release) claim.release = conn.cluster.acquire(resources, etcd);
    });
    return new vscode.Disposable(() => {
      this.claims.delete(claim);
      claim.release?.();
      claim.release = undefined;
    });
  }

  /** Connects if needed; undefined when it cannot (state says why). */
  ensure(): Promise<KubeConnection | undefined> {
    if (this.conn) return Promise.resolve(this.conn);
    if (!vscode.workspace.isTrusted) {
      if (this.state.kind !== 'untrusted') this.setState({ kind: 'untrusted' });
      return Promise.resolve(undefined);
    }
    this.connecting ??= this.open().finally(() => (this.connecting = undefined));
    return this.connecting;
  }

  private async open(): Promise<KubeConnection | undefined> {
    // Never inside activate(): the adapter bundle loads on a later turn of the event loop.
    await new Promise((resolve) => setTimeout(resolve, 0));
    this.setState({ kind: 'connecting' });
    try {
      const adapter = loadKubeAdapter();
      const loaded = await this.inventory.get();
      let context = this.extension.workspaceState.get<string>(CONTEXT_KEY) || undefined;
      if (!context && loaded?.inventory) {
        // No context picked: prefer the one whose server is the inventory's controlPlaneEndpoint (the VIP),
        // so a default kubeconfig pointing at another cluster is not watched by mistake.
        const endpoint = loaded.inventory.cluster.controlPlaneEndpoint;
        const { choice } = await adapter.loadKubeconfig(this.kubeconfigSetting());
        context = contextForEndpoint(choice, endpoint);
      }
      const remote = this.remote?.();
      const conn = await adapter.connect({ kubeconfig: this.kubeconfigSetting(), ...(context ? { context } : {}), ...(loaded?.inventory ? { inventory: loaded.inventory } : {}), ...(remote ? { remote } : {}) });
      this.conn = conn;
      this.unsubscribe = conn.cluster.onDidChange((keys) => {
        this.changeEmitter.fire(keys);
        this.logWatchFailures(conn);
        this.reassess();
      });
      for (const claim of this.claims) if (!claim.release) claim.release = conn.cluster.acquire(claim.resources, claim.etcd);
      this.setState({ kind: 'connected', context: conn.context, server: conn.server });
      void this.probeHealth();
      return conn;
    } catch (e) {
      const failure = errorKind(e);
      log.warn(`cluster connection: ${describeError(e)}`);
      this.setState({ kind: 'error', message: describeError(e), ...(failure ? { failure } : {}) });
      return undefined;
    }
  }

  /** A watch that starts failing, or recovers, is worth one line in the log (the views show only the current state). */
  private logWatchFailures(conn: KubeConnection): void {
    for (const key of ALL_RESOURCES) {
      const message = conn.cluster.error([key])?.describe();
      if (message === this.watchFailures.get(key)) continue;
      if (message) {
        this.watchFailures.set(key, message);
        log.warn(`watch ${key} (${conn.context}): ${message}`);
      } else if (this.watchFailures.delete(key)) log.info(`watch ${key} (${conn.context}): recovered`);
    }
  }

  /** Drops the connection (keeping the claims) and connects again, e.g. after the context changed. */
  async reconnect(): Promise<void> {
    this.close();
    if (this.claims.size) await this.ensure();
    else this.setState({ kind: 'idle' });
  }

  /**
   * Asks the health facts (/readyz unless the watches heard from the API within the interval — then no request
   * beyond the watches; who we are, cached) and assesses. Repeats every 30 s while the window is focused.
   */
  async probeHealth(): Promise<ClusterHealth | undefined> {
    clearTimeout(this.healthTimer);
    const conn = this.conn;
    if (!conn) return undefined;
    if (!vscode.window.state.focused && this.health) return this.health; // resumes on focus
    this.lastHealthProbe = Date.now();
    const heard = conn.cluster.lastHeardAt();
    const skipReadyz = heard !== undefined && Date.now() - heard < HEALTH_EVERY_MS && !conn.cluster.denial();
    if (!skipReadyz) this.healthProbes++;
    const facts = await conn.healthFacts({ skipReadyz });
    if (this.conn !== conn) return undefined;
    this.facts = facts;
    this.reassess(true);
    this.healthTimer = setTimeout(() => void this.probeHealth(), HEALTH_EVERY_MS);
    return this.health;
  }

  /** Re-judges with the last facts and the current verdict (no request); fires when state or headline changed. */
  private reassess(force = false): void {
    const conn = this.conn;
    if (!conn || !this.facts) return;
    const denial = conn.cluster.denial();
    const facts: HealthInput = { ...this.facts, denied: denial ? { kind: denial.kind === 'auth' ? 'auth' : 'forbidden', message: denial.describe() } : this.facts.denied };
    const day2 = this.problemSources.flatMap((s) => s.problems());
    const next = assessHealth({ ...facts, verdict: withProblems(withBalancers(conn.cluster.verdict(), this.balancers?.model), day2) });
    const changed = !this.health || next.state !== this.health.state || next.headline !== this.health.headline || next.reasons.join('\n') !== this.health.reasons.join('\n');
    this.health = next;
    if (changed || force) this.healthEmitter.fire(next);
    // A watch refused while the facts said otherwise: ask who we are again now.
    if (denial && !this.facts.denied && !this.facts.access?.some((a) => !a.allowed)) void this.probeHealth();
  }

  private close(): void {
    clearTimeout(this.healthTimer);
    this.watchFailures.clear();
    this.facts = undefined;
    if (this.health) {
      this.health = undefined;
      this.healthEmitter.fire(undefined);
    }
    for (const claim of this.claims) {
      claim.release?.();
      claim.release = undefined;
    }
    this.unsubscribe?.();
    this.unsubscribe = undefined;
    this.conn?.dispose();
    this.conn = undefined;
  }

  /** The contexts of the merged kubeconfig (or of `kubeconfig`, a file the user is about to choose), for the picker. */
  async contexts(kubeconfig = this.kubeconfigSetting()): Promise<KubeconfigChoice> {
    const { choice } = await loadKubeAdapter().loadKubeconfig(kubeconfig);
    return choice;
  }

  private balancers: { model: BalancersModel | undefined } | undefined;

  /** The balancers' live reads join the health model (a backend DOWN, no VIP holder: degraded). */
  attachBalancers(source: { model: BalancersModel | undefined; onDidChange: vscode.Event<unknown> }): void {
    this.balancers = source;
    this.disposables.push(source.onDidChange(() => this.reassess()));
  }

  private readonly problemSources: { problems(): readonly Problem[] }[] = [];

  /** Problems read over SSH apart from the API (certificates, scheduled snapshots) join the health model. */
  attachProblems(source: { problems(): readonly Problem[]; onDidChange: vscode.Event<unknown> }): void {
    this.problemSources.push(source);
    this.disposables.push(source.onDidChange(() => this.reassess()));
  }

  /** The inventory's controlPlaneEndpoint, when an inventory is loaded. */
  get inventoryEndpoint(): string | undefined {
    return this.inventory.current?.inventory?.cluster.controlPlaneEndpoint;
  }

  get selectedContext(): string | undefined {
    return this.extension.workspaceState.get<string>(CONTEXT_KEY) || undefined;
  }

  async selectContext(name: string | undefined): Promise<void> {
    await this.extension.workspaceState.update(CONTEXT_KEY, name);
    await this.reconnect();
    if (!this.conn) await this.ensure();
  }

  dispose(): void {
    clearTimeout(this.healthTimer);
    this.close();
    this.claims.clear();
    vscode.Disposable.from(...this.disposables).dispose();
  }
}
