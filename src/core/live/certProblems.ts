/**
 * Certificates in the cluster's health verdict: a cluster whose certificates expire locks its administrators out a
 * year after bring-up. `status --ssh` reads them itself, the editor takes them from the Certificates view's inspection.
 */
import { t } from '../l10n';
import { allEntries, type CertReport } from '../certs/report';
import { csrProblem } from '../certs/kubelet';
import type { Problem } from './status';

function expiryWords(daysLeft: number): string {
  return daysLeft < 0 ? t('expired {0} day(s) ago', -daysLeft) : t('expires in {0} day(s)', daysLeft);
}

/**
 * Every certificate under the warning threshold is critical (degraded, listed by host and name); the inspection's
 * other findings (SANs, a served certificate that is not the one on disk, a host not read) are warnings: listed,
 * and `certs` is where they are judged in full.
 */
export function certificateProblems(report: CertReport): Problem[] {
  const out: Problem[] = [];
  const under = t('under the warning threshold of {0} days', report.thresholds.warningDays);
  for (const e of allEntries(report)) {
    if (e.daysLeft !== undefined && e.expiry && e.expiry !== 'ok') {
      out.push({ severity: 'critical', what: t('certificate {0} on {1} {2} ({3})', e.id, e.host, expiryWords(e.daysLeft), under) });
    }
    for (const p of e.problems) {
      // the inspection's own expiry finding is the critical one above (by its kind; a problem made without one, by its English words)
      if (p.severity === 'info' || p.kind === 'expiry' || (p.kind === undefined && /^(expires in|expired) /.test(p.message))) continue;
      out.push({ severity: 'warning', what: t('certificate {0} on {1}: {2}', e.id, e.host, p.message) });
    }
  }
  for (const c of report.served) {
    const who = c.target === 'endpoint' ? t('the endpoint {0}:{1}', c.address, c.port) : `${c.target} (${c.address}:${c.port})`;
    if (c.daysLeft !== undefined && c.daysLeft < report.thresholds.warningDays) {
      out.push({ severity: 'critical', what: t('the certificate served by {0} {1} ({2})', who, expiryWords(c.daysLeft), under) });
    }
    for (const p of c.problems) {
      if (p.severity === 'info' || p.kind === 'served-expiry' || (p.kind === undefined && /^the served certificate (expires in|has expired)/.test(p.message))) continue;
      out.push({ severity: 'warning', what: t('the certificate served by {0}: {1}', who, p.message) });
    }
  }
  for (const h of report.hosts) if (h.error) out.push({ severity: 'warning', what: t('certificates of {0} not read: {1}', h.host, h.error) });
  for (const c of report.csrs ?? []) {
    const p = csrProblem(c);
    if (p) out.push({ severity: 'warning', what: p });
  }
  return out;
}
