/**
 * Shared machinery of the live views (Control Plane, Leases, etcd Members): the view builds a plain
 * tree of LiveNodes from the model; `LiveTree` reconciles it with what VS Code already shows, keeping
 * element identity by id, and fires onDidChangeTreeData only for the elements whose rendering changed
 * (or their parent when children were added/removed). Watches run only while the view is visible; a
 * 2-second tick while visible lets time-based states (a lease going stale sends no event) advance.
 */
import * as vscode from 'vscode';
import type { ClusterConnection } from '../editor/clusterConnection';
import type { ResourceKey } from '../core/live/resources';
import { plainWords } from '../core/text/plainWords';
import { kubeconfigFound } from '../editor/contextPicker';
import type { LiveNode, Markdown } from '../editor/treeNodes';
import { connectionProblemRows } from './rowLook';
import { log } from '../editor/log';
import { errorMessage } from '../core/errors';


function signature(n: LiveNode): string {
  const tip = typeof n.tooltip === 'string' ? n.tooltip : n.tooltip?.markdown;
  return `${n.label}\u0000${n.description ?? ''}\u0000${tip ?? ''}\u0000${n.icon ?? ''}\u0000${n.color ?? ''}\u0000${n.contextValue ?? ''}\u0000${n.children ? 'c' : ''}`;
}

/**
 * A view's row builders, loaded with the first cluster to show rather than at activation (test/budgets.ts): undefined
 * until loaded, then the view asked for it is rebuilt. One import() however many builds ask meanwhile.
 */
export function lazyRows<M>(load: () => Promise<M>): (view: LiveTreeView) => M | undefined {
  let rows: M | undefined;
  let loading = false;
  return (view) => {
    if (!rows && !loading) {
      loading = true;
      void load().then(
        (m) => {
          rows = m;
          view.refresh();
        },
        (e: unknown) => log.error(`the ${view.viewId} rows did not load: ${errorMessage(e)}`),
      );
    }
    return rows;
  };
}

export abstract class LiveTreeView implements vscode.TreeDataProvider<LiveNode>, vscode.Disposable {
  private readonly changeEmitter = new vscode.EventEmitter<LiveNode | LiveNode[] | undefined>();
  readonly onDidChangeTreeData = this.changeEmitter.event;
  readonly treeView: vscode.TreeView<LiveNode>;
  protected readonly disposables: vscode.Disposable[] = [this.changeEmitter];
  private roots: LiveNode[] = [];
  private showingProblem = false;
  private claim: vscode.Disposable | undefined;
  private tick: NodeJS.Timeout | undefined;
  /** Refreshes fired (for tests and the benchmark). */
  stats = { refreshes: 0, elementsFired: 0, rootFires: 0, lastBuildMs: 0 };

  protected constructor(
    readonly viewId: string,
    protected readonly connection: ClusterConnection,
    private readonly resources: readonly ResourceKey[],
    private readonly etcd = false,
  ) {
    this.treeView = vscode.window.createTreeView(viewId, { treeDataProvider: this, showCollapseAll: true });
    this.disposables.push(
      this.treeView,
      this.treeView.onDidChangeVisibility((e) => this.setVisible(e.visible)),
      connection.onDidChange(() => this.treeView.visible && this.refresh()),
      connection.onDidChangeState(() => this.treeView.visible && this.refresh()),
      connection.onDidChangeHealth(() => this.treeView.visible && this.updateMessage()),
    );
    if (this.treeView.visible) this.setVisible(true);
  }

  private setVisible(visible: boolean): void {
    if (visible && !this.claim) {
      this.claim = this.connection.acquire(this.resources, this.etcd);
      this.tick = setInterval(() => this.refresh(), 2000);
      this.refresh();
    } else if (!visible && this.claim) {
      this.claim.dispose();
      this.claim = undefined;
      clearInterval(this.tick);
      this.tick = undefined;
    }
  }

  /** The current tree (empty → the view's welcome content shows). */
  protected abstract build(): LiveNode[];

  /**
   * Rows that replace the tree when the connection failed for a reason other than a missing kubeconfig: the reason in
   * plain words and what to do. With no kubeconfig (or untrusted, idle) the tree stays empty and without a message,
   * so the view's welcome content with its buttons shows — a view message would hide it.
   */
  private problemRows(): LiveNode[] | undefined {
    const s = this.connection.state;
    const cluster = this.connection.cluster;
    let reason: string | undefined;
    if (s.kind === 'error' && kubeconfigFound()) reason = plainWords(s.message);
    else if (s.kind === 'connected' && cluster && !cluster.synced(this.resources)) {
      // Connected to a kubeconfig whose server never answered: nothing was listed yet, so say why instead of an empty view.
      const err = cluster.error(this.resources);
      if (err) reason = vscode.l10n.t('{0} (retrying)', plainWords(err.describe()));
    }
    this.showingProblem = reason !== undefined;
    if (reason === undefined) return undefined;
    return connectionProblemRows(reason);
  }

  /** Rebuilds and fires per changed element. */
  refresh(): void {
    const t0 = performance.now();
    const fresh = this.problemRows() ?? this.build();
    const changed: LiveNode[] = [];
    let rootChanged = false;
    const reconcile = (old: LiveNode[], next: LiveNode[], parent: LiveNode | undefined): LiveNode[] => {
      const byId = new Map(old.map((n) => [n.id, n]));
      let structural = old.length !== next.length;
      const out = next.map((n, i) => {
        const prev = byId.get(n.id);
        if (!prev) {
          structural = true;
          return n;
        }
        if (old[i]?.id !== n.id) structural = true;
        const kids = n.children;
        if (signature(prev) !== signature(n)) {
          const prevKids = prev.children;
          Object.assign(prev, { ...n, children: prevKids });
          for (const k of Object.keys(prev) as (keyof LiveNode)[]) if (!(k in n) && k !== 'children') delete prev[k];
          changed.push(prev);
        }
        prev.children = kids ? reconcile(prev.children ?? [], kids, prev) : undefined;
        return prev;
      });
      if (structural) {
        if (parent) changed.push(parent);
        else rootChanged = true;
      }
      return out;
    };
    this.roots = reconcile(this.roots, fresh, undefined);
    this.stats.lastBuildMs = performance.now() - t0;
    if (rootChanged) {
      this.stats.rootFires++;
      this.changeEmitter.fire(undefined);
    } else if (changed.length) {
      this.stats.elementsFired += changed.length;
      this.changeEmitter.fire([...new Set(changed)]);
    }
    if (rootChanged || changed.length) this.stats.refreshes++;
    this.updateMessage();
  }

  /** The view's message line: only transient states (connecting, listing, a watch retrying). */
  protected updateMessage(): void {
    const s = this.connection.state;
    const cluster = this.connection.cluster;
    let message: string | undefined;
    // error and untrusted: no message (the problem rows or the welcome content say it, with buttons).
    if (this.showingProblem) message = undefined;
    else if (s.kind === 'connecting') message = vscode.l10n.t('Connecting…');
    else if (s.kind === 'connected' && cluster) {
      const err = cluster.error(this.resources);
      const health = this.connection.health;
      // Refused: say who we are and what we may not do (the health model's words), not only the HTTP status.
      if (err && (err.kind === 'auth' || err.kind === 'forbidden') && health?.state === 'unauthorised') message = plainWords(vscode.l10n.t('Unauthorised — {0}', health.reasons.join('; ')));
      else if (err) message = vscode.l10n.t('{0} (retrying)', plainWords(err.describe()));
      else if (!cluster.synced(this.resources)) message = vscode.l10n.t('Listing…');
    }
    this.treeView.message = message;
  }

  getChildren(element?: LiveNode): LiveNode[] {
    return element ? (element.children ?? []) : this.roots;
  }

  getTreeItem(n: LiveNode): vscode.TreeItem {
    return liveTreeItem(n);
  }

  getParent(element: LiveNode): LiveNode | undefined {
    const find = (list: LiveNode[], parent: LiveNode | undefined): LiveNode | undefined => {
      for (const n of list) {
        if (n === element) return parent;
        const f = n.children && find(n.children, n);
        if (f) return f;
      }
      return undefined;
    };
    return find(this.roots, undefined);
  }

  dispose(): void {
    clearInterval(this.tick);
    this.claim?.dispose();
    vscode.Disposable.from(...this.disposables).dispose();
  }
}


function markdownString(m: Markdown): vscode.MarkdownString {
  const s = new vscode.MarkdownString(m.markdown);
  s.supportThemeIcons = true;
  return s;
}

export function liveTreeItem(n: LiveNode): vscode.TreeItem {
  const state = n.children ? (n.expanded ? vscode.TreeItemCollapsibleState.Expanded : vscode.TreeItemCollapsibleState.Collapsed) : vscode.TreeItemCollapsibleState.None;
  const item = new vscode.TreeItem(n.label, state);
  item.id = n.id;
  if (n.description !== undefined) item.description = n.description;
  if (n.tooltip !== undefined) item.tooltip = typeof n.tooltip === 'string' ? n.tooltip : markdownString(n.tooltip);
  if (n.icon) item.iconPath = new vscode.ThemeIcon(n.icon, n.color ? new vscode.ThemeColor(n.color) : undefined);
  if (n.contextValue) item.contextValue = n.contextValue;
  if (n.command) item.command = n.command;
  item.accessibilityInformation = { label: `${n.label}${n.description ? `, ${n.description}` : ''}` };
  return item;
}
