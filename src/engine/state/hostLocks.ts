/**
 * Host locks on disk (`.kubeadm-workbench/locks/<host>.lock`). A lock is a file created with O_EXCL holding the
 * owner's pid and run id, signed with this user's key; a lock whose pid is dead on this machine is stale and taken
 * over. A killed run's pid can be reused by an unrelated process: where /proc tells a process's start time, a lock
 * also records it, and a live pid that started at another time is not the owner. A lock file that is not one of ours —
 * a link, a FIFO, unsigned, of another shape — is no owner either and is replaced (removing a link removes the link);
 * one of another user is refused (that user's run may be changing the host).
 */
import { join } from 'node:path';
import { HostLockError, parseLockOwner, type HostLockSet, type LockOwner } from '../../core/plan/locks';
import { signatureProblem, signRecord } from '../../core/state/signing';
import { alreadyThere, createNewFile, ensureRealFolder, FileRefused, readRegularSync, readRegularText, removeFile } from '../../adapters/fs/safeFile';
import { stateKey } from '../../adapters/fs/stateKey';
import { t } from '../../core/l10n';

const KIND = 'host lock v1';

export class HostLocks implements HostLockSet {
  private readonly held = new Set<string>();
  /** Acquisitions under way: phases that run side by side may ask for the same host at once. */
  private readonly pending = new Map<string, Promise<void>>();
  /** The locks folder, checked once per run (a real folder of this user). */
  private folder: Promise<void> | undefined;

  constructor(
    private readonly dir: string,
    private readonly runId: string,
  ) {}

  async acquire(host: string): Promise<void> {
    if (this.held.has(host)) return;
    const under = this.pending.get(host);
    if (under) return under;
    const p = this.take(host).finally(() => this.pending.delete(host));
    this.pending.set(host, p);
    return p;
  }

  private async take(host: string): Promise<void> {
    this.folder ??= ensureRealFolder(this.dir, { mode: 0o700, mine: true });
    await this.folder;
    const file = this.file(host);
    const pidStart = processStart(process.pid);
    const owner: LockOwner = { pid: process.pid, runId: this.runId, since: new Date().toISOString(), ...(pidStart ? { pidStart } : {}) };
    const text = JSON.stringify({ ...owner, signature: signRecord(await stateKey(), KIND, owner) });
    for (let attempt = 0; attempt < 2; attempt++) {
      try {
        await createNewFile(file, text, 0o600);
        this.held.add(host);
        return;
      } catch (e) {
        if (!alreadyThere(e)) throw e;
        const current = await readOwner(file);
        if (current && isAlive(current)) throw new HostLockError(host, current);
        await removeFile(file); // stale (its process is gone) or not a lock of ours
      }
    }
    throw new Error(t('could not lock {0}', host));
  }

  async release(host: string): Promise<void> {
    if (!this.held.delete(host)) return;
    await removeFile(this.file(host));
  }

  async releaseAll(): Promise<void> {
    await Promise.all([...this.held].map((h) => this.release(h)));
  }

  private file(host: string): string {
    return join(this.dir, `${encodeURIComponent(host)}.lock`);
  }
}

/** The owner a lock file names, when it is one of ours; another user's lock is refused. */
async function readOwner(file: string): Promise<LockOwner | undefined> {
  let text: string;
  try {
    text = await readRegularText(file, { maxBytes: 4096, noFollow: true, mine: true });
  } catch (e) {
    if (e instanceof FileRefused && e.kind === 'other-user') throw new Error(t('{0}: another user\'s run may be changing this host; wait for it, or remove the lock when no run is left', e.message));
    return undefined;
  }
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    return undefined;
  }
  const owner = parseLockOwner(value);
  if (!owner || signatureProblem(await stateKey(), KIND, owner, (value as { signature?: unknown }).signature)) return undefined;
  return owner;
}

function isAlive(owner: LockOwner): boolean {
  try {
    process.kill(owner.pid, 0);
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code !== 'EPERM') return false;
  }
  const start = owner.pidStart && processStart(owner.pid);
  return !start || start === owner.pidStart;
}

/** Start time of a process from /proc/PID/stat (field 22, after the parenthesised name), or undefined. */
export function processStart(pid: number): string | undefined {
  try {
    const stat = readRegularSync(`/proc/${pid}/stat`, { maxBytes: 4096 }).toString('utf8');
    return stat.slice(stat.lastIndexOf(')') + 2).split(' ')[19];
  } catch {
    return undefined;
  }
}

/**
 * The hosts of `hosts` that a live run holds now (its lock file's process is alive): what an operation that must not
 * run beside another (an upgrade, a renewal, a restore) asks before it starts, instead of failing at its first step.
 */
export async function heldLocks(dir: string, hosts: readonly string[]): Promise<{ host: string; owner: LockOwner }[]> {
  const out: { host: string; owner: LockOwner }[] = [];
  for (const host of hosts) {
    const owner = await readOwner(join(dir, `${encodeURIComponent(host)}.lock`));
    if (owner && isAlive(owner)) out.push({ host, owner });
  }
  return out;
}
