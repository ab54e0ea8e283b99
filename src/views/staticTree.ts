/**
 * The views whose rows change only when their source says so (Backups, Certificates): a plain tree of LiveNodes,
 * replaced as a whole by `setRoots`, rendered by the live views' `liveTreeItem`. The live views (Control Plane,
 * Leases, etcd Members) reconcile element by element instead (liveTree.ts): they change every few seconds.
 */
import * as vscode from 'vscode';
import type { LiveNode } from '../editor/treeNodes';
import { liveTreeItem } from './liveTree';

export abstract class StaticTreeView implements vscode.TreeDataProvider<LiveNode>, vscode.Disposable {
  private readonly emitter = new vscode.EventEmitter<undefined>();
  readonly onDidChangeTreeData = this.emitter.event;
  readonly treeView: vscode.TreeView<LiveNode>;
  protected readonly disposables: vscode.Disposable[];
  private roots: LiveNode[] = [];

  protected constructor(viewId: string) {
    this.treeView = vscode.window.createTreeView(viewId, { treeDataProvider: this, showCollapseAll: true });
    this.disposables = [this.emitter, this.treeView];
  }

  /** Shows `roots` in place of the rows shown. */
  protected setRoots(roots: LiveNode[]): void {
    this.roots = roots;
    this.emitter.fire(undefined);
  }

  /** The rendered tree (for tests). */
  get nodes(): readonly LiveNode[] {
    return this.roots;
  }

  getTreeItem(n: LiveNode): vscode.TreeItem {
    return liveTreeItem(n);
  }

  getChildren(n?: LiveNode): LiveNode[] {
    return n ? (n.children ?? []) : this.roots;
  }

  dispose(): void {
    this.disposables.forEach((d) => d.dispose());
  }
}
