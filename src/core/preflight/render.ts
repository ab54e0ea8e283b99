/**
 * The preflight as text: one row per host with a column per check (ok, warn, FAIL, - for not checked), then per
 * failing or warning check its cause and fix on lines of their own — what `ssh-check`/`preflight` prints and what
 * `up` prints when it refuses. The same model goes out as JSON with --json.
 */
import { t } from '../l10n';
import { checkTitle, CLUSTER_CHECKS, HOST_CHECKS, hostState, summaryLine, unknownKeys, type CheckResult, type PreflightReport } from './model';

const MARK: Record<CheckResult['state'], string> = { ok: 'ok', warn: 'warn', fail: 'FAIL', skipped: '-' };

function pad(cells: readonly string[], widths: readonly number[]): string {
  return cells.map((c, i) => (i === cells.length - 1 ? c : c.padEnd(widths[i]!))).join('  ').trimEnd();
}

export function renderPreflightTable(r: PreflightReport): string {
  const head = [t('host'), t('target'), ...HOST_CHECKS.map(checkTitle), t('ms')];
  const rows = r.hosts.map((h) => [h.host, h.via.length ? t('{0} via {1}', h.target, h.via.join(' → ')) : h.target, ...HOST_CHECKS.map((id) => MARK[h.checks.find((c) => c.id === id)?.state ?? 'skipped']), String(h.ms)]);
  const widths = head.map((_, i) => Math.max(head[i]!.length, ...rows.map((row) => row[i]!.length)));
  const secs = (r.ms / 1000).toFixed(1);
  const title = r.hosts.length === 1 ? t('Preflight for {0} ({1}): 1 host in {2} s', r.operation, r.cluster, secs) : t('Preflight for {0} ({1}): {2} hosts in {3} s', r.operation, r.cluster, r.hosts.length, secs);
  const lines = [title, pad(head, widths), ...rows.map((row) => pad(row, widths))];
  for (const c of r.clusterChecks) lines.push(t('cluster  {0}: {1}  {2}', checkTitle(c.id), MARK[c.state], c.detail));
  const notes: string[] = [];
  const explain = (who: string, c: CheckResult) => {
    if (c.state !== 'fail' && c.state !== 'warn') return;
    notes.push(c.state === 'fail' ? t('{0}: {1} FAILED — {2}', who, checkTitle(c.id), c.cause ?? c.detail) : t('{0}: {1} warning — {2}', who, checkTitle(c.id), c.cause ?? c.detail));
    if (c.fix) notes.push(t('    fix: {0}', c.fix));
  };
  for (const h of r.hosts) for (const c of h.checks) explain(h.host, c);
  for (const c of r.clusterChecks.filter((x) => CLUSTER_CHECKS.includes(x.id))) explain(t('cluster'), c);
  if (notes.length) lines.push('', ...notes);
  const keys = unknownKeys(r);
  if (keys.length) {
    lines.push('', t('Unknown host keys (compare each with the host\'s own, on its console, before accepting it):'));
    for (const k of keys) lines.push(t('  {0}  {1}  {2}  {3}  — check: {4}  — accept: --accept-new-host-key={3}', k.alias !== k.host ? t('{0} (hop {1})', k.host, k.alias) : k.host, k.address, k.keyType, k.fingerprint, k.check));
  }
  lines.push('', summaryLine(r));
  return `${lines.join('\n')}\n`;
}

/** Hosts by state, for a one-line count. */
export function countByState(r: PreflightReport): { ok: number; warn: number; fail: number } {
  const out = { ok: 0, warn: 0, fail: 0 };
  for (const h of r.hosts) out[hostState(h)]++;
  return out;
}
