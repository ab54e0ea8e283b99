/**
 * The one place that binds command ids to handlers. Every id in CommandIds must appear here
 * (the Record type makes a missing one a compile error).
 */
import * as vscode from 'vscode';
import { bindCommand, type AnyCommand, type CommandContext } from './context';
import { CommandIds, type CommandId } from '../editor/commandIds';
import { copyHostAddress } from './copyHostAddress';
import { createInventory } from './createInventory';
import { importAnsibleInventory } from './importAnsibleInventory';
import { openInventory } from './openInventory';
import { refreshInventory } from './refreshInventory';
import { revealHost } from './revealHost';
import { bringUpCluster } from './bringUpCluster';
import { joinHost } from './joinHost';
import { gatherFacts } from './gatherFacts';
import { showBringUpPlan } from './showBringUpPlan';
import { showPodTimeline } from './showPodTimeline';
import { showConfigDiagnostics } from './showConfigDiagnostics';
import { generateClusterConfigsCommand } from './generateClusterConfigs';
import { reconnectCluster } from './reconnectCluster';
import { selectClusterContext } from './selectClusterContext';
import { selectKubeconfigFile } from './selectKubeconfigFile';
import { openKubeconfigSetting } from './openKubeconfigSetting';
import { drainNode } from './drainNode';
import { cordonNode } from './cordonNode';
import { uncordonNode } from './uncordonNode';
import { runFailureDrill } from './runFailureDrill';
import { inspectCertificates } from './inspectCertificates';
import { backupEtcd } from './backupEtcd';
import { renewCertificates } from './renewCertificates';
import { upgradeCluster } from './upgradeCluster';
import { removeNode, replaceNode, resetHost } from './nodeOperations';
import { openBackupFolder, refreshBackups, restoreFromBackup } from './backupsCommands';
import { scheduleEtcdSnapshots } from './scheduleEtcdSnapshots';
import { showLog } from './showLog';

/** Every command, declared with its needs (src/commands/context.ts). */
export const COMMANDS: Record<CommandId, AnyCommand> = {
  [CommandIds.openInventory]: openInventory,
  [CommandIds.createInventory]: createInventory,
  [CommandIds.importAnsibleInventory]: importAnsibleInventory,
  [CommandIds.refreshInventory]: refreshInventory,
  [CommandIds.revealHost]: revealHost,
  [CommandIds.gatherFacts]: gatherFacts,
  [CommandIds.showBringUpPlan]: showBringUpPlan,
  [CommandIds.bringUpCluster]: bringUpCluster,
  [CommandIds.joinHost]: joinHost,
  [CommandIds.showPodTimeline]: showPodTimeline,
  [CommandIds.copyHostAddress]: copyHostAddress,
  [CommandIds.showConfigDiagnostics]: showConfigDiagnostics,
  [CommandIds.generateClusterConfigs]: generateClusterConfigsCommand,
  [CommandIds.selectClusterContext]: selectClusterContext,
  [CommandIds.selectKubeconfigFile]: selectKubeconfigFile,
  [CommandIds.openKubeconfigSetting]: openKubeconfigSetting,
  [CommandIds.reconnectCluster]: reconnectCluster,
  [CommandIds.drainNode]: drainNode,
  [CommandIds.cordonNode]: cordonNode,
  [CommandIds.uncordonNode]: uncordonNode,
  [CommandIds.runFailureDrill]: runFailureDrill,
  [CommandIds.inspectCertificates]: inspectCertificates,
  [CommandIds.backupEtcd]: backupEtcd,
  [CommandIds.renewCertificates]: renewCertificates,
  [CommandIds.upgradeCluster]: upgradeCluster,
  [CommandIds.removeNode]: removeNode,
  [CommandIds.replaceNode]: replaceNode,
  [CommandIds.resetHost]: resetHost,
  [CommandIds.refreshBackups]: refreshBackups,
  [CommandIds.restoreFromBackup]: restoreFromBackup,
  [CommandIds.openBackupFolder]: openBackupFolder,
  [CommandIds.scheduleEtcdSnapshots]: scheduleEtcdSnapshots,
  [CommandIds.showLog]: showLog,
};

export function registerCommands(ctx: CommandContext): vscode.Disposable[] {
  // The titles the palette shows, for the error boundary's "‹title› failed: …".
  const contributed = (ctx.extension.extension?.packageJSON?.contributes?.commands ?? []) as { command: string; title: string }[];
  const titles = new Map(contributed.map((c) => [c.command, c.title.replace(/…$/, '')]));
  return Object.entries(COMMANDS).map(([id, command]) => vscode.commands.registerCommand(id, bindCommand(ctx, id, titles.get(id) ?? id, command)));
}
