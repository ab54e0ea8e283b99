/**
 * The plan as a reader sees it: phases → hosts → steps, each step with its exact commands (secrets already shown
 * as *** by the commands' display form). One model for the editor's plan view and `plan --format json`, so both
 * show the same structure. Plain data: serializable, no functions.
 */
import { stepCommandDisplay, type PhaseId, type Plan, type Step } from './types';

export interface PlanViewFile {
  path: string;
  /** Octal, as chmod writes it (0644). */
  mode: string;
  /** Secret content (keys, kubeconfigs) is never shown, only that it is written. */
  secret: boolean;
  lines?: number;
}

export interface PlanViewStep {
  /** The ledger's id, `phase/host/key`. */
  id: string;
  title: string;
  why?: string;
  /** The host the step is about when it runs on another one (a join's etcd gate runs on the first node). */
  about?: string;
  /** Skipped when this exits 0 (the effect is already there). */
  skipIf?: string;
  /** Skipped when an earlier step of the same run already did it. */
  skipIfDoneEarlier?: boolean;
  files: PlanViewFile[];
  /** The command, as it will run (secrets ***). */
  run?: string;
  /** In-process work (merge a kubeconfig, ask the API), described. */
  action?: string;
  /** Must exit 0 after `run`, retried until its time limit. */
  verify?: string;
  timeoutSeconds?: number;
}

export interface PlanViewHost {
  host: string;
  steps: PlanViewStep[];
}

export interface PlanViewPhase {
  phase: PhaseId;
  title: string;
  /** parallel: the hosts at once, each host's steps in order; serial: the host groups run one after another as listed. */
  order: 'parallel' | 'serial';
  /** Runs beside the phase before it when they share no host. */
  alongsidePrevious: boolean;
  /** Earlier phases it runs beside without waiting for them (the worker joins beside the control-plane joins). */
  overlaps: PhaseId[];
  warnings: string[];
  /**
   * parallel: one group per host. serial: one group per run of consecutive steps on the same host, so the list keeps
   * the real order (m02 joins, then m01 checks etcd about m02, then m03 joins).
   */
  hosts: PlanViewHost[];
  stepCount: number;
}

export interface PlanView {
  fingerprint: string;
  phases: PlanViewPhase[];
  hosts: string[];
  stepCount: number;
}

export function planView(plan: Plan): PlanView {
  const phases = plan.phases.map((p): PlanViewPhase => {
    const hosts: PlanViewHost[] = [];
    for (const step of p.steps) {
      const last = hosts[hosts.length - 1];
      const group = p.order === 'parallel' ? hosts.find((h) => h.host === step.host) : last?.host === step.host ? last : undefined;
      if (group) group.steps.push(stepView(step));
      else hosts.push({ host: step.host, steps: [stepView(step)] });
    }
    return { phase: p.phase, title: p.title, order: p.order, alongsidePrevious: Boolean(p.alongsidePrevious), overlaps: [...(p.overlaps ?? [])], warnings: [...p.warnings], hosts, stepCount: p.steps.length };
  });
  const hosts = [...new Set(plan.phases.flatMap((p) => p.steps.map((s) => s.host)))];
  return { fingerprint: plan.fingerprint, phases, hosts, stepCount: phases.reduce((n, p) => n + p.stepCount, 0) };
}

function stepView(step: Step): PlanViewStep {
  const run = stepCommandDisplay(step);
  return {
    id: step.id,
    title: step.title,
    ...(step.why ? { why: step.why } : {}),
    ...(step.about ? { about: step.about } : {}),
    ...(step.check ? { skipIf: step.check.display } : {}),
    ...(step.skipWhen ? { skipIfDoneEarlier: true } : {}),
    files: [
      ...(step.files ?? []).map((f) => ({ path: f.path, mode: f.mode.toString(8).padStart(4, '0'), secret: Boolean(f.secret), ...(f.secret ? {} : { lines: f.content.split('\n').length }) })),
      ...(step.stream ? [{ path: step.stream.path, mode: step.stream.mode.toString(8).padStart(4, '0'), secret: true }] : []),
    ],
    ...(run ? { run } : {}),
    ...(step.action && !step.run && step.planDisplay ? { action: step.planDisplay } : {}),
    ...(step.verify ? { verify: step.verify.display } : {}),
    ...(step.timeoutMs ? { timeoutSeconds: Math.round(step.timeoutMs / 1000) } : {}),
  };
}
