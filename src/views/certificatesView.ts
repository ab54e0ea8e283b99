/**
 * Certificates view: the last inspection, one branch per Kubernetes host (control plane first), each
 * certificate sorted by days left with its colour and icon by threshold (error at the error threshold or
 * expired, warning under the warning threshold); then what the API servers serve and the user's own
 * kubeconfig credentials. Filled by Kubeadm: Inspect Certificates (SSH, read-only), never by polling.
 */
import * as vscode from 'vscode';
import { ViewIds } from '../editor/commandIds';
import type { CertReport } from '../core/certs/report';
import type { CertificateInspections } from '../editor/certificateInspections';
import type { LiveNode } from '../editor/treeNodes';
import { StaticTreeView } from './staticTree';

export class CertificatesView extends StaticTreeView {
  /** Which report the rows shown are of: a report built while an older one's rows load wins. */
  private shown = 0;

  constructor(inspections: CertificateInspections) {
    super(ViewIds.certificates);
    this.disposables.push(inspections.onDidChange((r) => this.show(r)));
    this.show(inspections.report);
  }

  private show(report: CertReport | undefined): void {
    const turn = ++this.shown;
    // The rows' code (the certificate assessment with it) loads with the first report, not with the extension.
    void (report ? import('./certificateRows.js').then((m) => m.buildCertificateTree(report)) : Promise.resolve([])).then((roots) => {
      if (turn === this.shown) this.render(report, roots);
    });
  }

  private render(report: CertReport | undefined, roots: LiveNode[]): void {
    const notRead = report?.hosts.filter((h) => h.error).length ?? 0;
    this.treeView.message = report ? `${report.cluster} · inspected ${new Date(report.at).toLocaleString()}${notRead ? vscode.l10n.t(' · {0} of {1} host(s) not read', notRead, report.hosts.length) : ''}` : undefined;
    this.setRoots(roots);
  }
}
