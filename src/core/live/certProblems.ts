/**
 * Certificates in the cluster's health verdict: a cluster whose certificates expire locks its administrators out a
 * year after bring-up. `status --ssh` reads them itself, the editor takes them from the Certificates view's inspection.
 */
import { allEntries, type CertReport } from '../certs/report';
import { csrProblem } from '../certs/kubelet';
import type { Problem } from './status';

function expiryWords(daysLeft: number): string {
  return daysLeft < 0 ? `expired ${-daysLeft} day(s) ago` : `expires in ${daysLeft} day(s)`;
}

/**
 * Every certificate under the warning threshold is critical (degraded, listed by host and name); the inspection's
 * other findings (SANs, a served certificate that is not the one on disk, a host not read) are warnings: listed,
 * and `certs` is where they are judged in full.
 */
export function certificateProblems(report: CertReport): Problem[] {
  const out: Problem[] = [];
  const under = `under the warning threshold of ${report.thresholds.warningDays} days`;
  for (const e of allEntries(report)) {
    if (e.daysLeft !== undefined && e.expiry && e.expiry !== 'ok') {
      out.push({ severity: 'critical', what: `certificate ${e.id} on ${e.host} ${expiryWords(e.daysLeft)} (${under})` });
    }
    for (const p of e.problems) {
      if (p.severity === 'info' || /^(expires in|expired) /.test(p.message)) continue;
      out.push({ severity: 'warning', what: `certificate ${e.id} on ${e.host}: ${p.message}` });
    }
  }
  for (const c of report.served) {
    const who = c.target === 'endpoint' ? `the endpoint ${c.address}:${c.port}` : `${c.target} (${c.address}:${c.port})`;
    if (c.daysLeft !== undefined && c.daysLeft < report.thresholds.warningDays) {
      out.push({ severity: 'critical', what: `the certificate served by ${who} ${expiryWords(c.daysLeft)} (${under})` });
    }
    for (const p of c.problems) {
      if (p.severity === 'info' || /^the served certificate (expires in|has expired)/.test(p.message)) continue;
      out.push({ severity: 'warning', what: `the certificate served by ${who}: ${p.message}` });
    }
  }
  for (const h of report.hosts) if (h.error) out.push({ severity: 'warning', what: `certificates of ${h.host} not read: ${h.error}` });
  for (const c of report.csrs ?? []) {
    const p = csrProblem(c);
    if (p) out.push({ severity: 'warning', what: p });
  }
  return out;
}
