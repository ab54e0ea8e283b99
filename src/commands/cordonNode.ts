import * as vscode from 'vscode';
import { cordonWorkflow } from '../engine/workflows/drainWorkflow';
import { resolveNodeTarget } from '../editor/nodeTarget';
import { editorUi } from '../editor/vscodeUi';
import { defineCommand } from './context';

/**
 * Cordon Node / Uncordon Node: kubectl cordon/uncordon (spec.unschedulable) on a node picked from the
 * Inventory or Control Plane view, or from a list; the cordon workflow (engine/workflows/drainWorkflow.ts,
 * the CLI's `cordon`/`uncordon` too) says what changes in a modal before anything does.
 */
export function cordonCommand(cordon: boolean) {
  const what = cordon ? vscode.l10n.t('cordon a node') : vscode.l10n.t('uncordon a node');
  return defineCommand({ trust: what, cluster: what }, (ctx) => async (arg?: unknown): Promise<void> => {
    const target = await resolveNodeTarget(ctx, arg, what);
    if (!target) return;
    const { cluster, node, conn } = target;
    await cordonWorkflow(editorUi(ctx.reports), { cluster, node, cordon, context: conn.context, server: conn.server, dryRun: 'none' });
  });
}

export const cordonNode = cordonCommand(true);
