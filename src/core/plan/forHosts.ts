/**
 * A plan narrowed to some hosts — `join --host w03` is the bring-up plan for w03 alone: its prepare
 * steps, its join and the gates about it (which run on the first control-plane node), plus the
 * credentials those need (a fresh token, the CA hash) from the same phase. Empty phases disappear.
 */
import type { PhaseId, Plan, Step } from './types';

export function planForHosts(plan: Plan, hosts: readonly string[]): Plan {
  const wanted = new Set(hosts);
  const isWanted = (s: Step) => wanted.has(s.about ?? s.host);
  // Credentials are per phase: the workers' token phase serves the worker joins, not the control plane's.
  const phasesWithWork = new Set<PhaseId>(plan.phases.filter((p) => p.steps.some(isWanted)).map((p) => p.phase));
  const phases = plan.phases
    .map((phase) => {
      const steps = phase.steps.filter((s) => isWanted(s) || (s.shared === true && phasesWithWork.has(phase.phase)));
      return { ...phase, steps, warnings: phase.steps.some(isWanted) ? phase.warnings : [] };
    })
    .filter((p) => p.steps.length > 0);
  return { fingerprint: `${plan.fingerprint}:${[...wanted].sort().join(',')}`, phases };
}
