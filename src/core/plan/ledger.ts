/**
 * The run ledger: which steps of a plan were done, and what the run saw of each host, so a failed or
 * cancelled run resumes where it stopped. It is a record and a hint, never a reason to skip: every step
 * asks the host again (its check), and a host that is not the one the run saw is started over. One JSON
 * file per run in the workspace (.kubeadm-workbench/runs/), written atomically after every step. Secret
 * captured values are never written; a resumed run that needs one re-runs the step that produced it.
 */
import { promises as fs } from 'node:fs';
import { dirname, join } from 'node:path';
import type { HostIdentity } from './hostIdentity';

export type StepState = 'pending' | 'running' | 'done' | 'skipped' | 'failed' | 'cancelled';

export interface LedgerEntry {
  state: StepState;
  startedAt?: string;
  finishedAt?: string;
  error?: string;
  /** Non-secret captured values. */
  values?: Record<string, string>;
}

export interface LedgerData {
  runId: string;
  command: string;
  fingerprint: string;
  createdAt: string;
  updatedAt: string;
  /** Set when the run got through its whole plan; null until then (absent in ledgers of older versions). */
  completedAt?: string | null;
  steps: Record<string, LedgerEntry>;
  /** What the run saw of each host (absent in ledgers of older versions). */
  hosts?: Record<string, HostIdentity>;
}

export class Ledger {
  /** Saves are chained: parallel hosts finish steps at the same moment. */
  private saving: Promise<void> = Promise.resolve();

  private constructor(
    readonly file: string,
    readonly data: LedgerData,
  ) {}

  static create(dir: string, command: string, fingerprint: string, now = new Date()): Ledger {
    const runId = `${now.toISOString().replace(/[:.]/g, '-')}-${command}`;
    return new Ledger(join(dir, `${runId}.json`), { runId, command, fingerprint, createdAt: now.toISOString(), updatedAt: now.toISOString(), completedAt: null, steps: {} });
  }

  static async load(file: string): Promise<Ledger> {
    const data = JSON.parse(await fs.readFile(file, 'utf8')) as LedgerData;
    if (!data.runId || !data.steps) throw new Error(`${file} is not a run ledger`);
    return new Ledger(file, data);
  }

  /** The newest run of `command` with the same plan fingerprint, when it did not finish (an older unfinished one was superseded). */
  static async findResumable(dir: string, command: string, fingerprint: string): Promise<Ledger | undefined> {
    let names: string[];
    try {
      names = await fs.readdir(dir);
    } catch {
      return undefined;
    }
    for (const name of names.filter((n) => n.endsWith(`-${command}.json`)).sort().reverse()) {
      const ledger = await Ledger.load(join(dir, name)).catch(() => undefined);
      if (ledger?.data.fingerprint === fingerprint) return ledger.isComplete() ? undefined : ledger;
    }
    return undefined;
  }

  state(stepId: string): StepState {
    return this.data.steps[stepId]?.state ?? 'pending';
  }

  /**
   * Whether the run got through its whole plan. The steps recorded so far are not enough to tell:
   * a run killed between two steps has only done steps in its ledger, and the rest never started.
   */
  isComplete(): boolean {
    if ('completedAt' in this.data) return Boolean(this.data.completedAt);
    // A ledger of an older version: all of its steps done is the best sign there is.
    const states = Object.values(this.data.steps).map((s) => s.state);
    return states.length > 0 && states.every((s) => s === 'done' || s === 'skipped');
  }

  /** Marks the run as having got through its whole plan. */
  async complete(now = new Date()): Promise<void> {
    this.data.completedAt = now.toISOString();
    this.data.updatedAt = this.data.completedAt;
    await this.save();
  }

  async mark(stepId: string, entry: Partial<LedgerEntry> & { state: StepState }): Promise<void> {
    this.data.steps[stepId] = { ...this.data.steps[stepId], ...entry };
    this.data.updatedAt = new Date().toISOString();
    await this.save();
  }

  host(name: string): HostIdentity | undefined {
    return this.data.hosts?.[name];
  }

  async recordHosts(seen: Record<string, HostIdentity>): Promise<void> {
    this.data.hosts = { ...this.data.hosts, ...seen };
    this.data.updatedAt = new Date().toISOString();
    await this.save();
  }

  /** Drops what the run recorded of these steps (a rebuilt host's): they count as never run, their values gone. */
  async forget(stepIds: Iterable<string>): Promise<void> {
    for (const id of stepIds) delete this.data.steps[id];
    this.data.updatedAt = new Date().toISOString();
    await this.save();
  }

  /** Write to a temp file and rename, so a crash never leaves half a ledger. */
  save(): Promise<void> {
    this.saving = this.saving.catch(() => {}).then(() => this.write());
    return this.saving;
  }

  private async write(): Promise<void> {
    await fs.mkdir(dirname(this.file), { recursive: true });
    const tmp = `${this.file}.${process.pid}.tmp`;
    await fs.writeFile(tmp, JSON.stringify(this.data, null, 2) + '\n', { mode: 0o600 });
    await fs.rename(tmp, this.file);
  }
}
