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
  /** Findings of severity error or warning about certificates that were read (expiry, SANs, served ≠ disk). */
  problems: number;
  /** Hosts whose certificates could not be read, with the cause: no finding about a certificate, counted apart. */
  notRead: { host: string; cause: string }[];
  /** API addresses where no TLS handshake was made (nothing served was read): counted apart like the hosts. */
  servedNotRead: { at: string; cause: string }[];
  /** The soonest not-after among all leaf and CA certificates (days). */
  minDaysLeft?: number;
  /** A certificate under the warning threshold or any error/warning finding (hosts not read do not count). */
  degraded: boolean;
  /** Short lines naming each finding (status bar tooltip, `certs` footer). */
  lines: string[];
}

export function allEntries(r: CertReport): CertEntry[] {
  return [...r.hosts.flatMap((h) => h.entries), ...r.local];
}

export function summarize(r: CertReport): CertSummary {
  const entries = allEntries(r);
  const s: CertSummary = { certificates: entries.length, expired: 0, critical: 0, expiring: 0, problems: 0, notRead: [], servedNotRead: [], degraded: false, lines: [] };
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
    if (!c.facts) {
      s.servedNotRead.push({ at: `${c.target === 'endpoint' ? 'the endpoint' : c.target} ${c.address}:${c.port}`, cause: c.error ?? 'no certificate' });
      continue;
    }
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
  for (const h of r.hosts) if (h.error) s.notRead.push({ host: h.host, cause: h.error });
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

/** `2 of 5 host(s) not read: labs-k8s-m01 (connection refused), …` — apart from the findings. */
export function notReadLine(s: CertSummary, hosts: number): string {
  return `${s.notRead.length} of ${hosts} host(s) not read, so their certificates are not judged: ${s.notRead.map((n) => `${n.host} (${n.cause})`).join(', ')}.`;
}

export function renderCertReport(r: CertReport): string {
  const out: string[] = [`Certificates of ${r.cluster} at ${r.at} (warning under ${r.thresholds.warningDays} days, error under ${r.thresholds.errorDays})`, ''];
  for (const h of r.hosts) {
    out.push(`${h.host} (${h.address}${h.controlPlane ? ', control plane' : ''})`);
    if (h.error) {
      out.push(`  not read: ${h.error}`, '');
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
    `${s.certificates} certificate(s) read; soonest expiry in ${s.minDaysLeft ?? '—'} day(s); ${s.expired} expired, ${s.critical} under ${r.thresholds.errorDays} days, ${s.expiring} under ${r.thresholds.warningDays} days; ${s.problems} finding(s).`,
  );
  if (s.notRead.length) out.push(notReadLine(s, r.hosts.length));
  if (s.servedNotRead.length) out.push(`No TLS handshake with ${s.servedNotRead.map((n) => `${n.at} (${n.cause})`).join(', ')}: what they serve is not judged.`);
  return out.join('\n') + '\n';
}

/**
 * The one sentence after an inspection (the editor's notification): the findings first, then what was read, then the
 * hosts not read with their causes — never counted as certificate problems; `level` warning when either needs a look.
 */
export function inspectionSentence(r: CertReport): { level: 'info' | 'warning'; text: string } {
  const s = summarize(r);
  const read = r.hosts.filter((h) => !h.error);
  const onHosts = read.reduce((n, h) => n + h.entries.length, 0);
  const soonest = Math.min(...read.flatMap((h) => h.entries.map((e) => e.daysLeft).filter((d): d is number => d !== undefined)));
  const causes = [...new Set(s.notRead.map((n) => n.cause))];
  const parts = [
    s.degraded ? `${s.lines.length} finding(s) need a look` : undefined,
    read.length ? `${onHosts} certificate(s) read on ${read.length} host(s)${Number.isFinite(soonest) ? `, the soonest expires in ${soonest} days` : ''}` : 'no certificate was read on the nodes',
    s.notRead.length ? `${s.notRead.length} of ${r.hosts.length} host(s) not read (${causes.slice(0, 2).join('; ')}${causes.length > 2 ? `; ${causes.length - 2} more` : ''})` : undefined,
    s.servedNotRead.length ? `no TLS handshake with ${s.servedNotRead.length} of ${r.served.length} API address(es)` : undefined,
  ];
  const clean = !s.degraded && !s.notRead.length && !s.servedNotRead.length;
  return { level: clean ? 'info' : 'warning', text: `Certificates of ${r.cluster}: ${parts.filter(Boolean).join('; ')}${clean ? '; nothing needs a look' : ''}.` };
}
