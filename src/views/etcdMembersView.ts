/**
 * etcd Members view. Filled from the live cluster model (watch-based) once a cluster connection exists;
 * until then it has no roots and VS Code shows the view's welcome content from package.json.
 */
import * as vscode from 'vscode';
import { ViewIds } from '../commands/ids';

export class EtcdMembersView implements vscode.TreeDataProvider<vscode.TreeItem>, vscode.Disposable {
  private readonly changeEmitter = new vscode.EventEmitter<vscode.TreeItem | undefined>();
  readonly onDidChangeTreeData = this.changeEmitter.event;
  readonly treeView: vscode.TreeView<vscode.TreeItem>;

  constructor() {
    this.treeView = vscode.window.createTreeView(ViewIds.etcdMembers, { treeDataProvider: this });
  }

  getChildren(): vscode.TreeItem[] {
    return [];
  }

  getTreeItem(item: vscode.TreeItem): vscode.TreeItem {
    return item;
  }

  dispose(): void {
    this.treeView.dispose();
    this.changeEmitter.dispose();
  }
}
