/**
 * The one place that binds command ids to handlers. Every id in CommandIds must appear here
 * (the Record type makes a missing one a compile error).
 *
 * Each entry imports its command's file on the first invocation: the build puts every command in a file of its own
 * (scripts/bundles.mjs), so activation registers the ids and loads no command's code. The table is written by
 * `npm run gen:tables` from the commands' files (an `export const name = defineCommand(…)` there is the command
 * `kubeadm.name`), one `() => import('./itsFile.js').then((m) => m.itsCommand)` line each; a static import here would
 * load it at activation (test/package checks what the activation bundle holds).
 */
import * as vscode from 'vscode';
import { bindCommand, defineCommand, type AnyCommand, type CommandContext } from './context';
import { CommandIds, type CommandId } from '../editor/commandIds';

/** A command's declaration, imported when the command first runs. */
export type CommandLoader = () => Promise<AnyCommand>;

/** Every command, declared with its needs (src/commands/context.ts), in its own file. */
export const COMMANDS: Record<CommandId, CommandLoader> = {
  // gen:tables begin — written by `npm run gen:tables` from the commands' files: edit those, not these lines
  [CommandIds.backupEtcd]: () => import('./backupEtcd.js').then((m) => m.backupEtcd),
  [CommandIds.bringUpCluster]: () => import('./bringUpCluster.js').then((m) => m.bringUpCluster),
  [CommandIds.copyHostAddress]: () => import('./copyHostAddress.js').then((m) => m.copyHostAddress),
  [CommandIds.cordonNode]: () => import('./cordonNode.js').then((m) => m.cordonNode),
  [CommandIds.createInventory]: () => import('./createInventory.js').then((m) => m.createInventory),
  [CommandIds.defragEtcd]: () => import('./etcdMaintenance.js').then((m) => m.defragEtcd),
  [CommandIds.drainNode]: () => import('./drainNode.js').then((m) => m.drainNode),
  [CommandIds.fixKubeletConf]: () => import('./fixKubeletConf.js').then((m) => m.fixKubeletConf),
  [CommandIds.gatherFacts]: () => import('./gatherFacts.js').then((m) => m.gatherFacts),
  [CommandIds.generateClusterConfigs]: () => import('./generateClusterConfigs.js').then((m) => m.generateClusterConfigs),
  [CommandIds.importAnsibleInventory]: () => import('./importAnsibleInventory.js').then((m) => m.importAnsibleInventory),
  [CommandIds.inspectCertificates]: () => import('./inspectCertificates.js').then((m) => m.inspectCertificates),
  [CommandIds.joinHost]: () => import('./joinHost.js').then((m) => m.joinHost),
  [CommandIds.openBackupFolder]: () => import('./backupsCommands.js').then((m) => m.openBackupFolder),
  [CommandIds.openInventory]: () => import('./openInventory.js').then((m) => m.openInventory),
  [CommandIds.openKubeconfigSetting]: () => import('./openKubeconfigSetting.js').then((m) => m.openKubeconfigSetting),
  [CommandIds.reconfigureControlPlane]: () => import('./reconfigureControlPlane.js').then((m) => m.reconfigureControlPlane),
  [CommandIds.reconnectCluster]: () => import('./reconnectCluster.js').then((m) => m.reconnectCluster),
  [CommandIds.recoverEtcdNospace]: () => import('./etcdMaintenance.js').then((m) => m.recoverEtcdNospace),
  [CommandIds.refreshBackups]: () => import('./backupsCommands.js').then((m) => m.refreshBackups),
  [CommandIds.refreshInventory]: () => import('./refreshInventory.js').then((m) => m.refreshInventory),
  [CommandIds.removeNode]: () => import('./nodeOperations.js').then((m) => m.removeNode),
  [CommandIds.renewCertificates]: () => import('./renewCertificates.js').then((m) => m.renewCertificates),
  [CommandIds.replaceNode]: () => import('./nodeOperations.js').then((m) => m.replaceNode),
  [CommandIds.resetHost]: () => import('./nodeOperations.js').then((m) => m.resetHost),
  [CommandIds.restoreFromBackup]: () => import('./backupsCommands.js').then((m) => m.restoreFromBackup),
  [CommandIds.revealHost]: () => import('./revealHost.js').then((m) => m.revealHost),
  [CommandIds.runFailureDrill]: () => import('./runFailureDrill.js').then((m) => m.runFailureDrill),
  [CommandIds.runPreflight]: () => import('./runPreflight.js').then((m) => m.runPreflight),
  [CommandIds.scheduleEtcdSnapshots]: () => import('./scheduleEtcdSnapshots.js').then((m) => m.scheduleEtcdSnapshots),
  [CommandIds.selectClusterContext]: () => import('./selectClusterContext.js').then((m) => m.selectClusterContext),
  [CommandIds.selectKubeconfigFile]: () => import('./selectKubeconfigFile.js').then((m) => m.selectKubeconfigFile),
  [CommandIds.showBringUpPlan]: () => import('./showBringUpPlan.js').then((m) => m.showBringUpPlan),
  [CommandIds.showConfigDiagnostics]: () => import('./showConfigDiagnostics.js').then((m) => m.showConfigDiagnostics),
  [CommandIds.showDrift]: () => import('./showDrift.js').then((m) => m.showDrift),
  [CommandIds.showLog]: () => import('./showLog.js').then((m) => m.showLog),
  [CommandIds.showPodTimeline]: () => import('./showPodTimeline.js').then((m) => m.showPodTimeline),
  [CommandIds.uncordonNode]: () => import('./uncordonNode.js').then((m) => m.uncordonNode),
  [CommandIds.upgradeCluster]: () => import('./upgradeCluster.js').then((m) => m.upgradeCluster),
  // gen:tables end
};

export function registerCommands(ctx: CommandContext): vscode.Disposable[] {
  // The titles the palette shows, for the error boundary's "‹title› failed: …". VS Code hands packageJSON over with
  // its %key% texts already in the display language — in another language than English a command's title is
  // `{ value, original }` (the palette shows the English one as an alias); one it could not resolve names the command
  // by its id instead.
  const contributed = (ctx.extension.extension?.packageJSON?.contributes?.commands ?? []) as { command: string; title: unknown }[];
  const titles = new Map(contributed.flatMap((c) => {
    const title = shownTitle(c.title);
    return title && !/^%[\w.-]+%$/.test(title) ? [[c.command, title.replace(/…$/, '')] as const] : [];
  }));
  return Object.entries(COMMANDS).map(([id, load]) => {
    const title = titles.get(id) ?? id;
    let bound: Promise<(...args: unknown[]) => Promise<unknown>> | undefined;
    return vscode.commands.registerCommand(id, async (...args: unknown[]) => {
      // A file that does not load (an incomplete installation) fails inside the same error boundary, and is tried
      // again on the next invocation.
      // A command may open SSH sessions synchronously (ctx.sessions.open): the SSH code loads with the first command.
      bound ??= Promise.all([load(), ctx.sessions.ready()]).then(
        ([command]) => bindCommand(ctx, id, title, command),
        (e: unknown) => {
          bound = undefined;
          return bindCommand(ctx, id, title, defineCommand({}, () => () => Promise.reject(e)));
        },
      );
      return (await bound)(...args);
    });
  });
}

/** A manifest title as VS Code passes it: the text, or a localised `{ value, original }`. */
function shownTitle(title: unknown): string | undefined {
  if (typeof title === 'string') return title;
  const value = (title as { value?: unknown } | null | undefined)?.value;
  return typeof value === 'string' ? value : undefined;
}
