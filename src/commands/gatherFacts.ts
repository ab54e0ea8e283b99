import * as vscode from 'vscode';
import type { FactFinding } from '../core/phases/facts';
import { factsSentence, renderFactsReport } from '../core/phases/factsReport';
import { toRange } from '../editor/diagnostics';
import { log } from '../editor/log';
import { defineCommand, type CommandContext } from './context';
import { editorUi, SHOW_LOG } from '../editor/vscodeUi';
import { editorPreflight } from './preflightGate';
import { factsWorkflow } from '../engine/workflows/factsWorkflow';

/**
 * Gathers facts from every host in parallel (read-only), shows a report, and puts each finding —
 * cloned VMs, swap, missing modules, cgroup drivers — on its host's line in inventory.yaml, so the
 * Problems panel lists them next to the inventory's own problems. The preflight comes first: the facts are read on
 * the hosts that pass it. A host not read is no finding: the report and the notification name it apart with a short
 * cause (the preflight's, or the read's; the log has the whole error). The reading is the facts workflow's
 * (engine/workflows/factsWorkflow.ts), the CLI's `facts` too.
 */
export const gatherFacts = defineCommand({ trust: vscode.l10n.t('gather facts from the hosts'), inventory: vscode.l10n.t('Gather facts') }, (ctx) => {
  return async (): Promise<void> => {
    const { loaded, inv } = ctx;
    const ui = editorUi(ctx.reports);
    const pool = ctx.sessions.open(inv, vscode.workspace.getWorkspaceFolder(loaded.uri)?.uri);
    const started = Date.now();
    let run;
    try {
      const pre = await editorPreflight(ctx, ui, pool, inv, { operation: vscode.l10n.t('Gather Host Facts'), hosts: inv.hosts.map((h) => h.name), atLeastOne: true });
      if (!pre.ok) return;
      run = await factsWorkflow(ui, { inventory: inv, ssh: pool, loginUser: (h) => pool.loginUser(h), preflight: pre.report });
    } finally {
      await pool.close();
    }
    for (const n of run.notRead) if (n.detail !== undefined) log.warn(`facts of ${n.host} not read: ${n.detail}`);
    publish(ctx, loaded.uri, loaded.locations.hosts, run.findings);
    const order = inv.hosts.map((h) => h.name);
    const notRead = run.notRead.map((n) => ({ host: n.host, cause: n.cause })).sort((a, b) => order.indexOf(a.host) - order.indexOf(b.host));
    const report = { hosts: order, facts: run.facts, findings: run.findings, notRead, ms: Date.now() - started };
    await ctx.reports.show('host-facts.md', renderFactsReport(report), 'markdown');
    const sentence = factsSentence(report);
    if (!sentence) return;
    const SHOW_PROBLEMS = vscode.l10n.t('Show Problems');
    const actions = [...(sentence.problems ? [SHOW_PROBLEMS] : []), ...(sentence.notRead ? [SHOW_LOG] : [])];
    // Show Log is the Ui's own button: it opens the log.
    const pick = await ui.message('warning', sentence.text, { actions });
    if (pick === SHOW_PROBLEMS) await vscode.commands.executeCommand('workbench.actions.view.problems');
  };
});

function publish(ctx: CommandContext, uri: vscode.Uri, hostRanges: Map<string, import('../core/findings').Range>, findings: FactFinding[]): void {
  const severity = { error: vscode.DiagnosticSeverity.Error, warning: vscode.DiagnosticSeverity.Warning, info: vscode.DiagnosticSeverity.Information };
  ctx.factDiagnostics.set(
    uri,
    findings.map((f) => {
      const range = hostRanges.get(f.host);
      const d = new vscode.Diagnostic(range ? toRange(range) : new vscode.Range(0, 0, 0, 0), `${f.host}: ${f.message}\n${f.why}`, severity[f.severity]);
      d.source = 'kubeadm-workbench facts';
      d.code = f.rule;
      return d;
    }),
  );
}
