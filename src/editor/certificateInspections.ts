/**
 * The editor's last certificate inspection: run on demand (Kubeadm: Inspect Certificates) over a run's own
 * SSH pool, kept for the Certificates view and the status-bar warning. Thresholds come from the settings
 * kubeadmWorkbench.certificates.warningDays / errorDays (30 / 7).
 */
import * as vscode from 'vscode';
import type { CertThresholds } from '../core/certs/assess';
import type { CertReport, CertSummary } from '../core/certs/report';
import type { Problem } from '../core/live/status';
import type { Inventory } from '../core/inventory/types';
import type { HostSession, HostSessions } from './hostSessions';
import { setting } from './settings';

export function certificateThresholds(): CertThresholds {
  const warningDays = setting('certificateWarningDays');
  const errorDays = Math.min(setting('certificateErrorDays'), warningDays);
  return { warningDays, errorDays };
}

export class CertificateInspections implements vscode.Disposable {
  private readonly emitter = new vscode.EventEmitter<CertReport | undefined>();
  readonly onDidChange = this.emitter.event;
  private last: CertReport | undefined;
  /** What the health model and the status bar take from the last report, worked out when it came (the code that
   * does it loads with the inspection, not with the extension). */
  private derived: { problems: Problem[]; summary: CertSummary } | undefined;
  private running: Promise<CertReport> | undefined;

  constructor(private readonly sessions: HostSessions) {}

  get report(): CertReport | undefined {
    return this.last;
  }

  /** The last inspection's problems for the health model: a certificate under the warning threshold degrades. */
  problems(): Problem[] {
    return this.derived?.problems ?? [];
  }

  /** The last report's summary (counts, the worst days left, lines for a tooltip). */
  get summary(): CertSummary | undefined {
    return this.derived?.summary;
  }

  /**
   * Inspects the Kubernetes hosts of `inventory` — those the preflight failed (`notRead`, host → cause) are rows
   * "not read" without being contacted — over `session` when the command has one open; one run at a time, a second
   * call joins the first.
   */
  inspect(inventory: Inventory, folder: vscode.Uri | undefined, signal?: AbortSignal, progress?: (host: string, ok: boolean) => void, opts: { notRead?: ReadonlyMap<string, string>; session?: HostSession } = {}): Promise<CertReport> {
    this.running ??= (async () => {
      // The inspection's code loads with the first inspection (a failed load leaves the next call free to try again).
      const [{ inspectCertificates }, { servedCertificate }, { sudoUnlessRoot }, { certificateProblems }, { summarize }] = await Promise.all([import('../engine/certs.js'), import('../adapters/tls/servedCertificate.js'), import('../engine/become.js'), import('../core/live/certProblems.js'), import('../core/certs/report.js')]).catch((e: unknown) => {
        this.running = undefined;
        throw e;
      });
      await this.sessions.ready();
      const pool = opts.session ?? this.sessions.open(inventory, folder);
      try {
        const kubeconfig = setting('kubeconfig');
        const report = await inspectCertificates({
          inventory,
          ssh: pool,
          // sudo -n for non-root logins: an inspection never asks for a password.
          become: sudoUnlessRoot((h) => pool.loginUser(h)),
          served: (address, port) => servedCertificate(address, port),
          kubeconfig,
          thresholds: certificateThresholds(),
          ...(signal ? { signal } : {}),
          ...(progress ? { progress } : {}),
          ...(opts.notRead ? { notRead: opts.notRead } : {}),
        });
        this.last = report;
        this.derived = { problems: certificateProblems(report), summary: summarize(report) };
        this.emitter.fire(report);
        return report;
      } finally {
        if (!opts.session) await pool.close();
        this.running = undefined;
      }
    })();
    return this.running;
  }

  dispose(): void {
    this.emitter.dispose();
  }
}
