import * as vscode from 'vscode';
import { analyzeFacts, parseFacts, type FactFinding, type HostFacts } from '../core/phases/facts';
import { factsSentence, renderFactsReport, type FactsNotRead } from '../core/phases/factsReport';
import { FACTS_SCRIPT } from '../core/phases/factsScript';
import { HostProgress, shouldSummarise } from '../core/plan/hostProgress';
import { sh, sudo } from '../core/ssh/command';
import { summarizeFailure } from '../core/text/failureSummary';
import { toRange } from '../editor/diagnostics';
import { log } from '../editor/log';
import { defineCommand, type CommandContext } from './context';
import { firstFailure, hostState } from '../core/preflight/model';
import { editorUi } from '../editor/vscodeUi';
import { editorPreflight } from './preflightGate';

/**
 * Gathers facts from every host in parallel (read-only), shows a report, and puts each finding —
 * cloned VMs, swap, missing modules, cgroup drivers — on its host's line in inventory.yaml, so the
 * Problems panel lists them next to the inventory's own problems. The preflight comes first: the facts are read on
 * the hosts that pass it. A host not read is no finding: the report and the notification name it apart with a short
 * cause (the preflight's, or the read's; the log has the whole error).
 */
export const gatherFacts = defineCommand({ trust: 'gather facts from the hosts', inventory: 'Gather facts' }, (ctx) => {
  return async (): Promise<void> => {
    const { loaded, inv } = ctx;
    const pool = ctx.sessions.open(inv, vscode.workspace.getWorkspaceFolder(loaded.uri)?.uri);
    const facts: HostFacts[] = [];
    const notRead: FactsNotRead[] = [];
    const started = Date.now();
    let readable = inv.hosts;
    try {
      const pre = await editorPreflight(ctx, editorUi(ctx.reports), pool, inv, { operation: 'Gather Host Facts', hosts: inv.hosts.map((h) => h.name), atLeastOne: true });
      if (!pre.ok) return;
      // Read where the preflight passed; the others are named with why they were not read.
      readable = inv.hosts.filter((h) => hostState(pre.report.hosts.find((r) => r.host === h.name)!) !== 'fail');
      for (const h of pre.report.hosts) if (hostState(h) === 'fail') notRead.push({ host: h.host, cause: firstFailure(h.checks)?.cause ?? 'the preflight failed' });
      await vscode.window.withProgress({ location: vscode.ProgressLocation.Notification, title: 'Gathering host facts', cancellable: true }, async (progress, token) => {
        const abort = new AbortController();
        token.onCancellationRequested(() => abort.abort());
        let done = 0;
        // Over many hosts the notification says how many are done / running / failed / waiting and which are slow.
        const hostProgress = new HostProgress();
        for (const h of readable) hostProgress.expect(h.name);
        const many = shouldSummarise(readable.length);
        await Promise.all(
          readable.map(async (h) => {
            hostProgress.started(h.name);
            try {
              // product_uuid is readable by root only: other login users read the facts through sudo -n.
              const script = sh`sh -c ${FACTS_SCRIPT}`;
              const r = await pool.exec(h.name, pool.loginUser(h.name) === 'root' ? script : sudo(script), { signal: abort.signal, timeoutMs: 60_000 });
              facts.push(parseFacts(h.name, r.stdout));
              hostProgress.ended(h.name, true);
            } catch (e) {
              const failure = summarizeFailure(e, h.name);
              notRead.push({ host: h.name, cause: failure.cause });
              log.warn(`facts of ${h.name} not read: ${failure.detail}`);
              hostProgress.ended(h.name, false, failure.cause);
            }
            progress.report({ message: many ? hostProgress.summary() : `${++done}/${readable.length} hosts`, increment: 100 / readable.length });
          }),
        );
      });
    } finally {
      await pool.close();
    }
    const findings = analyzeFacts(inv, facts);
    publish(ctx, loaded.uri, loaded.locations.hosts, findings);
    const order = inv.hosts.map((h) => h.name);
    facts.sort((a, b) => order.indexOf(a.host) - order.indexOf(b.host));
    notRead.sort((a, b) => order.indexOf(a.host) - order.indexOf(b.host));
    const run = { hosts: order, facts, findings, notRead, ms: Date.now() - started };
    await ctx.reports.show('host-facts.md', renderFactsReport(run), 'markdown');
    const sentence = factsSentence(run);
    if (!sentence) return;
    const actions = [...(sentence.problems ? ['Show Problems'] : []), ...(sentence.notRead ? ['Show Log'] : [])];
    // Show Log is the Ui's own button: it opens the log.
    const pick = await editorUi(ctx.reports).message('warning', sentence.text, { actions });
    if (pick === 'Show Problems') await vscode.commands.executeCommand('workbench.actions.view.problems');
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
