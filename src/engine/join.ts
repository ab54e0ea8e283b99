/**
 * Joining inventory hosts to a running cluster (CLI `join`, editor "Join Hosts to Cluster"): which hosts
 * may join, the phases a join needs, and the hosts its plan is narrowed to.
 */
import type { Inventory } from '../core/inventory/types';
import { planForHosts } from '../core/plan/forHosts';
import type { Plan } from '../core/plan/types';
import type { BringUpPhase } from './bringUp';
import { isKubernetesHost } from '../core/inventory/types';
import { t } from '../core/l10n';

/** Every node but the first control-plane node (the one `init` makes). */
export function joinableHosts(inv: Inventory): string[] {
  const first = inv.hosts.find((h) => h.roles.includes('control-plane'));
  return inv.hosts.filter((h) => h !== first && isKubernetesHost(h)).map((h) => h.name);
}

/** Why these hosts cannot be joined, or undefined. */
export function joinProblem(inv: Inventory, hosts: readonly string[]): string | undefined {
  if (!hosts.length) return t('name the hosts to join (one or more inventory hosts)');
  const joinable = joinableHosts(inv);
  for (const name of hosts) {
    const h = inv.hosts.find((x) => x.name === name);
    if (!h) return t('{0} is not a host of the inventory (hosts: {1})', name, inv.hosts.map((x) => x.name).join(', '));
    if (joinable.includes(name)) continue;
    if (h.roles.includes('control-plane')) return t('{0} is the first control-plane node: it is initialised by the bring-up, not joined', name);
    return t('{0} has neither the control-plane nor the worker role: nothing to join', name);
  }
  return undefined;
}

function joinsControlPlane(inv: Inventory, hosts: readonly string[]): boolean {
  return hosts.some((h) => inv.hosts.find((x) => x.name === h)?.roles.includes('control-plane'));
}

/** prepare, then the joins; the balancers too when a control-plane node joins (their config lists every one). */
export function joinPhases(inv: Inventory, hosts: readonly string[]): BringUpPhase[] {
  // No cluster checks: every joined node has its own Ready gate, and a join must not wait on unrelated nodes.
  return ['prepare', ...(joinsControlPlane(inv, hosts) ? (['loadbalancer', 'join-control-plane'] as const) : []), 'join-workers'];
}

/** The full plan of `joinPhases` narrowed to the joining hosts (and the balancers, whose steps stay whole). */
export function narrowToJoin(inv: Inventory, hosts: readonly string[], full: Plan): Plan {
  const balancers = joinsControlPlane(inv, hosts) ? inv.hosts.filter((h) => h.roles.includes('loadbalancer')).map((h) => h.name) : [];
  return planForHosts(full, [...hosts, ...balancers]);
}
