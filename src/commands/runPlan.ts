/**
 * The editor's side of running a plan over SSH (bring-up, join, certificate renewal): the workspace's SSH sessions,
 * its state folder and the maxParallelHosts setting, handed to the plan-run workflow (engine/workflows/
 * planRunWorkflow.ts) — the same one the CLI's `up`, `join` and `certs renew` run — with VS Code's Ui.
 */
import * as vscode from 'vscode';
import type { Inventory } from '../core/inventory/types';
import type { Plan } from '../core/plan/types';
import { stateFolderFor } from '../engine/stateFolder';
import { planRunWorkflow, type PlanRunInput } from '../engine/workflows/planRunWorkflow';
import { log } from '../editor/log';
import { setting } from '../editor/settings';
import { editorUi } from '../editor/vscodeUi';
import type { HostSession } from '../editor/hostSessions';
import type { CommandContext } from './context';

export interface PlanRunRequest {
  inv: Inventory;
  inventoryUri: vscode.Uri;
  plan: Plan;
  /** The ledger's command name: runs resume only runs of the same command and plan. */
  command: string;
  /** "Bring-up of labs-k8s", "Join of labs-k8s-w03". */
  title: string;
  /** The report document's name for the plan. */
  planDocument: string;
}

/** How the editor runs plans: the workspace's state folder is the inventory's; parallelism from the settings. */
export function editorPlanRun(ssh: PlanRunInput['ssh'], inventoryUri: vscode.Uri): Omit<PlanRunInput, 'inventory' | 'plan' | 'command' | 'title' | 'planDocument' | 'password' | 'onEvent'> {
  return {
    stateDir: stateFolderFor(inventoryUri.fsPath), ssh,
    maxParallelHosts: setting('maxParallelHosts'),
    again: { resume: vscode.l10n.t('choose "Resume" (or run the command again)'), startOver: vscode.l10n.t('choose "Start over"') },
  };
}

/** Runs the plan after approval, over `pool` when the command opened one for its preflight; true when it ran to the end. */
export async function approveAndRunPlan(ctx: CommandContext, req: PlanRunRequest, onDone?: (took: string) => string, session?: HostSession): Promise<boolean> {
  const pool = session ?? ctx.sessions.open(req.inv, vscode.workspace.getWorkspaceFolder(req.inventoryUri)?.uri);
  try {
    const outcome = await planRunWorkflow(editorUi(ctx.reports), {
      ...editorPlanRun(pool, req.inventoryUri),
      inventory: req.inv, plan: req.plan, command: req.command, title: req.title, planDocument: req.planDocument,
      ...(onDone ? { onDone } : {}),
      onLog: (path) => log.runLog(req.title, path),
    });
    return outcome.kind === 'ran' && outcome.result.ok;
  } finally {
    if (!session) await pool.close();
  }
}
