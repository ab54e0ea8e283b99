/**
 * The HAProxy steps shared by every plan that restarts one control-plane node's API server behind the balancers (the
 * upgrade, the reconfigure, the etcd defragmentation; the certificate renewal has the gate): before its server goes
 * into maintenance on any balancer, every other control-plane server must be UP there; then it goes into maintenance
 * with its open sessions closed on every balancer; after the restart it is made ready again and must come UP by its
 * health check. Written once so the plans refuse the same situations and leave the VIP the same way.
 */
import { t } from '../l10n';
import { haproxyServerNames, HAPROXY_BACKEND } from '../generate/haproxy';
import { hostsWithRole, type HostSpec, type Inventory } from '../inventory/types';
import type { RunValues, Step } from '../plan/types';
import { and } from '../ssh/command';
import { serverIs, serverIsOut, setServerState, takeServerOut } from './commands';

/** A gate's `rerun`: it only asks and changes nothing, so it is its own check. */
export const GATE_RERUN = 'a gate: it only asks the API or the host for a state and changes nothing, so it is its own check';

/**
 * One balancer's gate: `others` (the other control-plane nodes' server names) are all UP in the backend, before
 * `server` (node `node`'s) is taken out. The step's id, phase and host (the balancer) are the plan's.
 */
export function othersUpGate(node: string, server: string, others: readonly string[]): Pick<Step, 'title' | 'about' | 'why' | 'rerun' | 'run'> {
  return {
    title: t('HAProxy: every other API server ({0}) is UP before {1} is taken out', others.join(', '), server),
    about: node,
    why: t('A server left in maintenance (an earlier run stopped half-way, or by hand) or still coming back, plus this one, could leave the VIP with no API server.'),
    rerun: GATE_RERUN,
    run: and(...others.map((o) => serverIs(HAPROXY_BACKEND, o, 'UP'))),
  };
}

/** HAProxy's server for a control-plane node (the generator's names). */
export function serverOf(inv: Inventory, node: string): string {
  const s = haproxyServerNames(inv).find((x) => x.host === node);
  if (!s) throw new Error(t('{0} has no server in the balancers\' HAProxy backend (as the inventory generates it)', node));
  return s.server;
}

/** What a plan's balancer step is called: the plan builds its id and phase from the balancer and a key. */
export type BalancerStepKey = 'others-up' | 'maint' | 'ready';
export type MakeBalancerStep = (balancer: string, key: BalancerStepKey, rest: Omit<Step, 'id' | 'phase' | 'host'>) => Step;

export interface BalancerStepOptions {
  step: MakeBalancerStep;
  /** What restarts the API server meanwhile, in the maintenance step's title ("kubeadm restarts it"). */
  restart: string;
  /** The node needs no restart after all (a gate found it done): its balancer steps are skipped. */
  skipWhen?: (values: RunValues) => boolean;
}

/**
 * `host`'s API server out of HAProxy on every balancer: every balancer's gate (the other servers UP) before any
 * maint, so a stop at one never leaves this node out of another.
 */
export function balancersOut(inv: Inventory, host: HostSpec, o: BalancerStepOptions): Step[] {
  const server = serverOf(inv, host.name);
  const balancers = hostsWithRole(inv, 'loadbalancer');
  const others = hostsWithRole(inv, 'control-plane').filter((h) => h.name !== host.name).map((h) => serverOf(inv, h.name));
  const skip = o.skipWhen ? { skipWhen: o.skipWhen } : {};
  const gates = (others.length ? balancers : []).map((b) => o.step(b.name, 'others-up', { ...othersUpGate(host.name, server, others), ...skip }));
  return [...gates, ...balancers.map((b) => o.step(b.name, 'maint', {
    title: t('HAProxy: {0} in maintenance and its open connections closed (no request through the VIP reaches {1}\'s API server while {2})', server, host.name, o.restart),
    about: host.name,
    why: t('A client through the VIP must never be sent to an API server that is stopping or not ready yet; maintenance stops new connections, and a keep-alive connection opened earlier must move too (seen on the lab: connection resets during the first node\'s apply, and during a control-plane kubelet\'s restart).'),
    rerun: 'skipped when the node needs no restart; otherwise its effect is undone by the ready step after the restart',
    ...skip,
    run: takeServerOut(HAPROXY_BACKEND, server),
    verify: serverIsOut(HAPROXY_BACKEND, server),
    verifyTimeoutMs: 20_000,
  }))];
}

/** `host`'s API server back in HAProxy on every balancer (after the plan's own gate that it answers /readyz). */
export function balancersIn(inv: Inventory, host: HostSpec, o: Pick<BalancerStepOptions, 'step'>): Step[] {
  const server = serverOf(inv, host.name);
  return hostsWithRole(inv, 'loadbalancer').map((b) => o.step(b.name, 'ready', {
    title: t('HAProxy: {0} ready again, and UP by its /readyz check', server),
    about: host.name,
    check: serverIs(HAPROXY_BACKEND, server, 'UP'),
    run: setServerState(HAPROXY_BACKEND, server, 'ready'),
    verify: serverIs(HAPROXY_BACKEND, server, 'UP'),
    verifyTimeoutMs: 2 * 60_000,
  }));
}
