/**
 * The Leases view's rows, as plain data (no VS Code): the kube-scheduler and kube-controller-manager leader leases
 * with their holder's inventory host and transitions; node heartbeats (kube-node-lease) with time since renew against
 * leaseDurationSeconds and the NotReady countdown by the node-monitor grace period; the apiserver identity leases. The
 * view (leasesView.ts) shows them; unit tests call them.
 */
import { formatAge } from '../core/live/format';
import { leaseHealthWord, type LeaseHealth, type LeasesModel, type NodeLeaseInfo } from '../core/live/leases';
import { NODE_MONITOR_GRACE_MS } from '../core/live/leaseTiming';
import { t } from '../core/l10n';
import type { LiveNode } from '../editor/treeNodes';
import { ERR, md, MUTED, OK, WARN } from './rowLook';

const ICON: Record<LeaseHealth, [string, string]> = { healthy: ['pass', OK], late: ['watch', WARN], expired: ['error', ERR], unknown: ['question', MUTED] };

/** The view's tree (exported for tests). */
export function buildLeasesTree(model: LeasesModel): LiveNode[] {
  const roots: LiveNode[] = [];
  roots.push({
    id: 'leaders',
    label: t('Leader election'),
    description: t('{0} leases', model.leaders.length),
    icon: 'star-full',
    expanded: true,
    children: model.leaders.map((l) => ({
      id: `leader:${l.name}`,
      label: l.name,
      description: t('{0} · {1} · {2}renewed {3} ago', l.inventoryHost ?? l.holderHost ?? t('no holder'), l.transitions === 1 ? t('1 transition') : t('{0} transitions', l.transitions), l.health === 'healthy' ? '' : `${leaseHealthWord(l.health)}, `, formatAge(l.sinceRenewMs)),
      icon: ICON[l.health][0],
      color: ICON[l.health][1],
      tooltip: md([
        `**kube-system/${l.name}**`,
        t('Holder `{0}`{1}', l.holderIdentity ?? '—', l.inventoryHost ? t(' → inventory host **{0}**', l.inventoryHost) : ''),
        t('Renewed {0} ago (lease {1}s; a standby takes over after it expires) · leader for {2} · {3} transitions', formatAge(l.sinceRenewMs), l.durationSeconds, formatAge(l.acquiredAgoMs), l.transitions),
      ]),
      contextValue: 'lease-leader',
    })),
  });
  const bad = model.nodes.filter((n) => n.health !== 'healthy').length;
  roots.push({
    id: 'nodeLeases',
    label: t('Node heartbeats'),
    description: `${t('{0} nodes', model.nodes.length)}${bad ? t(' · {0} not renewing', bad) : t(' · all renewing')}`,
    icon: 'pulse',
    color: bad ? WARN : undefined,
    expanded: model.nodes.length <= 50,
    children: model.nodes.map(nodeLeaseRow),
  });
  if (model.apiservers.length) {
    roots.push({
      id: 'apiservers',
      label: t('API server identities'),
      description: `${model.apiservers.length}`,
      icon: 'server-environment',
      expanded: true,
      children: model.apiservers.map((a) => ({
        id: `apiserver:${a.name}`,
        label: a.inventoryHost ?? a.hostname ?? a.name,
        description: `${a.name} · ${leaseHealthWord(a.health)}`,
        icon: ICON[a.health][0],
        color: ICON[a.health][1],
        tooltip: md([`**kube-system/${a.name}**`, t('kube-apiserver on `{0}`{1}', a.hostname ?? '?', a.inventoryHost ? t(' (inventory host {0})', a.inventoryHost) : ''), t('Renewed {0} ago (every 10 s; lease {1}s)', formatAge(a.sinceRenewMs), a.durationSeconds)]),
        contextValue: 'lease-apiserver',
      })),
    });
  }
  return roots;
}

function nodeLeaseRow(l: NodeLeaseInfo): LiveNode {
  // The renew age like kubectl's (`kubectl get lease -n kube-node-lease` shows RENEW TIME): a healthy lease too.
  const countdown = l.notReadyInMs === undefined ? '' : l.notReadyInMs > 0 ? t(' · NotReady in {0}', formatAge(l.notReadyInMs)) : t(' · past grace period');
  return {
    id: `nodeLease:${l.node}`,
    label: l.node,
    description: l.health === 'healthy' ? t('healthy · renewed {0} ago · {1}s lease', formatAge(l.sinceRenewMs), l.durationSeconds) : t('{0} · renewed {1} ago{2}', leaseHealthWord(l.health), formatAge(l.sinceRenewMs), countdown),
    icon: ICON[l.health][0],
    color: ICON[l.health][1],
    tooltip: md([
      `**kube-node-lease/${l.node}**${l.host && l.host !== l.node ? t(' (inventory host {0})', l.host) : ''}`,
      t('Renewed {0} ago; kubelet renews every {1}s (a quarter of the {2}s lease).', formatAge(l.sinceRenewMs), l.durationSeconds / 4, l.durationSeconds),
      t('healthy ≤ {0}s · late ≤ {1}s · expired beyond.', l.durationSeconds / 2, l.durationSeconds),
      t('The node-lifecycle controller marks the node NotReady {0}s (node-monitor-grace-period, Kubernetes ≥ 1.32) after the last renew{1}', NODE_MONITOR_GRACE_MS / 1000, l.notReadyInMs !== undefined ? (l.notReadyInMs > 0 ? t(': in {0} without a renew.', formatAge(l.notReadyInMs)) : t(': already due.')) : '.'),
    ]),
    contextValue: `lease-node-${l.health}`,
  };
}
