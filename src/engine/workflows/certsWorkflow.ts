/**
 * Certificate inspection, once for the editor's "Inspect Certificates" and the CLI's `certs`: the Kubernetes hosts in
 * scope (balancers carry no certificate), those the preflight failed named "not read" with its cause and never
 * contacted, the reading with each host's progress and a cancel, and the report's summary. Read-only: no host's
 * failure refuses it. The reading itself is the engine's (engine/certs.ts) over the front-end's pool and thresholds;
 * the editor's keeps the report for its Certificates view and status bar.
 */
import { t } from '../../core/l10n';
import type { CertReport, CertSummary } from '../../core/certs/report';
import { summarize } from '../../core/certs/report';
import type { Inventory } from '../../core/inventory/types';
import { notReadCauses, type PreflightReport } from '../../core/preflight/model';
import { certificateHosts } from '../certs';
import type { Ui } from './ui';

/** What the workflow hands the reading: the cancel, each host as it is read, the hosts not to contact, the scope. */
export interface CertReading {
  signal: AbortSignal;
  progress: (host: string, ok: boolean) => void;
  notRead: ReadonlyMap<string, string>;
  /** The hosts asked for (empty: every Kubernetes host). */
  only: readonly string[];
}

export interface CertsInput {
  inventory: Inventory;
  /** The hosts to read, by name (default: every Kubernetes host). */
  hosts?: readonly string[];
  /** The preflight that ran first, if one did: the hosts that failed it are rows "not read" with its cause. */
  preflight?: PreflightReport;
  /** Reads the certificates (engine/certs.ts inspectCertificates with the front-end's pool, kubeconfig, thresholds). */
  inspect: (reading: CertReading) => Promise<CertReport>;
  /** Told as each host is read (a terminal prints it; the editor's progress counts it anyway). */
  onHost?: (host: string, ok: boolean) => void;
}

export interface CertsOutcome {
  report: CertReport;
  summary: CertSummary;
  /** The user cancelled: the hosts not read by then are in the report as not read. */
  cancelled: boolean;
}

/** The names of the hosts an inspection reads. */
export function certificateTargets(inv: Inventory, only: readonly string[] = []): string[] {
  return certificateHosts(inv).filter((h) => !only.length || only.includes(h.name)).map((h) => h.name);
}

export async function certsWorkflow(ui: Ui, input: CertsInput): Promise<CertsOutcome> {
  const only = input.hosts ?? [];
  const targets = certificateTargets(input.inventory, only);
  // A host that failed the preflight is not read, and said so with the preflight's cause — never a certificate problem.
  const notRead = notReadCauses(input.preflight);
  const total = targets.filter((h) => !notRead.has(h)).length;
  let cancelled = false;
  const report = await ui.progress({ title: t('Inspecting certificates'), cancellable: true }, async (progressReport, signal) => {
    let done = 0;
    try {
      return await input.inspect({
        signal,
        notRead,
        only,
        progress: (host, ok) => {
          input.onHost?.(host, ok);
          progressReport(`${++done}/${total} hosts (${host})`, 100 / Math.max(1, total));
        },
      });
    } finally {
      cancelled = signal.aborted;
    }
  });
  return { report, summary: summarize(report), cancelled };
}
