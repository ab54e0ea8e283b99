/**
 * The whole inspection as one report: per host, the served certificates and the user's own credentials;
 * its summary (what `certs` exits on and the status bar shows) and a text rendering for the terminal.
 */
import type { Severity } from '../findings';
import { byDaysLeft, entrySeverity, type CertEntry, type CertThresholds, type HostCerts } from './assess';
import type { ServedCheck } from './served';
import { csrProblem, type PendingCsr } from './kubelet';

export interface CertReport {
  cluster: string;
  /** ISO time of the inspection. */
  at: string;
  thresholds: CertThresholds;
  hosts: HostCerts[];
  served: ServedCheck[];
  /** Certificates in the user's kubeconfig for this cluster (host `local`). */
  local: CertEntry[];
  /** CSRs nobody approved or denied yet (read through a control-plane node's admin.conf). */
  csrs?: PendingCsr[];
  /** Why the CSRs were not read. */
  csrsError?: string;
}

export interface CertSummary {
  certificates: number;
  expired: number;
  /** Under the error threshold (not yet expired). */
  critical: number;
  /** Under the warning threshold (not critical). */
  expiring: number;
  /** Any problem of severity error or warning (SANs, served ≠ disk, unreadable hosts, expiry). */
  problems: number;
  /** The soonest not-after among all leaf and CA certificates (days). */
  minDaysLeft?: number;
  /** Under the warning threshold or any error/warning: `certs` exits 1. */
  degraded: boolean;
  /** Short lines naming what is wrong (status bar tooltip, `certs` footer). */
  lines: string[];
}

export function allEntries(r: CertReport): CertEntry[] {
  return [...r.hosts.flatMap((h) => h.entries), ...r.local];
}

export function summarize(r: CertReport): CertSummary {
  const entries = allEntries(r);
  const s: CertSummary = { certificates: entries.length, expired: 0, critical: 0, expiring: 0, problems: 0, degraded: false, lines: [] };
  const count = (level: string | undefined) => {
    if (level === 'expired') s.expired++;
    else if (level === 'error') s.critical++;
    else if (level === 'warning') s.expiring++;
  };
  for (const e of entries) {
    count(e.expiry);
    if (e.daysLeft !== undefined) s.minDaysLeft = Math.min(s.minDaysLeft ?? Infinity, e.daysLeft);
    for (const p of e.problems) {
      if (p.severity === 'info') continue;
      s.problems++;
      s.lines.push(`${e.host} ${e.id}: ${p.message}`);
    }
  }
  for (const c of r.served) {
    if (c.daysLeft !== undefined) s.minDaysLeft = Math.min(s.minDaysLeft ?? Infinity, c.daysLeft);
    for (const p of c.problems) {
      if (p.severity === 'info') continue;
      s.problems++;
      s.lines.push(`served by ${c.target === 'endpoint' ? 'the endpoint' : c.target} (${c.address}:${c.port}): ${p.message}`);
    }
  }
  for (const c of r.csrs ?? []) {
    const p = csrProblem(c);
    if (p) {
      s.problems++;
      s.lines.push(p);
    }
  }
  for (const h of r.hosts) {
    if (h.error) {
      s.problems++;
      s.lines.push(`${h.host}: not inspected: ${h.error}`);
    }
  }
  s.degraded = s.problems > 0;
  return s;
}

const MARK: Record<Severity | 'ok', string> = { ok: 'ok', info: 'ok', warning: 'WARN', error: 'ERROR' };

function row(e: CertEntry): string {
  const days = e.daysLeft === undefined ? '—' : String(e.daysLeft);
  const after = e.facts ? e.facts.notAfter.slice(0, 10) : '—';
  return `  ${MARK[entrySeverity(e) ?? 'ok'].padEnd(5)} ${days.padStart(5)}  ${after}  ${e.id.padEnd(26)} ${e.facts?.subject ?? ''}`;
}

function details(e: CertEntry): string[] {
  return [...e.problems.map((p) => `          ${p.severity}: ${p.message}`), ...e.notes.map((n) => `          note: ${n}`)];
}

export function renderCertReport(r: CertReport): string {
  const out: string[] = [`Certificates of ${r.cluster} at ${r.at} (warning under ${r.thresholds.warningDays} days, error under ${r.thresholds.errorDays})`, ''];
  for (const h of r.hosts) {
    out.push(`${h.host} (${h.address}${h.controlPlane ? ', control plane' : ''})`);
    if (h.error) {
      out.push(`  ERROR not inspected: ${h.error}`, '');
      continue;
    }
    out.push('  level  days  not after   certificate                subject');
    for (const e of byDaysLeft(h.entries)) out.push(row(e), ...details(e));
    out.push('');
  }
  if (r.served.length) {
    out.push('Served by the API servers (TLS handshake)');
    for (const c of r.served) {
      const sev = c.problems.some((p) => p.severity === 'error') ? 'error' : c.problems.some((p) => p.severity === 'warning') ? 'warning' : 'ok';
      const who = c.target === 'endpoint' ? 'endpoint' : c.target;
      const same = c.matchesHost ? `= ${c.matchesHost}'s apiserver.crt` : '';
      out.push(`  ${MARK[sev].padEnd(5)} ${String(c.daysLeft ?? '—').padStart(5)}  ${(c.facts?.notAfter ?? '—').slice(0, 10)}  ${`${who} ${c.address}:${c.port}`.padEnd(26)} ${same}`);
      for (const p of c.problems) out.push(`          ${p.severity}: ${p.message}`);
    }
    out.push('');
  }
  if (r.csrs?.length || r.csrsError) {
    out.push('Pending certificate signing requests');
    if (r.csrsError) out.push(`  not read: ${r.csrsError}`);
    for (const c of r.csrs ?? []) out.push(`  ${(csrProblem(c) ? 'WARN' : 'ok').padEnd(5)} ${`${Math.round(c.ageSeconds / 60)}m`.padStart(5)}  ${c.name.padEnd(26)} ${c.signerName} from ${c.username}`);
    out.push('');
  }
  if (r.local.length) {
    out.push('Your kubeconfig');
    for (const e of byDaysLeft(r.local)) out.push(row(e), ...details(e));
    out.push('');
  }
  const s = summarize(r);
  out.push(
    `${s.certificates} certificate(s); soonest expiry in ${s.minDaysLeft ?? '—'} day(s); ${s.expired} expired, ${s.critical} under ${r.thresholds.errorDays} days, ${s.expiring} under ${r.thresholds.warningDays} days; ${s.problems} problem(s).`,
  );
  return out.join('\n') + '\n';
}
