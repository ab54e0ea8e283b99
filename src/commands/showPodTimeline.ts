import * as vscode from 'vscode';
import { plainWords } from '../core/text/plainWords';
import { kubeconfigFound, pickClusterContext } from '../editor/contextPicker';
import { podTimelineFeed, type PodTarget } from '../editor/podTimelineFeed';
import { TimelinePanel } from '../webviews/timelinePanel';
import { defineCommand, type CommandContext } from './context';
import { defaultTestImage } from '../core/timeline/defaultImage';
import { testNodeChoices } from '../core/timeline/testNode';
import type { Node } from '../core/live/types';
import type { Inventory } from '../core/inventory/types';
import { timelineHostsFor } from '../engine/podTimeline';
import type { TimelineSsh } from '../editor/podTimelineFeed';
import type { KubeConnection } from '../adapters/kube';
import { serverMatchesEndpoint } from '../core/live/kubeconfig';
import type { TimelineFeed } from '../core/timeline/feed';
import { editorUi } from '../editor/vscodeUi';
import type { PickItem } from '../engine/workflows/ui';

/** The same test pod again, for "Run again to compare" (warm image, or another node). */
function secondRun(conn: KubeConnection, target: PodTarget, ctx: CommandContext): (() => TimelineFeed) | undefined {
  if (!target.create) return undefined;
  const name = `${target.name.slice(0, 61)}-2`;
  return () => podTimelineFeed(conn, { ...target, name }, timelineSsh(ctx, conn), editorUi(ctx.reports));
}

/**
 * The audit log and the node's journal over SSH, from the inventory's hosts (trust-gated by the sessions) — only when
 * the connected cluster is the inventory's (its server is the controlPlaneEndpoint): a context pointed at another
 * cluster never dials the inventory's hosts.
 */
function timelineSsh(ctx: CommandContext, conn: KubeConnection): TimelineSsh {
  const loaded = ctx.inventory.current;
  const own = loaded?.inventory && serverMatchesEndpoint(conn.server, loaded.inventory.cluster.controlPlaneEndpoint);
  const inv: Inventory | undefined = own ? loaded?.inventory : undefined;
  const folder = loaded ? vscode.workspace.getWorkspaceFolder(loaded.uri)?.uri : undefined;
  return { remote: ctx.sessions.remoteExec(inv, folder), hosts: timelineHostsFor(inv, conn.server) };
}

const LAST_IMAGE = 'kubeadm.timeline.lastImage';
const RUN = '$(play) Run a test pod…';

/**
 * "kubectl run" explained: run a test pod (name and image asked) or pick any pod, and draw what
 * happened as lanes — kubectl, API server, scheduler, kubelet, container runtime.
 */
export const showPodTimeline = defineCommand({ trust: vscode.l10n.t('talk to the cluster') }, (ctx) => {
  return async (): Promise<void> => {
    const ui = editorUi(ctx.reports);
    let conn = await ctx.connection.ensure();
    if (!conn) {
      // Not connected: the context picker opens right here (no toast that sends the user to another command).
      await pickClusterContext(ctx.connection);
      conn = ctx.connection.connection;
      if (!conn) {
        const s = ctx.connection.state;
        // No kubeconfig at all means the user left the picker: nothing to add. A real failure is worth one message.
        if (s.kind === 'error' && kubeconfigFound()) void ui.message('error', vscode.l10n.t('The timeline needs the cluster, which cannot be reached: {0}', plainWords(s.message)));
        return;
      }
    }
    const pods = await conn.transport.list('/api/v1/pods', { limit: '500' }).catch(() => ({ items: [] }));
    const items: PickItem<PodTarget | typeof RUN>[] = [
      { label: vscode.l10n.t('$(play) Run a test pod…'), description: vscode.l10n.t('create a pod like `kubectl run NAME --image=IMAGE` and watch it start'), value: RUN },
      { label: vscode.l10n.t('Existing pods'), separator: true, value: RUN },
      ...pods.items.map((p) => ({
        label: `${p.metadata.namespace}/${p.metadata.name}`,
        description: (p as { status?: { phase?: string } }).status?.phase ?? '',
        value: { namespace: p.metadata.namespace ?? 'default', name: p.metadata.name },
      })),
    ];
    const picked = await ui.pick(vscode.l10n.t('kubectl run timeline'), items, vscode.l10n.t('Run a test pod or pick a pod'));
    if (!picked) return;
    let target = picked === RUN ? undefined : picked;
    if (!target) {
      // The name and the image close when the focus leaves, like the quick pick before them.
      const name = await ui.input(vscode.l10n.t('Test pod name'), '', `timeline-${Date.now().toString(36)}`, {
        ignoreFocusOut: false,
        validate: (v) => (/^[a-z0-9]([-a-z0-9]*[a-z0-9])?$/.test(v) && v.length <= 63 ? undefined : vscode.l10n.t('A DNS label: lowercase letters, digits and -')),
      });
      if (!name) return;
      const nodes = (await conn.transport.list('/api/v1/nodes', {}).catch(() => ({ items: [] }))).items as Node[];
      const choice = defaultTestImage(nodes, ctx.inventory.current?.inventory?.cluster.imageRepository, ctx.extension.workspaceState.get<string>(LAST_IMAGE));
      const image = await ui.input(vscode.l10n.t('Image'), vscode.l10n.t('Default: {0}. The test pod is deleted when the timeline panel closes.', choice.why), choice.image, {
        ignoreFocusOut: false,
        validate: (v) => (v.trim() && !/\s/.test(v.trim()) ? undefined : vscode.l10n.t('An image reference such as registry.lab:5000/web:1.0')),
      });
      if (!image) return;
      await ctx.extension.workspaceState.update(LAST_IMAGE, image.trim());
      // A node of the user's choice (pinned like the CLI's --node): the same node twice gives a cold and a warm run.
      const where = await ui.pick(vscode.l10n.t('Node'), testNodeChoices(nodes, image.trim()).map((c) => ({ label: c.label, description: c.description, value: c })), vscode.l10n.t('Where the test pod runs'));
      if (!where) return;
      target = { namespace: 'default', name, create: { image: image.trim(), ...(where.node ? { node: where.node } : {}) } };
    }
    ctx.extension.subscriptions.push(new TimelinePanel(ctx.extension.extensionUri, vscode.l10n.t('kubectl run: {0}', target.name), podTimelineFeed(conn, target, timelineSsh(ctx, conn), ui), secondRun(conn, target, ctx)));
  };
});
