/**
 * Runs a plan: phase after phase — or beside the one before it (`alongsidePrevious`) or beside earlier ones it
 * does not need (`overlaps`: the worker joins beside the control-plane joins); inside a phase hosts in parallel (capped) or one after another;
 * on each host its steps in order — check (skip if satisfied) → files → run → verify. Every step's
 * outcome goes to the ledger first, so a killed run resumes where it stopped; but a step is skipped
 * only when its check on the host says its effect is there, never because the ledger says it was done
 * (the host may have been rebuilt or changed by hand since). Cancel aborts the remote commands through
 * the executor's AbortSignal.
 */
import type { RemoteCommand } from '../ssh/command';
import type { Ledger } from './ledger';
import type { HostLockSet } from './locks';
import type { Plan, PhasePlan, RunValues, Step, StreamedFile, UploadFile } from './types';
import { errorMessage } from '../errors';
import type { SshFailure } from '../ssh/failures';
import { sshFailureOf } from '../ssh/transport';
import { registerSecret } from '../ssh/redact';
import { t } from '../l10n';

export interface ExecResult {
  code: number | null;
  signal?: string;
}

export interface ExecIo {
  onStdout?: (text: string) => void;
  onStderr?: (text: string) => void;
  signal?: AbortSignal;
  timeoutMs?: number;
}

/** What the runner needs from the SSH layer. */
export interface StepExecutor {
  exec(host: string, command: RemoteCommand, io: ExecIo): Promise<ExecResult>;
  upload(host: string, file: UploadFile, signal?: AbortSignal): Promise<void>;
  /** Sends a large file as a stream (SshExecutor); an executor without it cannot run a plan that has one. */
  uploadStream?(host: string, file: StreamedFile, signal?: AbortSignal): Promise<void>;
}

export type RunEvent =
  | { type: 'phase'; phase: PhasePlan }
  | { type: 'step-start'; step: Step; display: string | undefined }
  | { type: 'step-end'; step: Step; state: 'done' | 'skipped' | 'failed' | 'cancelled'; error?: string; ms: number }
  // `stepId`: phases that run side by side may each have a step on the same host (the first control-plane node's gates).
  | { type: 'output'; host: string; stepId: string; stream: 'stdout' | 'stderr'; text: string };

export interface RunOptions {
  executor: StepExecutor;
  ledger: Ledger;
  locks: HostLockSet;
  maxParallelHosts: number;
  signal?: AbortSignal;
  onEvent?: (event: RunEvent) => void;
  verifyIntervalMs?: number;
}

export interface RunResult {
  ok: boolean;
  cancelled: boolean;
  /** `connection`: the step never reached its host (the SSH taxonomy's kind: unreachable, login, host key). */
  failed?: { step: Step; error: string; connection?: SshFailure; known?: KnownFailure };
}

/**
 * A failure the program itself raised and knows by kind, so that the advice reads the kind and not the error's words
 * (which are in the display language): another run holds the host (HostLockError), sudo refused (SudoRefused).
 */
export type KnownFailure = 'host-locked' | 'sudo-refused';

/** The kind an error declares in its `knownFailure` field, if it is one. */
export function knownFailureOf(e: unknown): KnownFailure | undefined {
  const k = (e as { knownFailure?: unknown } | null)?.knownFailure;
  return k === 'host-locked' || k === 'sudo-refused' ? k : undefined;
}

export class StepFailed extends Error {
  constructor(
    readonly step: Step,
    message: string,
    /** The SSH connection failed before the step's command could run. */
    readonly connection?: SshFailure,
    readonly known?: KnownFailure,
  ) {
    super(message);
  }
}

export async function runPlan(plan: Plan, options: RunOptions): Promise<RunResult> {
  const values = new Map<string, string>();
  const secrets = new Set<string>();
  // Values captured by a finished run that were not secret come back from the ledger.
  for (const entry of Object.values(options.ledger.data.steps)) for (const [k, v] of Object.entries(entry.values ?? {})) values.set(k, v);
  const ctx: RunContext = { ...options, values, secrets, emit: options.onEvent ?? (() => {}) };
  try {
    await runPhases(plan.phases, ctx);
    await options.ledger.complete();
    return { ok: true, cancelled: false };
  } catch (e) {
    const cancelled = options.signal?.aborted ?? false;
    if (e instanceof StepFailed) return { ok: false, cancelled, failed: { step: e.step, error: e.message, ...(e.connection ? { connection: e.connection } : {}), ...(e.known ? { known: e.known } : {}) } };
    throw e;
  } finally {
    await options.locks.releaseAll();
  }
}

/**
 * Consecutive phases that may run at the same time: a phase marked `alongsidePrevious` joins the group
 * before it when no host of it is in that group (the balancers are set up while the nodes are prepared).
 */
export function concurrentGroups(phases: readonly PhasePlan[]): PhasePlan[][] {
  const groups: PhasePlan[][] = [];
  for (const phase of phases) {
    const last = groups.at(-1);
    const hostsOf = (p: PhasePlan) => new Set(p.steps.map((s) => s.host));
    const busy = new Set(last?.flatMap((p) => [...hostsOf(p)]) ?? []);
    if (last && phase.alongsidePrevious && ![...hostsOf(phase)].some((h) => busy.has(h))) last.push(phase);
    else groups.push([phase]);
  }
  return groups;
}

/**
 * For each phase, the indexes of the earlier phases it waits for: every earlier one, except that a phase of a
 * concurrent group (above) waits only for what its group's first phase waits for, and a phase's `overlaps`
 * are left out (it runs beside them).
 */
export function phaseWaits(phases: readonly PhasePlan[]): number[][] {
  const groups = concurrentGroups(phases);
  const waits: number[][] = [];
  let before = 0;
  for (const group of groups) {
    for (const phase of group) waits.push(Array.from({ length: before }, (_, j) => j).filter((j) => !phase.overlaps?.includes(phases[j]!.phase)));
    before += group.length;
  }
  return waits;
}

/**
 * Every phase starts when the phases it waits for have ended; once one failed (or the run was cancelled) no
 * further phase starts and the ones running go to their end. The first failure in time counts; a cancel stops
 * every running phase at once, so it is told by the earliest phase in the plan (a control-plane join, not the
 * worker join beside it).
 */
async function runPhases(phases: readonly PhasePlan[], ctx: RunContext): Promise<void> {
  const waits = phaseWaits(phases);
  const ended: Promise<boolean>[] = [];
  const failures: { reason: unknown; phase: number }[] = [];
  phases.forEach((phase, i) => {
    const run = async (): Promise<boolean> => {
      const ok = await Promise.all(waits[i]!.map((j) => ended[j]!));
      if (failures.length || !ok.every(Boolean)) return false;
      ctx.emit({ type: 'phase', phase });
      try {
        await runPhase(phase, ctx);
        return true;
      } catch (e) {
        failures.push({ reason: e, phase: i });
        return false;
      }
    };
    ended.push(run());
  });
  await Promise.all(ended);
  if (ctx.signal?.aborted) failures.sort((a, b) => a.phase - b.phase);
  if (failures.length) throw failures[0]!.reason;
}

interface RunContext extends RunOptions {
  values: Map<string, string>;
  secrets: Set<string>;
  emit: (event: RunEvent) => void;
}

async function runPhase(phase: PhasePlan, ctx: RunContext): Promise<void> {
  if (phase.order === 'serial') {
    // Strictly in the listed order: a step on one host may depend on the step before it on another.
    for (const step of phase.steps) {
      await lockFor(step, ctx);
      await runStep(step, ctx);
    }
    return;
  }
  const byHost = new Map<string, Step[]>();
  for (const step of phase.steps) byHost.set(step.host, [...(byHost.get(step.host) ?? []), step]);
  const hosts = [...byHost.keys()];
  const failures: StepFailed[] = [];
  let next = 0;
  // A fixed number of workers take hosts from the list; a failure stops new hosts from starting
  // but lets the ones already running finish their current step cleanly.
  const worker = async (): Promise<void> => {
    while (next < hosts.length && failures.length === 0 && !ctx.signal?.aborted) {
      const steps = byHost.get(hosts[next++]!)!;
      try {
        await lockFor(steps[0]!, ctx);
        for (const step of steps) await runStep(step, ctx);
      } catch (e) {
        failures.push(e as StepFailed);
      }
    }
  };
  await Promise.all(Array.from({ length: Math.min(Math.max(1, ctx.maxParallelHosts), hosts.length) }, worker));
  if (failures.length) throw failures[0];
  if (ctx.signal?.aborted) throw new StepFailed(phase.steps[0]!, 'cancelled');
}

async function lockFor(step: Step, ctx: RunContext): Promise<void> {
  try {
    await ctx.locks.acquire(step.host);
  } catch (e) {
    throw new StepFailed(step, errorMessage(e), undefined, knownFailureOf(e));
  }
}

async function runStep(step: Step, ctx: RunContext): Promise<void> {
  if (ctx.signal?.aborted) throw new StepFailed(step, 'cancelled');

  const started = Date.now();
  const runValues: RunValues = { get: (k) => ctx.values.get(k) };
  const command = typeof step.run === 'function' ? step.run(runValues) : step.run;
  ctx.emit({ type: 'step-start', step, display: command?.display });
  await ctx.ledger.mark(step.id, { state: 'running', startedAt: new Date().toISOString() });
  const end = async (state: 'done' | 'skipped' | 'failed' | 'cancelled', error?: string, captured?: Record<string, string>): Promise<void> => {
    await ctx.ledger.mark(step.id, { state, finishedAt: new Date().toISOString(), ...(error ? { error } : {}), ...(captured ? { values: captured } : {}) });
    ctx.emit({ type: 'step-end', step, state, ms: Date.now() - started, ...(error ? { error } : {}) });
  };

  try {
    if (step.check && (await exec(step, step.check, ctx, true)).code === 0) {
      await end('skipped');
      return;
    }
    if (step.skipWhen?.(runValues)) {
      await end('skipped');
      return;
    }
    for (const file of step.files ?? []) await ctx.executor.upload(step.host, file, ctx.signal);
    if (step.stream) {
      if (!ctx.executor.uploadStream) throw new Error(`this executor cannot send ${step.stream.label}`);
      await ctx.executor.uploadStream(step.host, step.stream, ctx.signal);
    }
    let captured: Record<string, string> | undefined;
    if (command) {
      // A step that prints secrets is not streamed: its output is shown once the secrets are known.
      const producesSecrets = Boolean(step.secretCaptures?.length);
      const result = await exec(step, command, ctx, producesSecrets);
      if (step.capture && result.code === 0) {
        const all = step.capture(result.stdout);
        for (const [k, v] of Object.entries(all)) {
          ctx.values.set(k, v);
          if (step.secretCaptures?.includes(k)) {
            ctx.secrets.add(v);
            registerSecret(v); // from now on redacted wherever it goes, not only in this run's output
          }
        }
        captured = Object.fromEntries(Object.entries(all).filter(([k]) => !step.secretCaptures?.includes(k)));
      }
      if (producesSecrets && result.stdout) ctx.emit({ type: 'output', host: step.host, stepId: step.id, stream: 'stdout', text: hide(result.stdout, ctx.secrets) });
      if (result.code !== 0) throw new StepFailed(step, failureMessage(step, command, result));
    }
    if (step.action) await step.action(runValues, ctx.signal);
    if (step.verify) await verify(step, step.verify, ctx);
    await end('done', undefined, captured);
  } catch (e) {
    const cancelled = ctx.signal?.aborted ?? false;
    const message = e instanceof StepFailed ? e.message : `${step.host}: ${step.title}: ${errorMessage(e)}`;
    await end(cancelled ? 'cancelled' : 'failed', hide(message, ctx.secrets));
    throw e instanceof StepFailed ? e : new StepFailed(step, hide(message, ctx.secrets), sshFailureOf(e), knownFailureOf(e));
  }
}

async function exec(step: Step, command: RemoteCommand, ctx: RunContext, quiet: boolean): Promise<ExecResult & { stdout: string; stderr: string }> {
  let stdout = '';
  let stderr = '';
  const secrets = new Set([...ctx.secrets, ...command.secrets]);
  const result = await ctx.executor.exec(step.host, command, {
    onStdout: (t) => {
      stdout += t;
      if (!quiet) ctx.emit({ type: 'output', host: step.host, stepId: step.id, stream: 'stdout', text: hide(t, secrets) });
    },
    onStderr: (t) => {
      stderr += t;
      if (!quiet) ctx.emit({ type: 'output', host: step.host, stepId: step.id, stream: 'stderr', text: hide(t, secrets) });
    },
    ...(ctx.signal ? { signal: ctx.signal } : {}),
    ...(step.timeoutMs ? { timeoutMs: step.timeoutMs } : {}),
  });
  return { ...result, stdout, stderr: hide(stderr, secrets) };
}

async function verify(step: Step, command: RemoteCommand, ctx: RunContext): Promise<void> {
  const deadline = Date.now() + (step.verifyTimeoutMs ?? 0);
  for (;;) {
    const result = await exec(step, command, ctx, true);
    if (result.code === 0) return;
    if (Date.now() >= deadline || ctx.signal?.aborted) {
      throw new StepFailed(step, t('{0}: {1}: verification `{2}` failed (exit {3}){4}', step.host, step.title, command.display, String(result.code), result.stderr ? `: ${lastLine(result.stderr)}` : ''));
    }
    await new Promise((r) => setTimeout(r, ctx.verifyIntervalMs ?? 2000));
  }
}

function failureMessage(step: Step, command: RemoteCommand, result: ExecResult & { stderr: string }): string {
  const how = result.signal ? `was killed by ${result.signal}` : `exited ${result.code}`;
  return `${step.host}: ${step.title}: \`${command.display}\` ${how}${result.stderr ? `: ${lastLine(result.stderr)}` : ''}`;
}

function lastLine(text: string): string {
  const lines = text.trim().split('\n');
  return lines.slice(-3).join(' | ');
}

/** Replace every known secret value; the SSH layer's pattern redaction runs on top of this. */
export function hide(text: string, secrets: Iterable<string>): string {
  let out = text;
  for (const s of secrets) if (s.length >= 4) out = out.split(s).join('***');
  return out;
}
