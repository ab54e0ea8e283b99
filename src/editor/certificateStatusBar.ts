/**
 * A status-bar warning while the last inspection found a certificate under the warning threshold (or
 * another finding about a certificate it read); hidden otherwise — a host that could not be read is no finding and
 * the Certificates view says it. Clicking it shows the Certificates view.
 */
import * as vscode from 'vscode';
import { ViewIds } from './commandIds';
import type { CertReport, CertSummary } from '../core/certs/report';
import type { CertificateInspections } from './certificateInspections';

export class CertificateStatusBar implements vscode.Disposable {
  private readonly item = vscode.window.createStatusBarItem('kubeadm.certificates', vscode.StatusBarAlignment.Left, 39);
  private readonly subscription: vscode.Disposable;

  constructor(inspections: CertificateInspections) {
    this.item.name = vscode.l10n.t('Kubeadm certificates');
    this.item.command = `${ViewIds.certificates}.focus`;
    this.subscription = inspections.onDidChange((r) => this.render(r, inspections.summary));
    this.render(inspections.report, inspections.summary);
  }

  /** What the item shows (for tests): undefined when hidden. */
  text: string | undefined;

  private render(report: CertReport | undefined, summary: CertSummary | undefined): void {
    const s = report && summary;
    if (!s?.degraded) {
      this.text = undefined;
      this.item.hide();
      return;
    }
    const bad = s.expired + s.critical;
    const expiring = bad + s.expiring > 0 && s.minDaysLeft !== undefined;
    const words = expiring ? (s.minDaysLeft! < 0 ? vscode.l10n.t('certs: expired') : vscode.l10n.t('certs: {0}d left', s.minDaysLeft!)) : vscode.l10n.t('certs: {0} finding(s)', s.problems);
    this.text = `$(${bad ? 'error' : 'warning'}) ${words}`;
    this.item.text = this.text;
    this.item.backgroundColor = new vscode.ThemeColor(bad ? 'statusBarItem.errorBackground' : 'statusBarItem.warningBackground');
    const more = s.lines.length > 12 ? `\n… ${vscode.l10n.t('{0} more', s.lines.length - 12)}` : '';
    this.item.tooltip = `${vscode.l10n.t('Certificates of {0} ({1}):', report!.cluster, report!.at)}\n${s.lines.slice(0, 12).join('\n')}${more}`;
    this.item.show();
  }

  dispose(): void {
    this.subscription.dispose();
    this.item.dispose();
  }
}
