/**
 * Inventory view: groups (Load balancers, Control plane, Workers) → hosts with address and role.
 * Selecting a host reveals its line in inventory.yaml. Once the cluster answers, each host expands to its
 * live state: its Node (Ready), its kube-system pods, its etcd member and the leases it holds (watched
 * while the view is visible; only the hosts whose live state changed are refreshed).
 */
import * as vscode from 'vscode';
import type { HostSpec, Role } from '../core/inventory/types';
import { isKubernetesHost, sshFor } from '../core/inventory/types';
import { CommandIds, ViewIds } from '../editor/commandIds';
import type { InventoryWorkspace, LoadedInventory } from '../editor/inventoryWorkspace';
import type { ClusterConnection } from '../editor/clusterConnection';
import type { ResourceKey } from '../core/live/resources';
import type { HostLive } from '../core/live/snapshot';
import { plainWords } from '../core/text/plainWords';
import { toRange } from '../editor/diagnostics';
import { liveTreeItem } from './liveTree';
import type { GroupDef, InventoryNode, LiveNode } from '../editor/treeNodes';
import type { BalancerWatch } from '../editor/balancerWatch';
import { vipNode } from './balancerNodes';
import { memberFacts } from '../core/live/render';
import { skewNotes } from '../core/upgrade/versions';

const LIVE_RESOURCES: readonly ResourceKey[] = ['pods', 'nodes', 'nodeLeases', 'systemLeases'];

// The view's texts are in the display language (vscode.l10n.t), worked out when shown; host names, addresses,
// roles and Kubernetes states stay as the inventory and the cluster give them.
const restricted = (): string => vscode.l10n.t('Restricted Mode: only files are read. Trust the workspace to see the cluster live and to reach the hosts over SSH.');

const loading = (): InventoryNode => ({ kind: 'live', node: { id: 'inventory:loading', label: vscode.l10n.t('Loading inventory.yaml…'), icon: 'loading~spin', tooltip: vscode.l10n.t('Reading and checking inventory.yaml.') } });

const groups = (): GroupDef[] => [
  { role: 'loadbalancer', label: vscode.l10n.t('Load balancers'), icon: 'globe' },
  { role: 'control-plane', label: vscode.l10n.t('Control plane'), icon: 'server-process' },
  { role: 'worker', label: vscode.l10n.t('Workers'), icon: 'server' },
];

export class InventoryView implements vscode.TreeDataProvider<InventoryNode>, vscode.Disposable {
  private readonly changeEmitter = new vscode.EventEmitter<InventoryNode | undefined>();
  readonly onDidChangeTreeData = this.changeEmitter.event;
  private readonly disposables: vscode.Disposable[] = [this.changeEmitter];
  readonly treeView: vscode.TreeView<InventoryNode>;
  /** Host elements are kept by id so a live change can refresh just that host. */
  private readonly hostNodes = new Map<string, Extract<InventoryNode, { kind: 'host' }>>();
  private liveSignatures = new Map<string, string>();
  private live = new Map<string, HostLive>();
  /** Version-skew notes by inventory host (core/upgrade/versions.ts), from the kubelets and the API servers' images. */
  private skew = new Map<string, string>();
  private claim: vscode.Disposable | undefined;
  private balancerClaim: vscode.Disposable | undefined;
  private loading: Promise<unknown> | undefined;

  constructor(
    private readonly workspace: InventoryWorkspace,
    private readonly connection?: ClusterConnection,
    /** The balancers read live while this view is visible; the VIP holder is the first row. */
    private readonly balancers?: BalancerWatch,
  ) {
    this.treeView = vscode.window.createTreeView(ViewIds.inventory, { treeDataProvider: this, showCollapseAll: true });
    this.disposables.push(this.treeView, workspace.onDidChange(() => this.changeEmitter.fire(undefined)), vscode.workspace.onDidGrantWorkspaceTrust(() => this.changeEmitter.fire(undefined)));
    if (connection) {
      this.disposables.push(
        this.treeView.onDidChangeVisibility((e) => this.setVisible(e.visible)),
        connection.onDidChange(() => this.refreshLive()),
        connection.onDidChangeState(() => this.refreshLive()),
        { dispose: () => this.claim?.dispose() },
        { dispose: () => this.balancerClaim?.dispose() },
      );
      if (balancers) this.disposables.push(balancers.onDidChange(() => this.changeEmitter.fire(undefined)));
      if (this.treeView.visible) this.setVisible(true);
    }
  }

  private setVisible(visible: boolean): void {
    if (!this.connection) return;
    if (visible && !this.balancerClaim) this.balancerClaim = this.balancers?.acquire();
    else if (!visible && this.balancerClaim) {
      this.balancerClaim.dispose();
      this.balancerClaim = undefined;
    }
    if (visible && !this.claim) {
      this.claim = this.connection.acquire(LIVE_RESOURCES);
      // etcd has no watch: read it once when the view shows (the etcd Members view polls while visible).
      void this.connection.ensure().then((c) => {
        if (c && !c.cluster.etcd) void c.cluster.refreshEtcd();
      });
    } else if (!visible && this.claim) {
      this.claim.dispose();
      this.claim = undefined;
    }
  }

  /** Recomputes the hosts' live state; fires only the hosts whose state changed (root when it appears/disappears). */
  private refreshLive(): void {
    const cluster = this.connection?.cluster;
    const model = cluster && cluster.synced(LIVE_RESOURCES) ? cluster.model() : undefined;
    const hosts = model?.hosts ?? [];
    const apiServers = new Map((model?.controlPlane.nodes ?? []).map((n) => [n.name, n.apiServerVersion]));
    const byNode = skewNotes(hosts.filter((h) => h.node).map((h) => ({ name: h.node!, kubelet: h.kubeletVersion, apiServer: apiServers.get(h.node!) })));
    this.skew = new Map(hosts.flatMap((h) => (h.node && byNode.has(h.node) ? [[h.host, byNode.get(h.node)!] as const] : [])));
    const next = new Map(hosts.map((h) => [h.host, h]));
    const signatures = new Map(hosts.map((h) => [h.host, `${liveSignature(h)}${this.skew.get(h.host) ?? ''}`]));
    const hadLive = this.live.size > 0;
    this.live = next;
    if (hadLive !== next.size > 0) {
      this.liveSignatures = signatures;
      this.changeEmitter.fire(undefined);
      return;
    }
    const changed: InventoryNode[] = [];
    for (const [id, node] of this.hostNodes) {
      const name = node.host.name;
      if (signatures.get(name) !== this.liveSignatures.get(name)) changed.push(node);
      void id;
    }
    this.liveSignatures = signatures;
    for (const n of changed) this.changeEmitter.fire(n);
  }

  getChildren(element?: InventoryNode): InventoryNode[] | Promise<InventoryNode[]> {
    if (!element && !this.workspace.settled) {
      // The first ask after a reload: a loading row at once, not a promise (the inventory is parsed in the lint
      // worker, which takes a moment to start), then the hosts — never an empty tree, which VS Code would fill
      // with "No inventory.yaml".
      if (!this.loading) this.loading = this.workspace.get().finally(() => this.changeEmitter.fire(undefined));
      return [loading()];
    }
    if (!element) return this.workspace.get().then((loaded) => this.roots(loaded));
    if (element.kind === 'group') return element.hosts.map((host) => this.hostNode(host, element.group.role, element.stale));
    if (element.kind === 'host') {
      const live = element.stale ? undefined : this.live.get(element.host.name);
      return live ? liveChildren(live).map((node) => ({ kind: 'live', node })) : [];
    }
    if (element.kind === 'live') return (element.node.children ?? []).map((node) => ({ kind: 'live', node }));
    return [];
  }

  private hostNode(host: HostSpec, role: Role, stale = false): Extract<InventoryNode, { kind: 'host' }> {
    const id = `host:${role}:${host.name}`;
    let node = this.hostNodes.get(id);
    if (!node) this.hostNodes.set(id, (node = { kind: 'host', host, role }));
    node.host = host;
    if (stale) node.stale = true;
    else delete node.stale;
    return node;
  }

  private roots(loaded: LoadedInventory | undefined): InventoryNode[] {
    // In Restricted Mode say once what trust would add (a message would hide the welcome, so only over hosts).
    this.treeView.message = loaded && !vscode.workspace.isTrusted ? restricted() : undefined;
    // Returning no roots lets the view's welcome content explain how to create an inventory.
    if (!loaded) return [];
    const nodes: InventoryNode[] = [];
    const lb = this.balancers?.model;
    if (lb) nodes.push({ kind: 'live', node: vipNode(lb) });
    const errors = loaded.result.findings.filter((f) => f.severity === 'error');
    // While the file is broken the last error-free hosts stay, marked stale: a missing bracket must not make
    // the Workers group vanish while the user is typing.
    const stale = errors.length > 0 && loaded.lastGood !== undefined;
    const first = [...errors].sort((a, b) => a.range.start.line - b.range.start.line || a.range.start.character - b.range.start.character)[0];
    if (errors.length) nodes.push({ kind: 'problem', errors: errors.length, ...(first ? { first } : {}), uri: loaded.uri, stale });
    const hosts = (stale ? loaded.lastGood?.hosts : loaded.inventory?.hosts) ?? [];
    for (const group of groups()) {
      const members = hosts.filter((h) => h.roles.includes(group.role));
      if (members.length) nodes.push({ kind: 'group', group, hosts: members, ...(stale ? { stale } : {}) });
    }
    return nodes;
  }

  getTreeItem(node: InventoryNode): vscode.TreeItem {
    switch (node.kind) {
      case 'live':
        return liveTreeItem(node.node);
      case 'problem': {
        const item = new vscode.TreeItem(node.errors === 1 ? vscode.l10n.t('inventory.yaml has 1 error') : vscode.l10n.t('inventory.yaml has {0} errors', node.errors));
        item.id = 'problem';
        item.iconPath = new vscode.ThemeIcon('error', new vscode.ThemeColor('problemsErrorIcon.foreground'));
        const where = node.first ? vscode.l10n.t('line {0}', node.first.range.start.line + 1) : undefined;
        item.description = [where && vscode.l10n.t('first at {0}', where), node.stale ? vscode.l10n.t('hosts below are from the last valid version') : undefined].filter(Boolean).join(' · ');
        item.tooltip = [
          node.first ? vscode.l10n.t('First error ({0}): {1}', where ?? '', plainWords(node.first.message)) : '',
          node.stale ? vscode.l10n.t('Until the file is valid again the tree shows the hosts as they were at its last valid version, marked stale.') : vscode.l10n.t('Hosts with errors are left out until they are fixed.'),
          vscode.l10n.t('Click to go to the first error.'),
        ].filter(Boolean).join('\n');
        // Jump to the first error itself, not to the Problems panel.
        item.command = node.first && node.uri
          ? { command: 'vscode.open', title: vscode.l10n.t('Go to the First Error'), arguments: [node.uri, { selection: toRange(node.first.range), preview: true }] }
          : { command: 'workbench.actions.view.problems', title: vscode.l10n.t('Show Problems') };
        item.contextValue = 'problem';
        return item;
      }
      case 'group': {
        const item = new vscode.TreeItem(node.group.label, vscode.TreeItemCollapsibleState.Expanded);
        item.id = `group:${node.group.role}`;
        item.description = node.stale ? `${node.hosts.length} · ${vscode.l10n.t('stale')}` : String(node.hosts.length);
        item.iconPath = new vscode.ThemeIcon(node.group.icon);
        item.contextValue = `group-${node.group.role}`;
        return item;
      }
      case 'host': {
        const { host } = node;
        const live = node.stale ? undefined : this.live.get(host.name);
        const item = new vscode.TreeItem(host.name, live ? vscode.TreeItemCollapsibleState.Collapsed : vscode.TreeItemCollapsibleState.None);
        item.id = `host:${node.role}:${host.name}`;
        // "stale" first: a narrow side bar cuts the end of the description.
        const skew = live ? this.skew.get(host.name) : undefined;
        const versions = live?.kubeletVersion ? ` · ${live.kubeletVersion}${skew ? ` · ${vscode.l10n.t('version skew')}` : ''}` : '';
        item.description = `${node.stale ? `${vscode.l10n.t('stale')} · ` : ''}${host.address} · ${describeRoles(host)}${!node.stale && live ? ` · ${live.node ? live.readiness : vscode.l10n.t('no node')}${versions}` : ''}`;
        item.tooltip = hostTooltip(this.workspace.current, host);
        if (skew) item.tooltip.appendMarkdown(`\n\n$(warning) ${vscode.l10n.t('Version skew: {0}', skew)}`);
        if (node.stale) item.tooltip.appendMarkdown(`$(warning) ${vscode.l10n.t('*Stale*: inventory.yaml has errors; this is the host as the last valid version had it.')}`);
        item.iconPath = new vscode.ThemeIcon(
          node.stale ? 'vm-outline' : host.vrrp?.state === 'MASTER' ? 'star-full' : 'vm',
          node.stale ? new vscode.ThemeColor('disabledForeground') : live?.node && live.readiness !== 'Ready' ? new vscode.ThemeColor('list.errorForeground') : undefined,
        );
        // A stale row offers no host actions (join, drain...): they would act on a file that does not say this now.
        item.contextValue = node.stale ? `stale-host-${node.role}` : `host-${node.role}`;
        item.command = { command: CommandIds.revealHost, title: vscode.l10n.t('Reveal Host in Inventory'), arguments: [node] };
        return item;
      }
    }
  }

  dispose(): void {
    vscode.Disposable.from(...this.disposables).dispose();
  }
}

function liveSignature(h: HostLive): string {
  return JSON.stringify([h.node, h.readiness, h.kubeletVersion, h.pods, h.etcdMember && [h.etcdMember.name, h.etcdMember.isLeader, h.etcdMember.healthy, h.etcdMember.raftTerm], h.leases]);
}

function liveChildren(h: HostLive): LiveNode[] {
  const base = `live:${h.host}`;
  const out: LiveNode[] = [];
  out.push(
    h.node
      ? { id: `${base}:node`, label: vscode.l10n.t('Node {0}', h.node), description: [h.readiness, h.kubeletVersion].filter(Boolean).join(' · '), icon: h.readiness === 'Ready' ? 'pass' : 'error', color: h.readiness === 'Ready' ? 'testing.iconPassed' : 'list.errorForeground', tooltip: `${vscode.l10n.t('Node {0}', h.node)}: ${h.readiness}${h.readyReason ? ` (${h.readyReason})` : ''}` }
      : { id: `${base}:node`, label: vscode.l10n.t('No Node'), description: h.roles.includes('loadbalancer') && !isKubernetesHost(h) ? vscode.l10n.t('load balancer, not a cluster node') : vscode.l10n.t('not joined yet'), icon: 'circle-slash', color: 'disabledForeground' },
  );
  if (h.pods.length) {
    out.push({
      id: `${base}:pods`, label: vscode.l10n.t('Pods'), description: vscode.l10n.t('{0} in kube-system', h.pods.length), icon: 'symbol-namespace',
      children: h.pods.map((p) => ({ id: `${base}:pod:${p.name}`, label: p.name, description: vscode.l10n.t('{0} · ready {1} · restarts {2}', p.phase, p.ready, p.restarts), icon: p.phase === 'Running' && !p.ready.startsWith('0/') ? 'pass' : 'warning', color: p.phase === 'Running' && !p.ready.startsWith('0/') ? 'testing.iconPassed' : 'list.warningForeground' })),
    });
  }
  if (h.etcdMember) {
    const m = h.etcdMember;
    out.push({ id: `${base}:etcd`, label: vscode.l10n.t('etcd member {0}', m.name), description: [...memberFacts(m, Date.now(), { age: false }).slice(0, m.reachable ? 1 : 2), m.raftTerm !== undefined && m.reachable ? vscode.l10n.t('term {0}', m.raftTerm) : undefined, m.healthy ? vscode.l10n.t('healthy') : m.problem].filter(Boolean).join(' · '), icon: m.healthy ? (m.isLeader ? 'star-full' : 'database') : 'error', color: m.healthy ? undefined : 'list.errorForeground' });
  }
  if (h.leases.length) {
    out.push({ id: `${base}:leases`, label: vscode.l10n.t('Leases held'), description: String(h.leases.length), icon: 'key', children: h.leases.map((l) => ({ id: `${base}:lease:${l}`, label: l, icon: l.includes('(leader)') ? 'star-full' : 'pulse' })) });
  }
  return out;
}

function describeRoles(host: HostSpec): string {
  const roles = host.roles.join(', ');
  return host.vrrp ? `${roles} (${host.vrrp.state} ${host.vrrp.priority})` : roles;
}

function hostTooltip(loaded: LoadedInventory | undefined, host: HostSpec): vscode.MarkdownString {
  const md = new vscode.MarkdownString(undefined, true);
  md.appendMarkdown(`**${host.name}** — \`${host.address}\`\n\n`);
  md.appendMarkdown(`${vscode.l10n.t('Roles: {0}', host.roles.join(', '))}\n\n`);
  if (loaded?.inventory) {
    const ssh = sshFor(loaded.inventory, host);
    md.appendMarkdown(`SSH: \`${ssh.user}@${host.address}:${ssh.port}\`${ssh.proxyJump ? ` via \`${ssh.proxyJump}\`` : ''}\n\n`);
  }
  if (host.vrrp) md.appendMarkdown(`${vscode.l10n.t('VRRP: {0}, priority {1} on {2}', host.vrrp.state, host.vrrp.priority, `\`${host.vrrp.interface}\``)}\n\n`);
  return md;
}
