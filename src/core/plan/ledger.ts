/**
 * The run ledger: which steps of a plan were done, and what the run saw of each host, so a failed or
 * cancelled run resumes where it stopped. It is a record and a hint, never a reason to skip: every step
 * asks the host again (its check), and a host that is not the one the run saw is started over. One JSON
 * file per run in the workspace (.kubeadm-workbench/runs/), written atomically after every step. Secret
 * captured values are never written; a resumed run that needs one re-runs the step that produced it.
 *
 * A ledger read back is untrusted input like the inventory — it may come with a repository — so its shape is
 * checked field by field (parseLedgerData) and its signature by this user's key (src/engine/state/runLedger.ts,
 * which also reads and writes the files; this module does no I/O).
 */
import { t } from '../l10n';
import type { HostIdentity } from './hostIdentity';

export type StepState = 'pending' | 'running' | 'done' | 'skipped' | 'failed' | 'cancelled';
const STEP_STATES: readonly StepState[] = ['pending', 'running', 'done', 'skipped', 'failed', 'cancelled'];

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

/** Writes the ledger's data to its file (the engine's signed, atomic write). */
export type LedgerWriter = (file: string, data: LedgerData) => Promise<void>;

/** `2026-01-02T03-04-05-678Z-up`: the run's start and its command. */
export function newRunId(command: string, now = new Date()): string {
  return `${now.toISOString().replace(/[:.]/g, '-')}-${command}`;
}

export class Ledger {
  /** Saves are chained: parallel hosts finish steps at the same moment. */
  private saving: Promise<void> = Promise.resolve();

  constructor(
    readonly file: string,
    readonly data: LedgerData,
    private readonly writer: LedgerWriter,
  ) {}

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

  /** Written whole each time (temp file and rename), so a crash never leaves half a ledger. */
  save(): Promise<void> {
    this.saving = this.saving.catch(() => {}).then(() => this.writer(this.file, this.data));
    return this.saving;
  }
}

const MAX_TEXT = 64 * 1024;
const isRecord = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);
const isTime = (v: unknown): v is string => typeof v === 'string' && v.length <= 40 && Number.isFinite(Date.parse(v));
const isText = (v: unknown, max = MAX_TEXT): v is string => typeof v === 'string' && v.length <= max;

function entryProblem(id: string, e: unknown): string | undefined {
  if (!isRecord(e)) return t('step {0} is not an object', JSON.stringify(id.slice(0, 80)));
  for (const k of Object.keys(e)) if (!['state', 'startedAt', 'finishedAt', 'error', 'values'].includes(k)) return t('step {0} has an unknown field {1}', JSON.stringify(id.slice(0, 80)), JSON.stringify(k.slice(0, 40)));
  if (!STEP_STATES.includes(e.state as StepState)) return t('step {0} has no known state', JSON.stringify(id.slice(0, 80)));
  for (const k of ['startedAt', 'finishedAt'] as const) if (e[k] !== undefined && !isTime(e[k])) return t('step {0}: {1} is not a time', JSON.stringify(id.slice(0, 80)), k);
  if (e.error !== undefined && !isText(e.error)) return t('step {0}: error is not text of at most 64 KiB', JSON.stringify(id.slice(0, 80)));
  if (e.values !== undefined && (!isRecord(e.values) || Object.entries(e.values).some(([k, v]) => !isText(k, 200) || !isText(v)))) return t('step {0}: values are not short texts', JSON.stringify(id.slice(0, 80)));
  return undefined;
}

function hostProblem(name: string, h: unknown): string | undefined {
  if (!isRecord(h)) return t('host {0} is not an object', JSON.stringify(name.slice(0, 80)));
  for (const [k, v] of Object.entries(h)) {
    if (k === 'hostKeys') {
      if (!Array.isArray(v) || v.length > 64 || v.some((x) => !isText(x, 200))) return t('host {0}: hostKeys is not a list of keys', JSON.stringify(name.slice(0, 80)));
    } else if (k === 'seenAt') {
      if (!isTime(v)) return t('host {0}: seenAt is not a time', JSON.stringify(name.slice(0, 80)));
    } else if (['machineId', 'bootId', 'installId'].includes(k)) {
      if (!isText(v, 200)) return t('host {0}: {1} is not a short text', JSON.stringify(name.slice(0, 80)), k);
    } else return t('host {0} has an unknown field {1}', JSON.stringify(name.slice(0, 80)), JSON.stringify(k.slice(0, 40)));
  }
  return undefined;
}

/**
 * The ledger's data when `value` (parsed from the file `fileName`) has exactly a ledger's shape — known fields of the
 * right types, a run id that is the file's name — or the first problem, in words.
 */
export function parseLedgerData(value: unknown, fileName: string): { data: LedgerData } | { problem: string } {
  if (!isRecord(value)) return { problem: t('it is not a JSON object') };
  const known = ['runId', 'command', 'fingerprint', 'createdAt', 'updatedAt', 'completedAt', 'steps', 'hosts', 'signature'];
  const unknown = Object.keys(value).find((k) => !known.includes(k));
  if (unknown !== undefined) return { problem: t('it has an unknown field {0}', JSON.stringify(unknown.slice(0, 40))) };
  const { runId, command, fingerprint, createdAt, updatedAt, completedAt, steps, hosts } = value;
  if (typeof command !== 'string' || !/^[a-z][a-z0-9-]{0,39}$/.test(command)) return { problem: t('its command is not a command name') };
  if (typeof runId !== 'string' || !/^[0-9]{4}-[0-9]{2}-[0-9]{2}T[0-9-]{12}Z-[a-z][a-z0-9-]{0,39}$/.test(runId) || !runId.endsWith(`-${command}`)) return { problem: t('its runId is not a run id of its command') };
  if (`${runId}.json` !== fileName) return { problem: t('its runId {0} is not its file\'s name', runId) };
  // The plans' own fingerprints: hashes, and the node operations' and the upgrade's `upgrade:<cluster>:v1.34.12:1` or
  // `replace:<host>:<host>:<helper>:<member id>` (host names are DNS names: dots; two of them fit in 1,024 characters).
  if (typeof fingerprint !== 'string' || !/^[A-Za-z0-9_.:-]{1,1024}$/.test(fingerprint)) return { problem: t('its fingerprint is not a plan fingerprint') };
  if (!isTime(createdAt) || !isTime(updatedAt)) return { problem: t('createdAt or updatedAt is not a time') };
  if (completedAt !== undefined && completedAt !== null && !isTime(completedAt)) return { problem: t('completedAt is neither null nor a time') };
  if (!isRecord(steps)) return { problem: t('it has no steps object') };
  const ids = Object.keys(steps);
  if (ids.length > 100_000) return { problem: t('it has {0} steps', ids.length) };
  for (const id of ids) {
    if (id.length > 512) return { problem: t('a step id is longer than 512 characters') };
    const p = entryProblem(id, steps[id]);
    if (p) return { problem: p };
  }
  if (hosts !== undefined) {
    if (!isRecord(hosts) || Object.keys(hosts).length > 100_000) return { problem: t('hosts is not an object of hosts') };
    for (const [name, h] of Object.entries(hosts)) {
      const p = name.length > 253 ? t('a host name is longer than 253 characters') : hostProblem(name, h);
      if (p) return { problem: p };
    }
  }
  const data: LedgerData = { runId, command, fingerprint, createdAt, updatedAt, steps: steps as Record<string, LedgerEntry> };
  if (completedAt !== undefined) data.completedAt = completedAt as string | null;
  if (hosts !== undefined) data.hosts = hosts as Record<string, HostIdentity>;
  return { data };
}
