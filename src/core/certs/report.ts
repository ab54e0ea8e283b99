/**
 * The whole inspection as one report: per host, the served certificates and the user's own credentials;
 * its summary (what `certs` exits on and the status bar shows) and a text rendering for the terminal.
 */
import type { Severity } from '../findings';
import { byDaysLeft, entrySeverity, type CertEntry, type CertThresholds, type HostCerts } from './assess';
import type { ServedCheck } from './served';
import { csrProblem, type PendingCsr } from './kubelet';
import { t } from '../l10n';

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
      s.servedNotRead.push({ at: `${c.target === 'endpoint' ? t('the endpoint') : c.target} ${c.address}:${c.port}`, cause: c.error ?? t('no certificate') });
      continue;
    }
    if (c.daysLeft !== undefined) s.minDaysLeft = Math.min(s.minDaysLeft ?? Infinity, c.daysLeft);
    for (const p of c.problems) {
      if (p.severity === 'info') continue;
      s.problems++;
      s.lines.push(t('served by {0} ({1}:{2}): {3}', c.target === 'endpoint' ? t('the endpoint') : c.target, c.address, c.port, p.message));
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

/** A finding's level as the report words it (`error: …`, `warning: …`). */
function level(severity: Severity): string {
  return severity === 'error' ? t('error') : severity === 'warning' ? t('warning') : t('info');
}

function details(e: CertEntry): string[] {
  return [...e.problems.map((p) => `          ${level(p.severity)}: ${p.message}`), ...e.notes.map((n) => `          ${t('note: {0}', n)}`)];
}

/** `2 of 5 host(s) not read: labs-k8s-m01 (connection refused), …` — apart from the findings. */
export function notReadLine(s: CertSummary, hosts: number): string {
  return t('{0} of {1} host(s) not read, so their certificates are not judged: {2}.', s.notRead.length, hosts, s.notRead.map((n) => `${n.host} (${n.cause})`).join(', '));
}

/** The table's head, each word over its column (the widths of `row`). */
function tableHead(): string {
  return `  ${t('level').padEnd(5)} ${t('days').padStart(5)}  ${t('not after').padEnd(10)}  ${t('certificate').padEnd(26)} ${t('subject')}`;
}

export function renderCertReport(r: CertReport): string {
  const out: string[] = [t('Certificates of {0} at {1} (warning under {2} days, error under {3})', r.cluster, r.at, r.thresholds.warningDays, r.thresholds.errorDays), ''];
  for (const h of r.hosts) {
    out.push(h.controlPlane ? t('{0} ({1}, control plane)', h.host, h.address) : `${h.host} (${h.address})`);
    if (h.error) {
      out.push(`  ${t('not read: {0}', h.error)}`, '');
      continue;
    }
    out.push(tableHead());
    for (const e of byDaysLeft(h.entries)) out.push(row(e), ...details(e));
    out.push('');
  }
  if (r.served.length) {
    out.push(t('Served by the API servers (TLS handshake)'));
    for (const c of r.served) {
      const sev = c.problems.some((p) => p.severity === 'error') ? 'error' : c.problems.some((p) => p.severity === 'warning') ? 'warning' : 'ok';
      const who = c.target === 'endpoint' ? t('endpoint') : c.target;
      const same = c.matchesHost ? t("= {0}'s apiserver.crt", c.matchesHost) : '';
      out.push(`  ${MARK[sev].padEnd(5)} ${String(c.daysLeft ?? '—').padStart(5)}  ${(c.facts?.notAfter ?? '—').slice(0, 10)}  ${`${who} ${c.address}:${c.port}`.padEnd(26)} ${same}`);
      for (const p of c.problems) out.push(`          ${level(p.severity)}: ${p.message}`);
    }
    out.push('');
  }
  if (r.csrs?.length || r.csrsError) {
    out.push(t('Pending certificate signing requests'));
    if (r.csrsError) out.push(`  ${t('not read: {0}', r.csrsError)}`);
    for (const c of r.csrs ?? []) out.push(`  ${(csrProblem(c) ? 'WARN' : 'ok').padEnd(5)} ${`${Math.round(c.ageSeconds / 60)}m`.padStart(5)}  ${c.name.padEnd(26)} ${t('{0} from {1}', c.signerName, c.username)}`);
    out.push('');
  }
  if (r.local.length) {
    out.push(t('Your kubeconfig'));
    for (const e of byDaysLeft(r.local)) out.push(row(e), ...details(e));
    out.push('');
  }
  const s = summarize(r);
  out.push(
    t('{0} certificate(s) read; soonest expiry in {1} day(s); {2} expired, {3} under {4} days, {5} under {6} days; {7} finding(s).', s.certificates, s.minDaysLeft ?? '—', s.expired, s.critical, r.thresholds.errorDays, s.expiring, r.thresholds.warningDays, s.problems),
  );
  if (s.notRead.length) out.push(notReadLine(s, r.hosts.length));
  if (s.servedNotRead.length) out.push(t('No TLS handshake with {0}: what they serve is not judged.', s.servedNotRead.map((n) => `${n.at} (${n.cause})`).join(', ')));
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
  const shownCauses = [...causes.slice(0, 2), ...(causes.length > 2 ? [t('{0} more', causes.length - 2)] : [])].join('; ');
  const parts = [
    s.degraded ? t('{0} finding(s) need a look', s.lines.length) : undefined,
    read.length
      ? Number.isFinite(soonest)
        ? t('{0} certificate(s) read on {1} host(s), the soonest expires in {2} days', onHosts, read.length, soonest)
        : t('{0} certificate(s) read on {1} host(s)', onHosts, read.length)
      : t('no certificate was read on the nodes'),
    s.notRead.length ? t('{0} of {1} host(s) not read ({2})', s.notRead.length, r.hosts.length, shownCauses) : undefined,
    s.servedNotRead.length ? t('no TLS handshake with {0} of {1} API address(es)', s.servedNotRead.length, r.served.length) : undefined,
  ];
  const clean = !s.degraded && !s.notRead.length && !s.servedNotRead.length;
  const said = parts.filter(Boolean).join('; ');
  return { level: clean ? 'info' : 'warning', text: clean ? t('Certificates of {0}: {1}; nothing needs a look.', r.cluster, said) : t('Certificates of {0}: {1}.', r.cluster, said) };
}
