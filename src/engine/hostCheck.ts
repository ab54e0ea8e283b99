/**
 * Before a plan runs: each host is asked who it is (machine-id, boot id, SSH host keys, install marker)
 * and the answer is compared with what the run recorded when it last saw the host. A host that is not
 * the one the run worked on (re-imaged, restored from a snapshot) is said so, and what the run recorded
 * of it is dropped: its steps start over. The answers are recorded for the next resume.
 */
import { compareIdentity, IDENTITY_PROBE, parseIdentity, type HostChange, type HostIdentity } from '../core/plan/hostIdentity';
import type { Ledger } from '../core/plan/ledger';
import type { StepExecutor } from '../core/plan/runner';
import type { Plan, Step } from '../core/plan/types';

const PROBE_TIMEOUT_MS = 30_000;

async function probe(executor: StepExecutor, host: string, signal?: AbortSignal): Promise<HostIdentity | undefined> {
  let stdout = '';
  try {
    const r = await executor.exec(host, IDENTITY_PROBE, { onStdout: (t) => (stdout += t), timeoutMs: PROBE_TIMEOUT_MS, ...(signal ? { signal } : {}) });
    return r.code === 0 ? parseIdentity(stdout) : undefined;
  } catch {
    // Unreachable or refused (a changed host key): the host's first step fails with the precise reason.
    return undefined;
  }
}

function isDone(ledger: Ledger, id: string): boolean {
  const s = ledger.state(id);
  return s === 'done' || s === 'skipped';
}

/** The steps a rebuilt host's record covers: those on it and those about it (its gates on another host). */
function stepsOf(plan: Plan, host: string): Step[] {
  return plan.phases.flatMap((p) => p.steps).filter((s) => s.host === host || s.about === host);
}

export async function checkHosts(plan: Plan, ledger: Ledger, executor: StepExecutor, signal?: AbortSignal): Promise<HostChange[]> {
  const hosts = [...new Set(plan.phases.flatMap((p) => p.steps.map((s) => s.host)))];
  const seen = await Promise.all(hosts.map(async (h) => [h, await probe(executor, h, signal)] as const));
  const changes: HostChange[] = [];
  const record: Record<string, HostIdentity> = {};
  const forget: string[] = [];
  for (const [host, now] of seen) {
    if (!now) continue;
    const markerWritten = stepsOf(plan, host).some((s) => s.host === host && s.id.endsWith('/install-marker') && isDone(ledger, s.id));
    const change = compareIdentity(host, ledger.host(host), now, markerWritten);
    if (change) changes.push(change);
    if (change?.rebuilt) forget.push(...stepsOf(plan, host).map((s) => s.id).filter((id) => id in ledger.data.steps));
    record[host] = now;
  }
  if (forget.length) await ledger.forget(forget);
  if (Object.keys(record).length) await ledger.recordHosts(record);
  return changes;
}
