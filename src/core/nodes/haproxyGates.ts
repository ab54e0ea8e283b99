/**
 * The HAProxy gate shared by every plan that takes one control-plane node's API server out of the balancers (the
 * upgrade, the certificate renewal): before its server goes into maintenance on any balancer, every other
 * control-plane server must be UP there. Written once so both plans refuse the same situations.
 */
import { HAPROXY_BACKEND } from '../generate/haproxy';
import type { Step } from '../plan/types';
import { and } from '../ssh/command';
import { serverIs } from './commands';

/** A gate's `rerun`: it only asks and changes nothing, so it is its own check. */
export const GATE_RERUN = 'a gate: it only asks the API or the host for a state and changes nothing, so it is its own check';

/**
 * One balancer's gate: `others` (the other control-plane nodes' server names) are all UP in the backend, before
 * `server` (node `node`'s) is taken out. The step's id, phase and host (the balancer) are the plan's.
 */
export function othersUpGate(node: string, server: string, others: readonly string[]): Pick<Step, 'title' | 'about' | 'why' | 'rerun' | 'run'> {
  return {
    title: `HAProxy: every other API server (${others.join(', ')}) is UP before ${server} is taken out`,
    about: node,
    why: 'A server left in maintenance (an earlier run stopped half-way, or by hand) or still coming back, plus this one, could leave the VIP with no API server.',
    rerun: GATE_RERUN,
    run: and(...others.map((o) => serverIs(HAPROXY_BACKEND, o, 'UP'))),
  };
}
