/**
 * Inventory view: groups (Load balancers, Control plane, Workers) → hosts with address and role.
 * Selecting a host reveals its line in inventory.yaml.
 */
import * as vscode from 'vscode';
import type { HostSpec, Role } from '../core/inventory/types';
import { sshFor } from '../core/inventory/types';
import { CommandIds, ViewIds } from '../commands/ids';
import type { InventoryWorkspace, LoadedInventory } from '../editor/inventoryWorkspace';

interface GroupDef {
  role: Role;
  label: string;
  icon: string;
}

const GROUPS: GroupDef[] = [
  { role: 'loadbalancer', label: 'Load balancers', icon: 'globe' },
  { role: 'control-plane', label: 'Control plane', icon: 'server-process' },
  { role: 'worker', label: 'Workers', icon: 'server' },
];

export type InventoryNode =
  | { kind: 'group'; group: GroupDef; hosts: HostSpec[] }
  | { kind: 'host'; host: HostSpec; role: Role }
  | { kind: 'problem'; errors: number };

export class InventoryView implements vscode.TreeDataProvider<InventoryNode>, vscode.Disposable {
  private readonly changeEmitter = new vscode.EventEmitter<InventoryNode | undefined>();
  readonly onDidChangeTreeData = this.changeEmitter.event;
  private readonly disposables: vscode.Disposable[] = [this.changeEmitter];
  readonly treeView: vscode.TreeView<InventoryNode>;

  constructor(private readonly workspace: InventoryWorkspace) {
    this.treeView = vscode.window.createTreeView(ViewIds.inventory, { treeDataProvider: this, showCollapseAll: true });
    this.disposables.push(this.treeView, workspace.onDidChange(() => this.changeEmitter.fire(undefined)));
  }

  async getChildren(element?: InventoryNode): Promise<InventoryNode[]> {
    if (!element) return this.roots(await this.workspace.get());
    if (element.kind === 'group') return element.hosts.map((host) => ({ kind: 'host', host, role: element.group.role }));
    return [];
  }

  private roots(loaded: LoadedInventory | undefined): InventoryNode[] {
    // Returning no roots lets the view's welcome content explain how to create an inventory.
    if (!loaded) return [];
    const nodes: InventoryNode[] = [];
    const errors = loaded.result.findings.filter((f) => f.severity === 'error').length;
    if (errors) nodes.push({ kind: 'problem', errors });
    const hosts = loaded.inventory?.hosts ?? [];
    for (const group of GROUPS) {
      const members = hosts.filter((h) => h.roles.includes(group.role));
      if (members.length) nodes.push({ kind: 'group', group, hosts: members });
    }
    return nodes;
  }

  getTreeItem(node: InventoryNode): vscode.TreeItem {
    switch (node.kind) {
      case 'problem': {
        const item = new vscode.TreeItem(`inventory.yaml has ${node.errors} error${node.errors === 1 ? '' : 's'}`);
        item.iconPath = new vscode.ThemeIcon('error', new vscode.ThemeColor('problemsErrorIcon.foreground'));
        item.tooltip = 'Hosts with errors are left out until they are fixed. See the Problems panel.';
        item.command = { command: 'workbench.actions.view.problems', title: 'Show Problems' };
        item.contextValue = 'problem';
        return item;
      }
      case 'group': {
        const item = new vscode.TreeItem(node.group.label, vscode.TreeItemCollapsibleState.Expanded);
        item.id = `group:${node.group.role}`;
        item.description = String(node.hosts.length);
        item.iconPath = new vscode.ThemeIcon(node.group.icon);
        item.contextValue = `group-${node.group.role}`;
        return item;
      }
      case 'host': {
        const { host } = node;
        const item = new vscode.TreeItem(host.name, vscode.TreeItemCollapsibleState.None);
        item.id = `host:${node.role}:${host.name}`;
        item.description = `${host.address} · ${describeRoles(host)}`;
        item.tooltip = hostTooltip(this.workspace.current, host);
        item.iconPath = new vscode.ThemeIcon(host.vrrp?.state === 'MASTER' ? 'star-full' : 'vm');
        item.contextValue = `host-${node.role}`;
        item.command = { command: CommandIds.revealHost, title: 'Reveal Host in Inventory', arguments: [node] };
        return item;
      }
    }
  }

  dispose(): void {
    vscode.Disposable.from(...this.disposables).dispose();
  }
}

function describeRoles(host: HostSpec): string {
  const roles = host.roles.join(', ');
  return host.vrrp ? `${roles} (${host.vrrp.state} ${host.vrrp.priority})` : roles;
}

function hostTooltip(loaded: LoadedInventory | undefined, host: HostSpec): vscode.MarkdownString {
  const md = new vscode.MarkdownString(undefined, true);
  md.appendMarkdown(`**${host.name}** — \`${host.address}\`\n\n`);
  md.appendMarkdown(`Roles: ${host.roles.join(', ')}\n\n`);
  if (loaded?.inventory) {
    const ssh = sshFor(loaded.inventory, host);
    md.appendMarkdown(`SSH: \`${ssh.user}@${host.address}:${ssh.port}\`${ssh.proxyJump ? ` via \`${ssh.proxyJump}\`` : ''}\n\n`);
  }
  if (host.vrrp) md.appendMarkdown(`VRRP: ${host.vrrp.state}, priority ${host.vrrp.priority} on \`${host.vrrp.interface}\`\n\n`);
  return md;
}
