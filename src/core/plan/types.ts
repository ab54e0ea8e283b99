/**
 * A plan is what a command will do, shown before it does it: phases → steps, each step one host
 * and the exact command (secrets shown as ***). The runner executes the same objects, so what the
 * user read is what runs.
 */
import { t } from '../l10n';
import type { RemoteCommand } from '../ssh/command';

/**
 * A phase's id (`prepare`, `etcd-defrag`…): each plan names its own phases, so a new operation declares its phase ids
 * in its plan file and edits no list here (issue 39). Only ids and step ids of the same plan are compared.
 */
export type PhaseId = string;

/** Values a step learns at run time (a join token, the CA hash) for later steps. Secret ones are redacted. */
export interface RunValues {
  get(key: string): string | undefined;
}

export interface UploadFile {
  path: string;
  content: string;
  mode: number;
  /** Content that must never be shown in a plan or log (certificate keys, kubeconfigs). */
  secret?: boolean;
}

/**
 * A large local file sent to the host as a stream (never held whole in memory: an etcd snapshot of gigabytes),
 * written to a temp file, checked there by its size and SHA-256, then renamed into place.
 */
export interface StreamedFile {
  path: string;
  mode: number;
  size: number;
  sha256: string;
  /** What the plan says it is, e.g. "snapshot.db of the backup". */
  label: string;
  /** The bytes, opened afresh for each host. */
  open(): Promise<NodeJS.ReadableStream>;
  /** Told the bytes sent to the host so far (a progress bar). */
  onProgress?(host: string, sent: number): void;
}

export interface Step {
  /** Stable across plans of the same inventory: `phase/host/key`. The ledger is keyed by it. */
  id: string;
  phase: PhaseId;
  host: string;
  title: string;
  /** The host the step is about when it runs on another one (a join's gates run on the first control-plane node). */
  about?: string;
  /** Credentials or facts that the steps about other hosts need (a join token): kept when any of those is kept. */
  shared?: boolean;
  /** Why the step exists, in one sentence (from the seed). */
  why?: string;
  /**
   * Exits 0 when the step's effect is already there on the host: the step is skipped (idempotence). This,
   * not the run's ledger, is what lets a resumed run skip a step. A step without one carries `rerun`.
   */
  check?: RemoteCommand;
  /**
   * Why the step runs every time instead of having a check (it is itself a check, or it produces a value
   * the ledger never keeps). Every step has a check or this; a unit test walks every plan for it.
   */
  rerun?: string;
  /** Files written (atomically, with mode) before `run`. */
  files?: UploadFile[];
  /** A large file streamed to the host after `files`, before `run`. */
  stream?: StreamedFile;
  /** The command; a function when it needs values learned by earlier steps. */
  run?: RemoteCommand | ((values: RunValues) => RemoteCommand);
  /** How the plan shows a run-time command before its values are known. */
  planDisplay?: string;
  /** Exits 0 when the step worked; retried until `verifyTimeoutMs`. */
  verify?: RemoteCommand;
  verifyTimeoutMs?: number;
  /** Pulls values out of the run's stdout for later steps: key → value. */
  capture?: (stdout: string) => Record<string, string>;
  /** Keys of `capture` that are secrets (redacted everywhere, never written to the ledger). */
  secretCaptures?: string[];
  timeoutMs?: number;
  /** Skips the step when an earlier step of this run already produced its effect (init's certificate key). */
  skipWhen?: (values: RunValues) => boolean;
  /** In-process work after `run` (merge a kubeconfig, ask the API); `planDisplay` says what it does. */
  action?: (values: RunValues, signal?: AbortSignal) => Promise<void>;
}

export interface PhasePlan {
  phase: PhaseId;
  title: string;
  /** parallel: hosts at once (capped), each host's steps in order; serial: every step in the listed order. */
  order: 'parallel' | 'serial';
  steps: Step[];
  /** Runs at the same time as the phase before it when the two share no host (balancers beside node preparation). */
  alongsidePrevious?: boolean;
  /**
   * Earlier phases (by id) this one does not wait for: it starts once every other earlier phase has ended, and
   * runs beside those (the worker joins beside the control-plane joins, which they do not need).
   */
  overlaps?: PhaseId[];
  /** Things the user must know before approving (e.g. the two-member etcd window). */
  warnings: string[];
}

export interface Plan {
  /** Hash of the inventory and options the plan was made from; a resumed run must match it. */
  fingerprint: string;
  phases: PhasePlan[];
}

export function stepCommandDisplay(step: Step): string | undefined {
  if (!step.run) return undefined;
  return typeof step.run === 'function' ? step.planDisplay ?? t('(built at run time)') : step.run.display;
}

/** The plan as text, exactly the commands per host: printed by the CLI and shown by the editor. */
export function renderPlan(plan: Plan): string {
  const out: string[] = [];
  for (const phase of plan.phases) {
    const beside = phase.overlaps?.length ? t(', at the same time as {0} (does not wait for it)', phase.overlaps.join(', ')) : '';
    out.push(`## ${phase.title} (${phase.order === 'parallel' ? t('parallel') : t('serial')}${phase.alongsidePrevious ? t(', at the same time as the phase above when they share no host') : ''}${beside})`);
    for (const w of phase.warnings) out.push(`   ! ${w}`);
    for (const step of phase.steps) {
      out.push(`[${step.host}] ${step.title}`);
      if (step.check) out.push(t('    skip if: {0}', step.check.display));
      if (step.skipWhen) out.push(t('    skip if: an earlier step of this run already did it'));
      for (const f of step.files ?? []) out.push(f.secret ? t('    write {0} (mode {1}, secret content)', f.path, f.mode.toString(8)) : t('    write {0} (mode {1}, {2} lines)', f.path, f.mode.toString(8), f.content.split('\n').length));
      if (step.stream) out.push(t('    send {0} to {1} (mode {2}, {3} bytes, checked there by sha256 {4})', step.stream.label, step.stream.path, step.stream.mode.toString(8), step.stream.size, step.stream.sha256));
      const cmd = stepCommandDisplay(step);
      if (cmd) out.push(t('    run: {0}', cmd));
      if (step.action && !step.run && step.planDisplay) out.push(t('    do: {0}', step.planDisplay));
      if (step.verify) out.push(t('    verify: {0}', step.verify.display));
    }
    out.push('');
  }
  return out.join('\n');
}
