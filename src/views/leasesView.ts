/**
 * Leases view: node heartbeats (kube-node-lease) with time since renew against leaseDurationSeconds
 * and the NotReady countdown by the node-monitor grace period; the kube-scheduler and
 * kube-controller-manager leader leases with their holder's inventory host and transitions; the
 * apiserver identity leases. Watch-based; a 2-second tick advances the time-based health.
 */
import * as vscode from 'vscode';
import { ViewIds } from '../editor/commandIds';
import type { ClusterConnection } from '../editor/clusterConnection';
import { formatAge } from '../core/live/format';
import type { LeaseHealth, NodeLeaseInfo } from '../core/live/leases';
import { NODE_MONITOR_GRACE_MS } from '../core/live/leaseTiming';
import { LiveTreeView } from './liveTree';
import { ERR, md, MUTED, OK, WARN } from './rowLook';
import type { LiveNode } from '../editor/treeNodes';

const ICON: Record<LeaseHealth, [string, string]> = { healthy: ['pass', OK], late: ['watch', WARN], expired: ['error', ERR], unknown: ['question', MUTED] };

export class LeasesView extends LiveTreeView {
  constructor(connection: ClusterConnection) {
    super(ViewIds.leases, connection, ['nodeLeases', 'systemLeases']);
  }

  protected build(): LiveNode[] {
    const cluster = this.connection.cluster;
    if (!cluster || !cluster.synced(['nodeLeases', 'systemLeases'])) return [];
    const model = cluster.model().leases;
    const roots: LiveNode[] = [];
    roots.push({
      id: 'leaders',
      label: vscode.l10n.t('Leader election'),
      description: `${model.leaders.length} leases`,
      icon: 'star-full',
      expanded: true,
      children: model.leaders.map((l) => ({
        id: `leader:${l.name}`,
        label: l.name,
        description: vscode.l10n.t('{0} · {1} · {2}renewed {3} ago', l.inventoryHost ?? l.holderHost ?? vscode.l10n.t('no holder'), l.transitions === 1 ? vscode.l10n.t('1 transition') : vscode.l10n.t('{0} transitions', l.transitions), l.health === 'healthy' ? '' : `${l.health}, `, formatAge(l.sinceRenewMs)),
        icon: ICON[l.health][0],
        color: ICON[l.health][1],
        tooltip: md([
          `**kube-system/${l.name}**`,
          `Holder \`${l.holderIdentity ?? '—'}\`${l.inventoryHost ? vscode.l10n.t(' → inventory host **{0}**', l.inventoryHost) : ''}`,
          vscode.l10n.t('Renewed {0} ago (lease {1}s; a standby takes over after it expires) · leader for {2} · {3} transitions', formatAge(l.sinceRenewMs), l.durationSeconds, formatAge(l.acquiredAgoMs), l.transitions),
        ]),
        contextValue: 'lease-leader',
      })),
    });
    const bad = model.nodes.filter((n) => n.health !== 'healthy').length;
    roots.push({
      id: 'nodeLeases',
      label: vscode.l10n.t('Node heartbeats'),
      description: `${vscode.l10n.t('{0} nodes', model.nodes.length)}${bad ? vscode.l10n.t(' · {0} not renewing', bad) : vscode.l10n.t(' · all renewing')}`,
      icon: 'pulse',
      color: bad ? WARN : undefined,
      expanded: model.nodes.length <= 50,
      children: model.nodes.map(nodeLeaseItem),
    });
    if (model.apiservers.length) {
      roots.push({
        id: 'apiservers',
        label: vscode.l10n.t('API server identities'),
        description: `${model.apiservers.length}`,
        icon: 'server-environment',
        expanded: true,
        children: model.apiservers.map((a) => ({
          id: `apiserver:${a.name}`,
          label: a.inventoryHost ?? a.hostname ?? a.name,
          description: `${a.name} · ${a.health}`,
          icon: ICON[a.health][0],
          color: ICON[a.health][1],
          tooltip: md([`**kube-system/${a.name}**`, vscode.l10n.t('kube-apiserver on `{0}`{1}', a.hostname ?? '?', a.inventoryHost ? vscode.l10n.t(' (inventory host {0})', a.inventoryHost) : ''), vscode.l10n.t('Renewed {0} ago (every 10 s; lease {1}s)', formatAge(a.sinceRenewMs), a.durationSeconds)]),
          contextValue: 'lease-apiserver',
        })),
      });
    }
    return roots;
  }
}

function nodeLeaseItem(l: NodeLeaseInfo): LiveNode {
  // The renew age like kubectl's (`kubectl get lease -n kube-node-lease` shows RENEW TIME): a healthy lease too.
  const countdown = l.notReadyInMs === undefined ? '' : l.notReadyInMs > 0 ? vscode.l10n.t(' · NotReady in {0}', formatAge(l.notReadyInMs)) : vscode.l10n.t(' · past grace period');
  return {
    id: `nodeLease:${l.node}`,
    label: l.node,
    description: l.health === 'healthy' ? vscode.l10n.t('healthy · renewed {0} ago · {1}s lease', formatAge(l.sinceRenewMs), l.durationSeconds) : vscode.l10n.t('{0} · renewed {1} ago{2}', l.health, formatAge(l.sinceRenewMs), countdown),
    icon: ICON[l.health][0],
    color: ICON[l.health][1],
    tooltip: md([
      `**kube-node-lease/${l.node}**${l.host && l.host !== l.node ? vscode.l10n.t(' (inventory host {0})', l.host) : ''}`,
      vscode.l10n.t('Renewed {0} ago; kubelet renews every {1}s (a quarter of the {2}s lease).', formatAge(l.sinceRenewMs), l.durationSeconds / 4, l.durationSeconds),
      vscode.l10n.t('healthy ≤ {0}s · late ≤ {1}s · expired beyond.', l.durationSeconds / 2, l.durationSeconds),
      vscode.l10n.t('The node-lifecycle controller marks the node NotReady {0}s (node-monitor-grace-period, Kubernetes ≥ 1.32) after the last renew{1}', NODE_MONITOR_GRACE_MS / 1000, l.notReadyInMs !== undefined ? (l.notReadyInMs > 0 ? vscode.l10n.t(': in {0} without a renew.', formatAge(l.notReadyInMs)) : vscode.l10n.t(': already due.')) : '.'),
    ]),
    contextValue: `lease-node-${l.health}`,
  };
}
