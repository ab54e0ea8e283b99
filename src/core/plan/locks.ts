/**
 * Per-host locks so two runs never touch one host at once (two windows, the CLI beside the editor): what the
 * runner needs of them, and what a lock says of its owner. The lock files themselves (created with O_EXCL, signed,
 * read back as untrusted input) are src/engine/state/hostLocks.ts.
 */
import { t } from '../l10n';

export interface LockOwner {
  pid: number;
  runId: string;
  since: string;
  /** The owner's start time in clock ticks since boot (/proc/PID/stat field 22), where there is /proc. */
  pidStart?: string;
}

export class HostLockError extends Error {
  /** What the advice knows this failure by (core/plan/runner.ts), whatever the language of its words. */
  readonly knownFailure = 'host-locked';

  constructor(
    readonly host: string,
    readonly owner: LockOwner,
  ) {
    super(t('{0} is being changed by another run ({1}, pid {2}, since {3}); wait for it or cancel it.', host, owner.runId, owner.pid, owner.since));
  }
}

/** The runner's view of the locks of one run. */
export interface HostLockSet {
  acquire(host: string): Promise<void>;
  release(host: string): Promise<void>;
  releaseAll(): Promise<void>;
}

/** The owner's fields when `value` has exactly a lock's shape, else undefined. */
export function parseLockOwner(value: unknown): LockOwner | undefined {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return undefined;
  const v = value as Record<string, unknown>;
  if (Object.keys(v).some((k) => !['pid', 'runId', 'since', 'pidStart', 'signature'].includes(k))) return undefined;
  if (!Number.isSafeInteger(v.pid) || (v.pid as number) <= 0) return undefined;
  if (typeof v.runId !== 'string' || v.runId.length > 200 || typeof v.since !== 'string' || v.since.length > 40) return undefined;
  if (v.pidStart !== undefined && (typeof v.pidStart !== 'string' || !/^\d{1,20}$/.test(v.pidStart))) return undefined;
  return { pid: v.pid as number, runId: v.runId, since: v.since, ...(v.pidStart !== undefined ? { pidStart: v.pidStart as string } : {}) };
}
