import * as vscode from 'vscode';
import { inspectionSentence, renderCertReport, summarize } from '../core/certs/report';
import { defineCommand } from './context';
import { certificateHosts } from '../engine/certs';
import { firstFailure, hostState } from '../core/preflight/model';
import { editorUi } from '../editor/vscodeUi';
import { editorPreflight } from './preflightGate';
import { ViewIds } from '../editor/commandIds';
import { log } from '../editor/log';

/**
 * Reads every certificate kubeadm manages on the inventory's Kubernetes hosts (SSH, read-only), the
 * served ones by TLS handshake and the user's kubeconfig credentials; fills the Certificates view and the
 * status-bar warning. The preflight comes first (never a refusal: read-only): a host that fails it is not contacted
 * again. One notification: the findings (Show Report), and apart from them the hosts not read with a short cause
 * (Show Log holds the whole error), never counted as certificate problems.
 */
export const inspectCertificates = defineCommand({ trust: 'read the certificates on the hosts', inventory: 'Inspect Certificates', inventoryCheck: 'parsed' }, (ctx) => {
  return async (): Promise<void> => {
    const { inv, folder } = ctx;
    const ui = editorUi(ctx.reports);
    const pool = ctx.sessions.open(inv, folder);
    let report;
    try {
      const targets = certificateHosts(inv).map((h) => h.name);
      // Read-only and nothing asked: no host's failure refuses it (the unknown keys are still reviewed together). A host
      // that failed the preflight is not read, and said so with the preflight's cause — never a certificate problem.
      const pre = await editorPreflight(ctx, ui, pool, inv, { operation: 'Inspect Certificates', hosts: targets, tolerate: { hosts: targets } });
      if (!pre.ok) return;
      const notRead = new Map(pre.report.hosts.filter((h) => hostState(h) === 'fail').map((h) => [h.host, firstFailure(h.checks)?.cause ?? 'the preflight failed'] as const));
      const total = targets.length - notRead.size;
      report = await vscode.window.withProgress({ location: vscode.ProgressLocation.Notification, title: 'Inspecting certificates', cancellable: true }, async (progress, token) => {
        const abort = new AbortController();
        token.onCancellationRequested(() => abort.abort());
        let done = 0;
        return ctx.certificates.inspect(inv, folder, abort.signal, (host) => progress.report({ message: `${++done}/${total} hosts (${host})`, increment: 100 / Math.max(1, total) }), { notRead, session: pool });
      });
    } finally {
      await pool.close();
    }
    for (const h of report.hosts) if (h.error) log.warn(`certificates of ${h.host} not read: ${h.errorDetail ?? h.error}`);
    for (const c of report.served) if (!c.facts) log.warn(`certificate served by ${c.target} (${c.address}:${c.port}) not read: ${c.error ?? 'no certificate'}`);
    await vscode.commands.executeCommand(`${ViewIds.certificates}.focus`);
    const s = summarize(report);
    const { level, text } = inspectionSentence(report);
    if (level === 'info') {
      void ui.message('info', text);
      return;
    }
    const actions = [...(s.degraded ? ['Show Report'] : []), ...(s.notRead.length || s.servedNotRead.length ? ['Show Log'] : [])];
    // Show Log is the Ui's own button: it opens the log.
    const pick = await ui.message('warning', text, { actions });
    if (pick === 'Show Report') await ctx.reports.show('certificates.txt', renderCertReport(report), 'plaintext');
  };
});
