import * as vscode from 'vscode';
import { DEFAULT_DRAIN_OPTIONS } from '../core/drain/classify';
import { DEFAULT_READY_TIMEOUT_SECONDS, type DrainRunOptions } from '../core/drain/drainNode';
import { maintenanceHost } from '../core/drain/maintenance';
import { describeError } from '../core/live/errors';
import { drainWorkflow, type DrainWorkflowInput } from '../engine/workflows/drainWorkflow';
import { resolveNodeTarget } from '../editor/nodeTarget';
import { editorUi } from '../editor/vscodeUi';
import { defineCommand, type CommandContext } from './context';

const LAST_COMMAND = 'kubeadm.drain.lastMaintenanceCommand';

type Option = 'ignoreDaemonSets' | 'deleteEmptyDirData' | 'force' | 'maintenance' | 'uncordon';

/**
 * Drain Node…: kubectl drain's rules (src/core/drain) from the editor. Pick the overrides (DaemonSets, emptyDir
 * data — never on by default —, force), optionally a maintenance command for the node's host and an uncordon;
 * the rest is the drain workflow's (engine/workflows/drainWorkflow.ts), the CLI's `drain` too: the plan beside a
 * modal, the refusals (here a plan with refused pods stops before anything is cordoned), the run with per-pod
 * progress and a cancel that stops the evictions (and the remote command) and leaves the node cordoned.
 */
export const drainNode = defineCommand({ trust: 'drain a node', cluster: 'drain a node' }, (ctx) => {
  return async (arg?: unknown): Promise<void> => {
    const target = await resolveNodeTarget(ctx, arg, 'drain a node');
    if (!target) return;
    const { cluster, node, conn } = target;

    const ui = editorUi(ctx.reports);
    const picks = await ui.pickMany<Option>(
      vscode.l10n.t('Drain {0}', node),
      [
        { value: 'ignoreDaemonSets', label: vscode.l10n.t('Ignore DaemonSet-managed pods'), description: '--ignore-daemonsets', detail: vscode.l10n.t('They stay on the node (their DaemonSet would put them back at once). Without it a DaemonSet pod refuses the drain.'), picked: true },
        { value: 'deleteEmptyDirData', label: vscode.l10n.t('Delete emptyDir data'), description: '--delete-emptydir-data', detail: vscode.l10n.t('Pods with emptyDir volumes are evicted and the data in those volumes is LOST.'), picked: false },
        { value: 'force', label: vscode.l10n.t('Force: evict pods without a controller'), description: '--force', detail: vscode.l10n.t('Bare pods are deleted for good: nothing recreates them.'), picked: false },
        { value: 'maintenance', label: vscode.l10n.t('Then run a maintenance command on the host…'), description: '--then', detail: vscode.l10n.t('Over SSH on the node\'s inventory host after the drain (e.g. a kernel update and a reboot), then wait until the node is Ready again.'), picked: false },
        { value: 'uncordon', label: vscode.l10n.t('Uncordon when done'), description: '--uncordon', detail: vscode.l10n.t('Make the node schedulable again at the end.'), picked: false },
      ],
      vscode.l10n.t('Options (the plan is shown before anything happens)'),
    );
    if (!picks) return;
    const has = (o: Option) => picks.includes(o);
    const options: DrainRunOptions = {
      ...DEFAULT_DRAIN_OPTIONS,
      ignoreDaemonSets: has('ignoreDaemonSets'),
      deleteEmptyDirData: has('deleteEmptyDirData'),
      force: has('force'),
      gracePeriodSeconds: -1,
      dryRun: 'none',
      readyTimeoutSeconds: DEFAULT_READY_TIMEOUT_SECONDS,
      uncordonAfter: has('uncordon'),
    };

    const loaded = await ctx.inventory.get();
    let pool: ReturnType<CommandContext['sessions']['open']> | undefined;
    try {
      let maintenance: DrainWorkflowInput['maintenance'];
      if (has('maintenance')) {
        const inv = loaded?.inventory;
        if (!inv || !loaded) {
          void ui.message('error', vscode.l10n.t('A maintenance command runs on the node\'s inventory host: open a valid inventory.yaml first.'));
          return;
        }
        let host: string;
        try {
          host = maintenanceHost(inv, node).name;
        } catch (e) {
          void ui.message('error', describeError(e));
          return;
        }
        const command = await ui.input(
          vscode.l10n.t('Maintenance command on {0}', host),
          vscode.l10n.t('Runs as root over SSH after the drain, as one argument to sh -c (shown in the plan first). A command that reboots makes the wait ask for a new boot ID.'),
          ctx.extension.workspaceState.get<string>(LAST_COMMAND) ?? 'apt-get update && apt-get -y upgrade && reboot',
        );
        if (!command) return;
        await ctx.extension.workspaceState.update(LAST_COMMAND, command);
        const p = (pool = ctx.sessions.open(inv, vscode.workspace.getWorkspaceFolder(loaded.uri)?.uri));
        maintenance = { inventory: inv, ssh: p, loginUser: (h) => p.loginUser(h), command, timeoutMs: 30 * 60_000 };
      }
      await drainWorkflow(ui, { cluster, node, context: conn.context, options, refusedPods: 'stop', ...(maintenance ? { maintenance } : {}) });
    } finally {
      await pool?.close();
    }
  };
});
