/**
 * Leases view: node heartbeats (kube-node-lease) with time since renew against leaseDurationSeconds
 * and the NotReady countdown by the node-monitor grace period; the kube-scheduler and
 * kube-controller-manager leader leases with their holder's inventory host and transitions; the
 * apiserver identity leases. Watch-based; a 2-second tick advances the time-based health.
 */
import { ViewIds } from '../editor/commandIds';
import type { ClusterConnection } from '../editor/clusterConnection';
import { formatAge } from '../core/live/format';
import type { LeaseHealth, NodeLeaseInfo } from '../core/live/leases';
import { NODE_MONITOR_GRACE_MS } from '../core/live/leaseTiming';
import { ERR, LiveTreeView, md, MUTED, OK, WARN } from './liveTree';
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
      label: 'Leader election',
      description: `${model.leaders.length} leases`,
      icon: 'star-full',
      expanded: true,
      children: model.leaders.map((l) => ({
        id: `leader:${l.name}`,
        label: l.name,
        description: `${l.inventoryHost ?? l.holderHost ?? 'no holder'} · ${l.transitions} transition${l.transitions === 1 ? '' : 's'} · ${l.health === 'healthy' ? '' : `${l.health}, `}renewed ${formatAge(l.sinceRenewMs)} ago`,
        icon: ICON[l.health][0],
        color: ICON[l.health][1],
        tooltip: md([
          `**kube-system/${l.name}**`,
          `Holder \`${l.holderIdentity ?? '—'}\`${l.inventoryHost ? ` → inventory host **${l.inventoryHost}**` : ''}`,
          `Renewed ${formatAge(l.sinceRenewMs)} ago (lease ${l.durationSeconds}s; a standby takes over after it expires) · leader for ${formatAge(l.acquiredAgoMs)} · ${l.transitions} transitions`,
        ]),
        contextValue: 'lease-leader',
      })),
    });
    const bad = model.nodes.filter((n) => n.health !== 'healthy').length;
    roots.push({
      id: 'nodeLeases',
      label: 'Node heartbeats',
      description: `${model.nodes.length} nodes${bad ? ` · ${bad} not renewing` : ' · all renewing'}`,
      icon: 'pulse',
      color: bad ? WARN : undefined,
      expanded: model.nodes.length <= 50,
      children: model.nodes.map(nodeLeaseItem),
    });
    if (model.apiservers.length) {
      roots.push({
        id: 'apiservers',
        label: 'API server identities',
        description: `${model.apiservers.length}`,
        icon: 'server-environment',
        expanded: true,
        children: model.apiservers.map((a) => ({
          id: `apiserver:${a.name}`,
          label: a.inventoryHost ?? a.hostname ?? a.name,
          description: `${a.name} · ${a.health}`,
          icon: ICON[a.health][0],
          color: ICON[a.health][1],
          tooltip: md([`**kube-system/${a.name}**`, `kube-apiserver on \`${a.hostname ?? '?'}\`${a.inventoryHost ? ` (inventory host ${a.inventoryHost})` : ''}`, `Renewed ${formatAge(a.sinceRenewMs)} ago (every 10 s; lease ${a.durationSeconds}s)`]),
          contextValue: 'lease-apiserver',
        })),
      });
    }
    return roots;
  }
}

function nodeLeaseItem(l: NodeLeaseInfo): LiveNode {
  // The renew age like kubectl's (`kubectl get lease -n kube-node-lease` shows RENEW TIME): a healthy lease too.
  const countdown = l.notReadyInMs === undefined ? '' : l.notReadyInMs > 0 ? ` · NotReady in ${formatAge(l.notReadyInMs)}` : ' · past grace period';
  return {
    id: `nodeLease:${l.node}`,
    label: l.node,
    description: l.health === 'healthy' ? `healthy · renewed ${formatAge(l.sinceRenewMs)} ago · ${l.durationSeconds}s lease` : `${l.health} · renewed ${formatAge(l.sinceRenewMs)} ago${countdown}`,
    icon: ICON[l.health][0],
    color: ICON[l.health][1],
    tooltip: md([
      `**kube-node-lease/${l.node}**${l.host && l.host !== l.node ? ` (inventory host ${l.host})` : ''}`,
      `Renewed ${formatAge(l.sinceRenewMs)} ago; kubelet renews every ${l.durationSeconds / 4}s (a quarter of the ${l.durationSeconds}s lease).`,
      `healthy ≤ ${l.durationSeconds / 2}s · late ≤ ${l.durationSeconds}s · expired beyond.`,
      `The node-lifecycle controller marks the node NotReady ${NODE_MONITOR_GRACE_MS / 1000}s (node-monitor-grace-period, Kubernetes ≥ 1.32) after the last renew${l.notReadyInMs !== undefined ? (l.notReadyInMs > 0 ? `: in ${formatAge(l.notReadyInMs)} without a renew.` : ': already due.') : '.'}`,
    ]),
    contextValue: `lease-node-${l.health}`,
  };
}
