/**
 * The preflight an editor command runs before its first question (engine/workflows/preflightStep.ts) over the SSH
 * pool the operation then uses — so the host keys accepted in its review and its connections carry over — with the
 * cluster's checks from the views' connection when the operation works on the cluster. Its result goes to the log.
 */
import * as vscode from 'vscode';
import type { Inventory } from '../core/inventory/types';
import { failingHosts, summaryLine, type PreflightReport, type Tolerance } from '../core/preflight/model';
import { preflightStep, type PreflightOutcome } from '../engine/workflows/preflightStep';
import type { Ui } from '../engine/workflows/ui';
import { editorClusterChecks } from '../editor/clusterPreflight';
import type { HostSession } from '../editor/hostSessions';
import { log } from '../editor/log';
import type { CommandContext } from './context';

export interface GateRequest {
  operation: string;
  hosts: readonly string[];
  tolerate?: Tolerance;
  atLeastOne?: boolean;
  /** Add the kubeconfig and API checks. */
  cluster?: boolean;
  /** The preflight on its own (Run Preflight Checks): PreflightRequest.standalone. */
  standalone?: boolean;
}

export async function editorPreflight(ctx: Pick<CommandContext, 'connection'>, ui: Ui, pool: HostSession, inv: Inventory, req: GateRequest): Promise<PreflightOutcome> {
  const outcome = await preflightStep(ui, {
    ssh: pool, inventory: inv, operation: req.operation, hosts: req.hosts, sudoPasswordAsked: true,
    ...(req.tolerate ? { tolerate: req.tolerate } : {}), ...(req.atLeastOne ? { atLeastOne: true } : {}), ...(req.standalone ? { standalone: true } : {}),
    ...(req.cluster ? { cluster: () => editorClusterChecks(ctx.connection, inv) } : {}),
  });
  log.info(`preflight for ${req.operation}: ${summaryLine(outcome.report, req.tolerate)} (${outcome.report.ms} ms)`);
  return outcome;
}

/**
 * After a choice narrowed what the operation needs (the node picked), the report already gathered judges again —
 * no new connection: the table and one refusal when a host it needs fails.
 */
export async function refuseUnlessPasses(ui: Ui, report: PreflightReport, operation: string, tolerate: Tolerance): Promise<boolean> {
  const failing = failingHosts(report, tolerate);
  if (!failing.length) return true;
  await ui.showPreflight(report, { refused: operation });
  await ui.message('error', vscode.l10n.t('{0} refused: {1}. The table names each cause and its fix.', operation, summaryLine(report, tolerate)));
  return false;
}
