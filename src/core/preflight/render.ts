/**
 * The preflight as text: one row per host with a column per check (ok, warn, FAIL, - for not checked), then per
 * failing or warning check its cause and fix on lines of their own — what `ssh-check`/`preflight` prints and what
 * `up` prints when it refuses. The same model goes out as JSON with --json.
 */
import { CHECK_TITLES, CLUSTER_CHECKS, HOST_CHECKS, hostState, summaryLine, unknownKeys, type CheckResult, type PreflightReport } from './model';

const MARK: Record<CheckResult['state'], string> = { ok: 'ok', warn: 'warn', fail: 'FAIL', skipped: '-' };

function pad(cells: readonly string[], widths: readonly number[]): string {
  return cells.map((c, i) => (i === cells.length - 1 ? c : c.padEnd(widths[i]!))).join('  ').trimEnd();
}

export function renderPreflightTable(r: PreflightReport): string {
  const head = ['host', 'target', ...HOST_CHECKS.map((id) => CHECK_TITLES[id]), 'ms'];
  const rows = r.hosts.map((h) => [h.host, `${h.target}${h.via.length ? ` via ${h.via.join(' → ')}` : ''}`, ...HOST_CHECKS.map((id) => MARK[h.checks.find((c) => c.id === id)?.state ?? 'skipped']), String(h.ms)]);
  const widths = head.map((_, i) => Math.max(head[i]!.length, ...rows.map((row) => row[i]!.length)));
  const lines = [`Preflight for ${r.operation} (${r.cluster}): ${r.hosts.length} host${r.hosts.length === 1 ? '' : 's'} in ${(r.ms / 1000).toFixed(1)} s`, pad(head, widths), ...rows.map((row) => pad(row, widths))];
  for (const c of r.clusterChecks) lines.push(`cluster  ${CHECK_TITLES[c.id]}: ${MARK[c.state]}  ${c.detail}`);
  const notes: string[] = [];
  const explain = (who: string, c: CheckResult) => {
    if (c.state !== 'fail' && c.state !== 'warn') return;
    notes.push(`${who}: ${CHECK_TITLES[c.id]} ${c.state === 'fail' ? 'FAILED' : 'warning'} — ${c.cause ?? c.detail}`);
    if (c.fix) notes.push(`    fix: ${c.fix}`);
  };
  for (const h of r.hosts) for (const c of h.checks) explain(h.host, c);
  for (const c of r.clusterChecks.filter((x) => CLUSTER_CHECKS.includes(x.id))) explain('cluster', c);
  if (notes.length) lines.push('', ...notes);
  const keys = unknownKeys(r);
  if (keys.length) {
    lines.push('', 'Unknown host keys (compare each with the host\'s own, on its console, before accepting it):');
    for (const k of keys) lines.push(`  ${k.host}${k.alias !== k.host ? ` (hop ${k.alias})` : ''}  ${k.address}  ${k.keyType}  ${k.fingerprint}  — check: ${k.check}  — accept: --accept-new-host-key=${k.fingerprint}`);
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
