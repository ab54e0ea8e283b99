/**
 * Where the editor shows a preflight's table: the composition root hands in the webview panel
 * (webviews/preflightPanel.ts), which the editor layer may not import; until then (or in a test without it) the
 * table opens as a read-only text document, so a refusal never goes unexplained.
 */
import type { PreflightReport } from '../core/preflight/model';
import type { ReportDocuments } from './reportDocuments';

export interface PreflightPresenter {
  show(report: PreflightReport, options: { refused?: string }): Promise<void>;
}

let presenter: PreflightPresenter | undefined;

export function setPreflightPresenter(p: PreflightPresenter | undefined): void {
  presenter = p;
}

export async function presentPreflight(reports: Pick<ReportDocuments, 'show'>, report: PreflightReport, options: { refused?: string } = {}): Promise<void> {
  if (presenter) return presenter.show(report, options);
  const { renderPreflightTable } = await import('../core/preflight/render.js');
  await reports.show('preflight.txt', renderPreflightTable(report), 'plaintext');
}
