/**
 * Leases view: the leader leases, node heartbeats and apiserver identity leases (rows: leaseRows.ts). Watch-based; a
 * 2-second tick advances the time-based health.
 */
import { ViewIds } from '../editor/commandIds';
import type { ClusterConnection } from '../editor/clusterConnection';
import type { LiveNode } from '../editor/treeNodes';
import { lazyRows, LiveTreeView } from './liveTree';

const rowsFor = lazyRows(() => import('./leaseRows.js'));

export class LeasesView extends LiveTreeView {
  constructor(connection: ClusterConnection) {
    super(ViewIds.leases, connection, ['nodeLeases', 'systemLeases']);
  }

  protected build(): LiveNode[] {
    const cluster = this.connection.cluster;
    if (!cluster || !cluster.synced(['nodeLeases', 'systemLeases'])) return [];
    const rows = rowsFor(this);
    if (!rows) return [];
    return rows.buildLeasesTree(cluster.model().leases);
  }
}
