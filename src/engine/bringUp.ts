/**
 * Bring-up as one plan (prepare beside load balancer → init → control-plane joins, worker joins beside them) and
 * how it runs: over SSH, with a ledger and per-host locks in the workspace's state folder, and
 * output through the run log (host-prefixed, redacted). Shared by the CLI and the extension.
 */
import { createHash } from 'node:crypto';
import { join } from 'node:path';
import type { Inventory } from '../core/inventory/types';
import { imagesBesideInitPhase, initPhase, joinControlPlanePhases, joinWorkersPhases, loadBalancerPhase, preparePhase, type InitHooks } from '../core/phases/bringUp';
import { clusterChecksPhase } from '../core/phases/clusterChecks';
import type { PhaseConfigs, PhaseSources } from '../core/phases/configs';
import type { Ledger } from '../core/plan/ledger';
import { HostLocks } from './state/hostLocks';
import { createLedger, ensureRunsFolder, findResumable, type RefusedRun } from './state/runLedger';
import { runPlan, type RunEvent, type RunResult, type StepExecutor } from '../core/plan/runner';
import type { PhaseId, PhasePlan, Plan } from '../core/plan/types';
import type { RunOutput } from '../core/ssh/runLog';
import { assertValidInventory } from '../core/inventory/validate';
import { describeChange, type HostChange } from '../core/plan/hostIdentity';
import { failureAdvice, type FailureAdvice } from './advice';
import { checkHosts } from './hostCheck';

export const BRING_UP_PHASES = ['prepare', 'loadbalancer', 'init', 'join-control-plane', 'join-workers', 'verify'] as const satisfies readonly PhaseId[];
export type BringUpPhase = (typeof BRING_UP_PHASES)[number];

export function buildBringUpPlan(inv: Inventory, phases: readonly BringUpPhase[], configs: PhaseConfigs, sources: PhaseSources, hooks: InitHooks): Plan {
  assertValidInventory(inv);
  if (!phases.length) throw new Error(`no phase to plan: name at least one of ${BRING_UP_PHASES.join(', ')}`);
  const plans: PhasePlan[] = [];
  // The other nodes' image pulls belong to prepare and take init's place in the order: beside init when it is
  // planned too, else simply after prepare and the balancers.
  const pulls = phases.includes('prepare') ? imagesBesideInitPhase(inv, sources) : undefined;
  for (const phase of BRING_UP_PHASES) {
    const wanted = phases.includes(phase);
    if (wanted && phase === 'prepare') plans.push(preparePhase(inv, configs, sources));
    if (wanted && phase === 'loadbalancer') plans.push(loadBalancerPhase(inv, configs, sources));
    if (wanted && phase === 'init') plans.push(initPhase(inv, configs, sources, hooks));
    if (phase === 'init' && pulls?.steps.length) plans.push(wanted ? pulls : { ...pulls, overlaps: [] });
    if (wanted && phase === 'join-control-plane') plans.push(...joinControlPlanePhases(inv, sources, configs));
    if (wanted && phase === 'join-workers') plans.push(...joinWorkersPhases(inv, sources));
    if (wanted && phase === 'verify') plans.push(clusterChecksPhase(inv, hooks));
  }
  // Same inventory, files and phases → same fingerprint → a failed run of it can be resumed.
  const fingerprint = createHash('sha256').update(JSON.stringify({ inv, configs, sources, phases })).digest('hex').slice(0, 16);
  return { fingerprint, phases: plans };
}

export interface RunState {
  /** `.kubeadm-workbench` next to the inventory: runs/ (ledgers and logs) and locks/. */
  stateDir: string;
  command: string;
  resume: boolean;
}

/**
 * The run's ledger: the unfinished run of this plan when resuming — only one this user signed on this machine; any
 * other ledger file is returned in `refused` with its reason — or a new one.
 */
export async function openLedger(plan: Plan, state: RunState): Promise<{ ledger: Ledger; resumed: boolean; refused: RefusedRun[] }> {
  const runs = join(state.stateDir, 'runs');
  await ensureRunsFolder(runs);
  const found = state.resume ? await findResumable(runs, state.command, plan.fingerprint) : { refused: [] };
  if (found.ledger) return { ledger: found.ledger, resumed: true, refused: found.refused };
  const ledger = createLedger(runs, state.command, plan.fingerprint);
  await ledger.save();
  return { ledger, resumed: false, refused: found.refused };
}

export interface ExecuteOptions {
  executor: StepExecutor;
  output: RunOutput;
  maxParallelHosts: number;
  signal?: AbortSignal;
  onEvent?: (event: RunEvent) => void;
  /** The run continues a ledger of an earlier one. */
  resumed?: boolean;
}

export interface ExecuteResult extends RunResult {
  /** Hosts that were rebuilt or restarted since the run started. */
  changes: HostChange[];
  /** For a failed run: where, the likely cause, whether it failed the same way last time. */
  advice?: FailureAdvice;
}

/** The host that holds the cluster: where init runs, or where a join's credentials come from. */
function clusterHost(plan: Plan): string | undefined {
  return plan.phases.flatMap((p) => p.steps).find((s) => s.id.endsWith('/kubeadm-init') || s.id.endsWith('/ca-hash'))?.host;
}

/**
 * Runs the plan and narrates it through the run output (what the terminal and the log show). First every
 * host is asked who it is: one rebuilt since the run started is named and started over.
 */
export async function executePlan(plan: Plan, ledger: Ledger, state: RunState, options: ExecuteOptions): Promise<ExecuteResult> {
  const { output } = options;
  const previousErrors = new Map(Object.entries(ledger.data.steps).flatMap(([id, e]) => (e.state === 'failed' && e.error ? [[id, e.error] as const] : [])));
  const changes = await checkHosts(plan, ledger, options.executor, options.signal);
  for (const c of changes) output.message(describeChange(c));
  // By step: steps of phases that run side by side may share a host.
  const streams = new Map<string, ReturnType<RunOutput['forCommand']>>();
  const result = await runPlan(plan, {
    executor: options.executor,
    ledger,
    locks: new HostLocks(join(state.stateDir, 'locks'), ledger.data.runId),
    maxParallelHosts: options.maxParallelHosts,
    ...(options.signal ? { signal: options.signal } : {}),
    onEvent: (event) => {
      options.onEvent?.(event);
      if (event.type === 'phase') {
        output.message(`== ${event.phase.title}`);
        for (const w of event.phase.warnings) output.message(`!! ${w}`);
      } else if (event.type === 'step-start') {
        output.message(`-> ${event.step.title}${event.display ? `: ${event.display}` : ''}`, event.step.host);
        streams.set(event.step.id, output.forCommand(event.step.host));
      } else if (event.type === 'output') {
        const s = streams.get(event.stepId) ?? output.forCommand(event.host);
        streams.set(event.stepId, s);
        if (event.stream === 'stdout') s.onStdout(event.text);
        else s.onStderr(event.text);
      } else if (event.type === 'step-end') {
        streams.get(event.step.id)?.end();
        streams.delete(event.step.id);
        const how = event.state === 'skipped' ? 'already done, skipped' : event.state;
        output.message(`<- ${event.step.title}: ${how} (${(event.ms / 1000).toFixed(1)} s)${event.error ? ` — ${event.error}` : ''}`, event.step.host, event.state === 'failed' ? 'error' : 'info');
      }
    },
  });
  if (result.ok || !result.failed) return { ...result, changes };
  const first = clusterHost(plan);
  const previousError = previousErrors.get(result.failed.step.id);
  const advice = failureAdvice({
    step: result.failed.step, error: result.failed.error, cancelled: result.cancelled, resumed: Boolean(options.resumed), changes,
    ...(result.failed.connection ? { connection: result.failed.connection } : {}), ...(result.failed.known ? { known: result.failed.known } : {}),
    ...(previousError ? { previousError } : {}), ...(first ? { firstControlPlane: first } : {}),
  });
  return { ...result, changes, advice };
}
