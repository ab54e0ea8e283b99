import * as vscode from 'vscode';
import { renderCertReport, summarize } from '../core/certs/report';
import { defineCommand } from './context';
import { ViewIds } from '../editor/commandIds';

/**
 * Reads every certificate kubeadm manages on the inventory's Kubernetes hosts (SSH, read-only), the
 * served ones by TLS handshake and the user's kubeconfig credentials; fills the Certificates view and the
 * status-bar warning, and offers the text report when something needs a look.
 */
export const inspectCertificates = defineCommand({ trust: 'read the certificates on the hosts', inventory: 'Inspect Certificates', inventoryCheck: 'parsed' }, (ctx) => {
  return async (): Promise<void> => {
    const { inv, folder } = ctx;
    const report = await vscode.window.withProgress({ location: vscode.ProgressLocation.Notification, title: 'Inspecting certificates', cancellable: true }, async (progress, token) => {
      const abort = new AbortController();
      token.onCancellationRequested(() => abort.abort());
      const total = inv.hosts.filter((h) => h.roles.includes('control-plane') || h.roles.includes('worker')).length;
      let done = 0;
      return ctx.certificates.inspect(inv, folder, abort.signal, (host) => progress.report({ message: `${++done}/${total} hosts (${host})`, increment: 100 / Math.max(1, total) }));
    });
    await vscode.commands.executeCommand(`${ViewIds.certificates}.focus`);
    const s = summarize(report);
    if (!s.degraded) {
      void vscode.window.showInformationMessage(`Certificates of ${report.cluster}: ${s.certificates} read, the soonest expires in ${s.minDaysLeft ?? '—'} days; nothing needs a look.`);
      return;
    }
    const pick = await vscode.window.showWarningMessage(`Certificates of ${report.cluster}: ${s.lines.length} need a look (soonest expiry in ${s.minDaysLeft ?? '—'} days).`, 'Show Report');
    if (pick) await ctx.reports.show('certificates.txt', renderCertReport(report), 'plaintext');
  };
});
