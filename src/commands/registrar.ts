/**
 * The one place that binds command ids to handlers. Every id in CommandIds must appear here
 * (the Record type makes a missing one a compile error).
 */
import * as vscode from 'vscode';
import type { CommandContext, CommandHandler } from './context';
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

export function commandHandlers(ctx: CommandContext): Record<CommandId, CommandHandler> {
  return {
    [CommandIds.openInventory]: openInventory(ctx),
    [CommandIds.createInventory]: createInventory(ctx),
    [CommandIds.importAnsibleInventory]: importAnsibleInventory(ctx),
    [CommandIds.refreshInventory]: refreshInventory(ctx),
    [CommandIds.revealHost]: revealHost(ctx),
    [CommandIds.gatherFacts]: gatherFacts(ctx),
    [CommandIds.showBringUpPlan]: showBringUpPlan(ctx),
    [CommandIds.bringUpCluster]: bringUpCluster(ctx),
    [CommandIds.joinHost]: joinHost(ctx),
    [CommandIds.showPodTimeline]: showPodTimeline(ctx),
    [CommandIds.copyHostAddress]: copyHostAddress(),
    [CommandIds.showConfigDiagnostics]: showConfigDiagnostics(ctx),
    [CommandIds.generateClusterConfigs]: generateClusterConfigsCommand(ctx),
    [CommandIds.selectClusterContext]: selectClusterContext(ctx),
    [CommandIds.selectKubeconfigFile]: selectKubeconfigFile(ctx),
    [CommandIds.openKubeconfigSetting]: openKubeconfigSetting(),
    [CommandIds.reconnectCluster]: reconnectCluster(ctx),
    [CommandIds.drainNode]: drainNode(ctx),
    [CommandIds.cordonNode]: cordonNode(ctx),
    [CommandIds.uncordonNode]: uncordonNode(ctx),
    [CommandIds.runFailureDrill]: runFailureDrill(ctx),
    [CommandIds.inspectCertificates]: inspectCertificates(ctx),
    [CommandIds.backupEtcd]: backupEtcd(ctx),
    [CommandIds.renewCertificates]: renewCertificates(ctx),
  };
}

export function registerCommands(ctx: CommandContext): vscode.Disposable[] {
  return Object.entries(commandHandlers(ctx)).map(([id, handler]) => vscode.commands.registerCommand(id, handler));
}
