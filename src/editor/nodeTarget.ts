/**
 * What the node commands (Drain / Cordon / Uncordon) share: the cluster as a DrainCluster over the live views'
 * connection, and the node they act on — from an Inventory host row (its Node, matched by name or address), a
 * Control Plane node row (`cpnode:NAME`), a name, or a pick from the cluster's nodes.
 */
import * as vscode from 'vscode';
import { createDrainCluster } from '../adapters/kube/drain';
import type { KubeConnection } from '../adapters/kube/index';
import type { DrainCluster } from '../core/drain/drainNode';
import { hostForNode, nodeReadiness } from '../core/live/controlPlane';
import type { Node } from '../core/live/types';
import type { EditorServices } from './services';
import type { InventoryNode, LiveNode } from './treeNodes';
import { errorMessage } from '../core/errors';
import { editorUi } from './vscodeUi';

export interface NodeTarget {
  conn: KubeConnection;
  cluster: DrainCluster;
  node: string;
}

/** Resolves the node over the live views' connection (the command's `cluster` need); undefined after telling the user why not. */
export async function resolveNodeTarget(ctx: EditorServices & { conn: KubeConnection }, arg: unknown, purpose: string): Promise<NodeTarget | undefined> {
  const conn = ctx.conn;
  const ui = editorUi(ctx.reports);
  const inventory = (await ctx.inventory.get())?.inventory;
  const cluster = createDrainCluster(conn.transport, { readEtcd: () => conn.readEtcd(), inventory });
  let nodes: Node[];
  try {
    nodes = (await conn.transport.list('/api/v1/nodes', {})).items as Node[];
  } catch (e) {
    void ui.message('error', vscode.l10n.t('Cannot {0}: listing nodes through {1} failed: {2}', purpose, conn.server, errorMessage(e)));
    return undefined;
  }
  const named = nodeNameOf(arg);
  if (named?.host) {
    const node = nodes.find((n) => hostForNode(inventory, n.metadata.name, n)?.name === named.host)?.metadata.name;
    if (!node) {
      void ui.message('error', vscode.l10n.t('Cannot {0}: host {1} has no Node in the cluster ({2}).', purpose, named.host, conn.context));
      return undefined;
    }
    return { conn, cluster, node };
  }
  if (named?.node) return { conn, cluster, node: named.node };
  const picked = await ui.pick(
    purpose[0]!.toUpperCase() + purpose.slice(1),
    nodes.map((n) => {
      const labels = n.metadata.labels ?? {};
      const role = 'node-role.kubernetes.io/control-plane' in labels ? 'control-plane' : 'worker';
      return { label: n.metadata.name, description: [role, nodeReadiness(n).readiness, n.spec?.unschedulable ? 'cordoned' : undefined].filter(Boolean).join(' · '), value: n.metadata.name };
    }),
    `Node (${conn.context})`,
  );
  return picked ? { conn, cluster, node: picked } : undefined;
}

/** The node (or inventory host) a command argument names. */
export function nodeNameOf(arg: unknown): { node?: string; host?: string } | undefined {
  if (typeof arg === 'string' && arg) return { node: arg };
  const inv = arg as InventoryNode | undefined;
  if (inv?.kind === 'host') return { host: inv.host.name };
  const live = arg as LiveNode | undefined;
  const m = typeof live?.id === 'string' ? /^cpnode:(.+)$/.exec(live.id) : null;
  if (m) return { node: m[1]! };
  return undefined;
}
