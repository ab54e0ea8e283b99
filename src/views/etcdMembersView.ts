/**
 * etcd Members view: the quorum line and one row per member (rows: etcdMemberRows.ts). etcd is read through the API
 * (etcdctl exec'd in an etcd pod) or, when the API is down, over SSH — every 3 s while the view is visible (etcd
 * member status has no watch).
 */
import { ViewIds } from '../editor/commandIds';
import type { ClusterConnection } from '../editor/clusterConnection';
import type { LiveNode } from '../editor/treeNodes';
import { lazyRows, LiveTreeView } from './liveTree';

const rowsFor = lazyRows(() => import('./etcdMemberRows.js'));

export class EtcdMembersView extends LiveTreeView {
  constructor(connection: ClusterConnection) {
    // The pods and nodes watches tell the etcd reader which etcd pods are running on Ready nodes.
    super(ViewIds.etcdMembers, connection, ['pods', 'nodes'], true);
  }

  protected build(): LiveNode[] {
    const cluster = this.connection.cluster;
    if (!cluster) return [];
    const rows = rowsFor(this);
    if (!rows) return [];
    // Ages against the clock, not the read: the view's 2-second tick moves "since … (12s ago)" between reads too.
    return rows.buildEtcdTree(cluster.etcd, cluster.etcdError, Date.now());
  }
}
