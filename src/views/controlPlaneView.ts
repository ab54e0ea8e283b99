/**
 * Control Plane view: the control-plane nodes, their mirror pods and the add-ons (rows: controlPlaneRows.ts).
 * Watch-based (kube-system pods, nodes, DaemonSets, the CoreDNS Deployment).
 */
import { ViewIds } from '../editor/commandIds';
import type { ClusterConnection } from '../editor/clusterConnection';
import type { LiveNode } from '../editor/treeNodes';
import { lazyRows, LiveTreeView } from './liveTree';

const rowsFor = lazyRows(() => import('./controlPlaneRows.js'));

export class ControlPlaneView extends LiveTreeView {
  constructor(connection: ClusterConnection) {
    super(ViewIds.controlPlane, connection, ['pods', 'nodes', 'daemonSets', 'deployments']);
  }

  protected build(): LiveNode[] {
    const cluster = this.connection.cluster;
    if (!cluster || !cluster.synced(['pods', 'nodes'])) return [];
    const rows = rowsFor(this);
    if (!rows) return [];
    return rows.buildControlPlaneTree(cluster.model().controlPlane);
  }
}
