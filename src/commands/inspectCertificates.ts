import * as vscode from 'vscode';
import { inspectionSentence, renderCertReport } from '../core/certs/report';
import { defineCommand } from './context';
import { certificateTargets, certsWorkflow } from '../engine/workflows/certsWorkflow';
import { editorUi, SHOW_LOG } from '../editor/vscodeUi';
import { editorPreflight } from './preflightGate';
import { ViewIds } from '../editor/commandIds';
import { log } from '../editor/log';

/**
 * Reads every certificate kubeadm manages on the inventory's Kubernetes hosts (SSH, read-only), the
 * served ones by TLS handshake and the user's kubeconfig credentials; fills the Certificates view and the
 * status-bar warning. The preflight comes first (never a refusal: read-only): a host that fails it is not contacted
 * again. One notification: the findings (Show Report), and apart from them the hosts not read with a short cause
 * (Show Log holds the whole error), never counted as certificate problems. The inspection is the certificates
 * workflow's (engine/workflows/certsWorkflow.ts), the CLI's `certs` too.
 */
export const inspectCertificates = defineCommand({ trust: vscode.l10n.t('read the certificates on the hosts'), inventory: vscode.l10n.t('Inspect Certificates'), inventoryCheck: 'parsed' }, (ctx) => {
  return async (): Promise<void> => {
    const { inv, folder } = ctx;
    const ui = editorUi(ctx.reports);
    const pool = ctx.sessions.open(inv, folder);
    let outcome;
    try {
      const targets = certificateTargets(inv);
      // Read-only and nothing asked: no host's failure refuses it (the unknown keys are still reviewed together).
      const pre = await editorPreflight(ctx, ui, pool, inv, { operation: vscode.l10n.t('Inspect Certificates'), hosts: targets, tolerate: { hosts: targets } });
      if (!pre.ok) return;
      outcome = await certsWorkflow(ui, {
        inventory: inv,
        preflight: pre.report,
        inspect: ({ signal, progress, notRead }) => ctx.certificates.inspect(inv, folder, signal, (host, ok) => progress(host, ok), { notRead, session: pool }),
      });
    } finally {
      await pool.close();
    }
    const { report, summary: s } = outcome;
    for (const h of report.hosts) if (h.error) log.warn(`certificates of ${h.host} not read: ${h.errorDetail ?? h.error}`);
    for (const c of report.served) if (!c.facts) log.warn(`certificate served by ${c.target} (${c.address}:${c.port}) not read: ${c.error ?? 'no certificate'}`);
    await vscode.commands.executeCommand(`${ViewIds.certificates}.focus`);
    const { level, text } = inspectionSentence(report);
    if (level === 'info') {
      void ui.message('info', text);
      return;
    }
    const SHOW_REPORT = vscode.l10n.t('Show Report');
    const actions = [...(s.degraded ? [SHOW_REPORT] : []), ...(s.notRead.length || s.servedNotRead.length ? [SHOW_LOG] : [])];
    // Show Log is the Ui's own button: it opens the log.
    const pick = await ui.message('warning', text, { actions });
    if (pick === SHOW_REPORT) await ctx.reports.show('certificates.txt', renderCertReport(report), 'plaintext');
  };
});
