import * as vscode from 'vscode';
import { renderCertReport, summarize } from '../core/certs/report';
import { defineCommand } from './context';
import { certificateHosts } from '../engine/certs';
import { firstFailure, hostState } from '../core/preflight/model';
import { editorUi } from '../editor/vscodeUi';
import { editorPreflight } from './preflightGate';
import { ViewIds } from '../editor/commandIds';

/**
 * Reads every certificate kubeadm manages on the inventory's Kubernetes hosts (SSH, read-only), the
 * served ones by TLS handshake and the user's kubeconfig credentials; fills the Certificates view and the
 * status-bar warning, and offers the text report when something needs a look. The preflight comes first: the hosts
 * that fail it are not read, and the message names them with the reason, apart from the certificates' findings.
 */
export const inspectCertificates = defineCommand({ trust: 'read the certificates on the hosts', inventory: 'Inspect Certificates', inventoryCheck: 'parsed' }, (ctx) => {
  return async (): Promise<void> => {
    const { inv, folder } = ctx;
    const pool = ctx.sessions.open(inv, folder);
    let notRead: string[] = [];
    let report;
    try {
      const targets = certificateHosts(inv).map((h) => h.name);
      const pre = await editorPreflight(ctx, editorUi(ctx.reports), pool, inv, { operation: 'Inspect Certificates', hosts: targets, atLeastOne: true });
      if (!pre.ok) return;
      // Read where the preflight passed; a host that failed it is not read, and said so — never a certificate problem.
      const failed = pre.report.hosts.filter((h) => hostState(h) === 'fail');
      notRead = failed.map((h) => `${h.host} (${firstFailure(h.checks)?.cause ?? 'the preflight failed'})`);
      const only = targets.filter((t) => !failed.some((h) => h.host === t));
      report = await vscode.window.withProgress({ location: vscode.ProgressLocation.Notification, title: 'Inspecting certificates', cancellable: true }, async (progress, token) => {
        const abort = new AbortController();
        token.onCancellationRequested(() => abort.abort());
        let done = 0;
        return ctx.certificates.inspect(inv, folder, abort.signal, (host) => progress.report({ message: `${++done}/${only.length} hosts (${host})`, increment: 100 / Math.max(1, only.length) }), { only, session: pool });
      });
    } finally {
      await pool.close();
    }
    const unread = notRead.length ? ` Not read: ${notRead.join('; ')}.` : '';
    await vscode.commands.executeCommand(`${ViewIds.certificates}.focus`);
    const s = summarize(report);
    if (!s.degraded) {
      void vscode.window.showInformationMessage(`Certificates of ${report.cluster}: ${s.certificates} read, the soonest expires in ${s.minDaysLeft ?? '—'} days; nothing needs a look.${unread}`);
      return;
    }
    const pick = await vscode.window.showWarningMessage(`Certificates of ${report.cluster}: ${s.lines.length} need a look (soonest expiry in ${s.minDaysLeft ?? '—'} days).${unread}`, 'Show Report');
    if (pick) await ctx.reports.show('certificates.txt', renderCertReport(report), 'plaintext');
  };
});
