/**
 * Per-host locks so two runs never touch one host at once (two windows, the CLI beside the
 * editor). A lock is a file created with O_EXCL holding the owner's pid and run id; a lock whose
 * pid is dead on this machine is stale and taken over. A killed run's pid can be reused by an
 * unrelated process: where /proc tells a process's start time, a lock also records it, and a live
 * pid that started at another time is not the owner.
 */
import { readFileSync, promises as fs } from 'node:fs';
import { join } from 'node:path';

export interface LockOwner {
  pid: number;
  runId: string;
  since: string;
  /** The owner's start time in clock ticks since boot (/proc/PID/stat field 22), where there is /proc. */
  pidStart?: string;
}

export class HostLockError extends Error {
  constructor(
    readonly host: string,
    readonly owner: LockOwner,
  ) {
    super(`${host} is being changed by another run (${owner.runId}, pid ${owner.pid}, since ${owner.since}); wait for it or cancel it.`);
  }
}

export class HostLocks {
  private readonly held = new Set<string>();
  /** Acquisitions under way: phases that run side by side may ask for the same host at once. */
  private readonly pending = new Map<string, Promise<void>>();

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
    await fs.mkdir(this.dir, { recursive: true });
    const file = this.file(host);
    const pidStart = processStart(process.pid);
    const owner: LockOwner = { pid: process.pid, runId: this.runId, since: new Date().toISOString(), ...(pidStart ? { pidStart } : {}) };
    for (let attempt = 0; attempt < 2; attempt++) {
      try {
        await fs.writeFile(file, JSON.stringify(owner), { flag: 'wx', mode: 0o600 });
        this.held.add(host);
        return;
      } catch (e) {
        if ((e as NodeJS.ErrnoException).code !== 'EEXIST') throw e;
        const current = await readOwner(file);
        if (current && isAlive(current)) throw new HostLockError(host, current);
        await fs.rm(file, { force: true }); // stale: its process is gone
      }
    }
    throw new Error(`could not lock ${host}`);
  }

  async release(host: string): Promise<void> {
    if (!this.held.delete(host)) return;
    await fs.rm(this.file(host), { force: true });
  }

  async releaseAll(): Promise<void> {
    await Promise.all([...this.held].map((h) => this.release(h)));
  }

  private file(host: string): string {
    return join(this.dir, `${encodeURIComponent(host)}.lock`);
  }
}

async function readOwner(file: string): Promise<LockOwner | undefined> {
  try {
    return JSON.parse(await fs.readFile(file, 'utf8')) as LockOwner;
  } catch {
    return undefined;
  }
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
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
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
