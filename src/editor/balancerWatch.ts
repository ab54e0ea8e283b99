/**
 * The balancers read live over SSH (engine/balancers.ts) every 2 s while someone looks (the Inventory view is
 * visible), and only while the editor is connected to this inventory's cluster (the kubeconfig's server is the
 * inventory's controlPlaneEndpoint) — so a workspace pointed at another cluster, or none, never dials its balancers.
 */
import * as vscode from 'vscode';
import type { BalancersModel } from '../core/live/balancers';
import { serverMatchesEndpoint } from '../core/live/kubeconfig';
import type { RemoteExec } from '../core/live/etcdSource';
import type { ClusterConnection } from './clusterConnection';
import type { InventoryWorkspace } from './inventoryWorkspace';
import { log } from './log';
import { errorMessage } from '../core/errors';

/**
 * A read takes a few hundred milliseconds (the VRRP probe with keepalived's data dump, HAProxy's stats), so a split
 * brain or a stuck VIP shows within EVERY_MS + one read: under the 5 s the balancer drills hold the live view to.
 */
export const BALANCER_POLL_MS = 2000;

export class BalancerWatch implements vscode.Disposable {
  private readonly emitter = new vscode.EventEmitter<BalancersModel | undefined>();
  readonly onDidChange = this.emitter.event;
  private readonly disposables: vscode.Disposable[] = [this.emitter];
  private refs = 0;
  private timer: NodeJS.Timeout | undefined;
  private busy = false;
  model: BalancersModel | undefined;

  constructor(
    private readonly inventory: InventoryWorkspace,
    private readonly connection: ClusterConnection,
    private readonly remote: () => RemoteExec | undefined,
  ) {
    this.disposables.push(connection.onDidChangeState(() => this.refs && void this.poll()));
  }

  /** Reads while the returned disposable lives. */
  acquire(): vscode.Disposable {
    if (++this.refs === 1) void this.poll();
    return new vscode.Disposable(() => {
      if (--this.refs === 0) {
        clearTimeout(this.timer);
        this.timer = undefined;
      }
    });
  }

  private eligible(): { remote: RemoteExec; nonRoot: boolean } | undefined {
    const inv = this.inventory.current?.inventory;
    const state = this.connection.state;
    if (!inv || state.kind !== 'connected' || !serverMatchesEndpoint(state.server, inv.cluster.controlPlaneEndpoint)) return undefined;
    if (!inv.hosts.some((h) => h.roles.includes('loadbalancer'))) return undefined;
    const remote = this.remote();
    return remote ? { remote, nonRoot: (inv.ssh.user ?? 'root') !== 'root' } : undefined;
  }

  async poll(): Promise<void> {
    clearTimeout(this.timer);
    if (!this.refs || this.busy) return;
    const target = this.eligible();
    const inv = this.inventory.current?.inventory;
    if (!target || !inv) {
      if (this.model) {
        this.model = undefined;
        this.emitter.fire(undefined);
      }
      return;
    }
    this.busy = true;
    try {
      // The balancers' reader loads with the first poll (only once connected to this inventory's cluster).
      const { readBalancers, rootRunnerOver } = await import('../engine/balancers.js');
      const next = await readBalancers(rootRunnerOver(target.remote, target.nonRoot, 8000), inv);
      // the views re-render only on a change: a tree refreshed every 2 s for nothing closes what the user opened
      const changed = signature(next) !== (this.model ? signature(this.model) : undefined);
      this.model = next;
      if (changed) this.emitter.fire(this.model);
    } catch (e) {
      // Per-balancer failures are in the model; this is the read itself failing. Logged, and the next poll still comes.
      log.warn(`balancers of ${inv.cluster.name}: ${errorMessage(e)}`);
    } finally {
      this.busy = false;
    }
    if (this.refs) this.timer = setTimeout(() => void this.poll(), BALANCER_POLL_MS);
  }

  dispose(): void {
    clearTimeout(this.timer);
    vscode.Disposable.from(...this.disposables).dispose();
  }
}

/** What the views show of a read (its time apart). */
function signature(m: BalancersModel): string {
  return JSON.stringify({ ...m, fetchedAt: 0 });
}
