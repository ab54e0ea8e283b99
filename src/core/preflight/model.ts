/**
 * The preflight: what every operation that touches hosts or the cluster checks before its first question, as one
 * model the editor's table and the command line's table and JSON show alike. Per host in scope, in the order a
 * connection needs them: the SSH settings resolve, the name resolves, the port answers with an SSH greeting, the
 * keys we would offer exist and can be used, the host key is known, the login is accepted, and sudo works when the
 * login user is not root; for cluster operations, the kubeconfig and the API through the VIP. A check that fails
 * says why in plain words and the exact fix; the checks after it that depend on it are `skipped`, not failed twice.
 *
 * No I/O here: engine/preflight.ts runs the checks (the adapters do the talking) and fills this model.
 */
import { t } from '../l10n';
import type { SshFailure } from '../ssh/failures';

export type CheckId = 'ssh-config' | 'resolve' | 'reach' | 'keys' | 'host-key' | 'login' | 'sudo' | 'kubeconfig' | 'api';

/** The columns of the table, in the order a connection needs them. */
export const HOST_CHECKS: readonly CheckId[] = ['ssh-config', 'resolve', 'reach', 'keys', 'host-key', 'login', 'sudo'];
export const CLUSTER_CHECKS: readonly CheckId[] = ['kubeconfig', 'api'];

/** Each check's name, a column of the table, in the display language. */
const CHECK_TITLE: Record<CheckId, () => string> = {
  'ssh-config': () => t('SSH settings'),
  resolve: () => t('name'),
  reach: () => t('port'),
  keys: () => t('keys'),
  'host-key': () => t('host key'),
  login: () => t('login'),
  sudo: () => t('sudo'),
  kubeconfig: () => t('kubeconfig'),
  api: () => t('API via VIP'),
};

export function checkTitle(id: CheckId): string {
  return CHECK_TITLE[id]();
}

/** Every check's name in the display language (the webview gets them with the report). */
export function checkTitles(): Record<CheckId, string> {
  return Object.fromEntries(Object.entries(CHECK_TITLE).map(([id, title]) => [id, title()])) as Record<CheckId, string>;
}

/** `warn`: it works, with a catch the user should know (a password sudo will ask; a key the agent must hold). */
export type CheckState = 'ok' | 'warn' | 'fail' | 'skipped';

export interface CheckResult {
  id: CheckId;
  state: CheckState;
  /** What was found, short: "127.0.0.1:22 answered (OpenSSH_9.2p1)", "not checked: the port did not answer". */
  detail: string;
  /** For `fail` and `warn`: why, in plain words. */
  cause?: string;
  /** For `fail` and `warn`: the exact next step (a command, a setting, a file). */
  fix?: string;
  /** The shell command of the fix alone, to copy. */
  command?: string;
  /** The taxonomy's kind (core/ssh/failures.ts) or the cluster check's own. */
  kind?: string;
}

/** A host key no known_hosts file holds, as the review shows it. */
export interface UnknownHostKey {
  /** The inventory host it belongs to. */
  host: string;
  /** The hop that presented it (the host itself, or a jump host of its chain). */
  alias: string;
  /** Where known_hosts looks it up: `10.3.60.51` or `[10.3.60.51]:2222`. */
  address: string;
  keyType: string;
  fingerprint: string;
  /** How to read the same fingerprint on the host's console. */
  check: string;
  note?: string;
}

export interface HostPreflight {
  host: string;
  /** The inventory address. */
  address: string;
  /** `user@hostname:port` as connected to (the SSH config's HostName and Port win over the inventory). */
  target: string;
  /** Jump hosts, first to last. */
  via: string[];
  checks: CheckResult[];
  ms: number;
  /** The key to review when the host key is unknown. */
  unknownKey?: UnknownHostKey;
}

export interface PreflightReport {
  cluster: string;
  /** The operation it was run for ("Bring Up", "Run Preflight Checks"). */
  operation: string;
  /**
   * Run for itself (Run Preflight Checks), not before an operation: the panel's titles are the preflight's own, not
   * "Preflight: Run Preflight Checks".
   */
  standalone?: true;
  at: string;
  hosts: HostPreflight[];
  /** Kubeconfig and API, for operations on the cluster; empty otherwise. */
  clusterChecks: CheckResult[];
  ms: number;
}

const RANK: Record<CheckState, number> = { ok: 0, skipped: 0, warn: 1, fail: 2 };

export function worst(checks: readonly CheckResult[]): 'ok' | 'warn' | 'fail' {
  const r = Math.max(0, ...checks.map((c) => RANK[c.state]));
  return r === 2 ? 'fail' : r === 1 ? 'warn' : 'ok';
}

export function hostState(h: HostPreflight): 'ok' | 'warn' | 'fail' {
  return worst(h.checks);
}

/** The first check that failed: the one to fix first (the others after it were skipped). */
export function firstFailure(checks: readonly CheckResult[]): CheckResult | undefined {
  return checks.find((c) => c.state === 'fail');
}

/** The hosts a preflight failed, each with its first failure's cause: what a read-only operation names "not read". */
export function notReadCauses(r: PreflightReport | undefined): Map<string, string> {
  return new Map((r?.hosts ?? []).filter((h) => hostState(h) === 'fail').map((h) => [h.host, firstFailure(h.checks)?.cause ?? t('the preflight failed')] as const));
}

/**
 * What an operation can do without: hosts it may find dead (the node a removal takes out), and failures it handles
 * with its own question (a changed host key the node operations show and accept only when typed back).
 */
export interface Tolerance {
  hosts?: readonly string[];
  kinds?: readonly string[];
}

/** Hosts with a failure the operation cannot do without. */
export function failingHosts(r: PreflightReport, tolerance: Tolerance = {}): HostPreflight[] {
  return r.hosts.filter((h) => !tolerance.hosts?.includes(h.host) && h.checks.some((c) => c.state === 'fail' && !(c.kind && tolerance.kinds?.includes(c.kind))));
}

export function passes(r: PreflightReport, tolerance: Tolerance = {}): boolean {
  return failingHosts(r, tolerance).length === 0 && worst(r.clusterChecks) !== 'fail';
}

/** The host keys to review together. */
export function unknownKeys(r: PreflightReport): UnknownHostKey[] {
  return r.hosts.flatMap((h) => (h.unknownKey ? [h.unknownKey] : []));
}

/** A check result from the taxonomy's answer. */
export function failedCheck(id: CheckId, f: SshFailure, state: 'fail' | 'warn' = 'fail'): CheckResult {
  return { id, state, detail: f.hop ? t('at {0}', f.hop) : checkTitle(id), cause: f.cause, fix: f.fix, kind: f.kind, ...(f.command ? { command: f.command } : {}) };
}

export function okCheck(id: CheckId, detail: string): CheckResult {
  return { id, state: 'ok', detail };
}

/** The checks after a failed one, that needed it: not run, and said so. */
export function skipped(ids: readonly CheckId[], because: CheckId): CheckResult[] {
  return ids.map((id) => ({ id, state: 'skipped' as const, detail: t('not checked: {0} failed', checkTitle(because)) }));
}

/** One line for a message: "3 of 6 hosts fail the preflight (labs-k8s-m01: nothing listens on …; …)". */
export function summaryLine(r: PreflightReport, tolerance: Tolerance = {}): string {
  const failing = failingHosts(r, tolerance);
  const clusterFail = firstFailure(r.clusterChecks);
  const parts: string[] = [];
  if (failing.length) parts.push(r.hosts.length === 1 ? t('{0} of 1 host fails the preflight', failing.length) : failing.length === 1 ? t('1 of {0} hosts fails the preflight', r.hosts.length) : t('{0} of {1} hosts fail the preflight', failing.length, r.hosts.length));
  if (clusterFail) parts.push(t('the cluster\'s {0} check fails', checkTitle(clusterFail.id)));
  if (!parts.length) {
    const warned = r.hosts.filter((h) => hostState(h) === 'warn').length;
    const pass = r.hosts.length === 1 ? t('the host passes the preflight') : t('all {0} hosts pass the preflight', r.hosts.length);
    const withWarnings = warned ? t('{0} ({1} with a warning)', pass, warned) : pass;
    return r.clusterChecks.length ? t('{0}, and the cluster answers', withWarnings) : withWarnings;
  }
  return t('{0} — {1}', parts.length === 2 ? t('{0} and {1}', parts[0], parts[1]) : parts[0], firstCauseLine(r, tolerance));
}

/** The summary's end, "first: labs-k8s-m01: nothing listens on …": the cause to fix first. */
export function firstCauseLine(r: PreflightReport, tolerance: Tolerance = {}): string {
  const failing = failingHosts(r, tolerance)[0];
  return t('first: {0}', failing ? `${failing.host}: ${firstFailure(failing.checks)?.cause ?? ''}` : (firstFailure(r.clusterChecks)?.cause ?? ''));
}

/** Replaces the rows of re-checked hosts (after host keys were accepted, or a cause was fixed). */
export function mergeHosts(r: PreflightReport, again: readonly HostPreflight[], ms: number): PreflightReport {
  const by = new Map(again.map((h) => [h.host, h]));
  return { ...r, hosts: r.hosts.map((h) => by.get(h.host) ?? h), ms: r.ms + ms };
}
