import * as vscode from 'vscode';
import { inspectionSentence, renderCertReport, summarize } from '../core/certs/report';
import { defineCommand } from './context';
import { ViewIds } from '../editor/commandIds';
import { log } from '../editor/log';

/**
 * Reads every certificate kubeadm manages on the inventory's Kubernetes hosts (SSH, read-only), the
 * served ones by TLS handshake and the user's kubeconfig credentials; fills the Certificates view and the
 * status-bar warning. One notification: the findings (Show Report), and apart from them the hosts not read with a
 * short cause (Show Log holds the whole error), never counted as certificate problems.
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
    for (const h of report.hosts) if (h.error) log.warn(`certificates of ${h.host} not read: ${h.errorDetail ?? h.error}`);
    for (const c of report.served) if (!c.facts) log.warn(`certificate served by ${c.target} (${c.address}:${c.port}) not read: ${c.error ?? 'no certificate'}`);
    await vscode.commands.executeCommand(`${ViewIds.certificates}.focus`);
    const s = summarize(report);
    const { level, text } = inspectionSentence(report);
    if (level === 'info') {
      void vscode.window.showInformationMessage(text);
      return;
    }
    const actions = [...(s.degraded ? ['Show Report'] : []), ...(s.notRead.length || s.servedNotRead.length ? ['Show Log'] : [])];
    const pick = await vscode.window.showWarningMessage(text, ...actions);
    if (pick === 'Show Report') await ctx.reports.show('certificates.txt', renderCertReport(report), 'plaintext');
    else if (pick === 'Show Log') log.show();
  };
});
