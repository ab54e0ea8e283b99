/**
 * The degraded verdict shared by the status bar, the views and `kubeadm-workbench status`:
 * a member down, quorum at risk, a node NotReady, a control-plane pod not running/ready, a node lease
 * expired, a leader lease not renewed, an add-on short of replicas, a balancer problem (VIP held by none or two,
 * HAProxy down, a backend server DOWN).
 */
import type { LiveModel } from './snapshot';
import type { BalancersModel } from './balancers';
import { isKubernetesHost } from '../inventory/types';

export type Severity = 'critical' | 'warning';

export interface Problem {
  severity: Severity;
  what: string;
  /** Set on the balancers' problems about the VIP itself (none or two holders, a stuck VIP): the VIP row shows them. */
  about?: 'vip';
}

export interface Verdict {
  degraded: boolean;
  problems: Problem[];
  summary: string;
}

export function verdict(model: LiveModel, opts: { etcdRequired?: boolean; balancers?: BalancersModel | undefined } = {}): Verdict {
  const problems: Problem[] = [];
  const add = (severity: Severity, what: string) => problems.push({ severity, what });
  for (const n of model.controlPlane.nodes) {
    if (n.readiness !== 'Ready') add('critical', `control-plane node ${n.name} is ${n.readiness}${n.readyReason ? ` (${n.readyReason})` : ''}`);
    for (const c of n.components) {
      // On a node that is not Ready the pods' status is stale: the node's problem says it once.
      if (c.stale) continue;
      if (!c.present) add('critical', `${c.component} has no pod on ${n.name}`);
      else if (c.phase !== 'Running' || !c.ready) add('critical', `${c.podName}: ${c.phase}, ready ${c.readyContainers}/${c.totalContainers}${c.reason ? ` (${c.reason})` : ''}`);
      if (c.drift?.drift) add('warning', `${c.podName}: manifest on disk differs from the running pod (${c.drift.differences[0]})`);
    }
  }
  const cpNames = new Set(model.controlPlane.nodes.map((n) => n.name));
  for (const h of model.hosts) {
    if (h.node && h.readiness !== 'Ready' && !cpNames.has(h.node)) add('critical', `node ${h.node} is ${h.readiness}${h.readyReason ? ` (${h.readyReason})` : ''}`);
    if (!h.node && isKubernetesHost(h)) add('warning', `host ${h.host} has no Node in the cluster`);
  }
  for (const l of model.leases.nodes) if (l.health === 'expired') add('critical', `node lease ${l.node} not renewed for ${Math.round((l.sinceRenewMs ?? 0) / 1000)}s (duration ${l.durationSeconds}s)`);
  for (const l of model.leases.leaders) if (l.health === 'expired') add('critical', `leader lease ${l.name} not renewed for ${Math.round((l.sinceRenewMs ?? 0) / 1000)}s`);
  for (const a of model.controlPlane.addons) if (!a.healthy) add('warning', `${a.name}: ${a.ready}/${a.desired} ready`);
  if (model.etcd) {
    for (const p of model.etcd.problems) add(/quorum lost|quorum at risk|unreachable|no leader|alarm|no members|nearly full/.test(p) ? 'critical' : 'warning', p);
  } else if (opts.etcdRequired) add('critical', 'etcd could not be read');
  for (const p of opts.balancers?.problems ?? []) add(p.severity, p.what);
  const critical = problems.filter((p) => p.severity === 'critical').length;
  return {
    degraded: critical > 0,
    problems,
    summary: critical ? `degraded: ${critical} critical problem${critical === 1 ? '' : 's'}` : problems.length ? `healthy with ${problems.length} warning${problems.length === 1 ? '' : 's'}` : 'healthy',
  };
}

/** The verdict with problems read apart from the API's objects added (balancers, certificates, snapshots). */
export function withProblems(v: Verdict | undefined, extra: readonly Problem[]): Verdict | undefined {
  if (!extra.length) return v;
  const problems = [...(v?.problems ?? []), ...extra];
  const critical = problems.filter((p) => p.severity === 'critical').length;
  return { degraded: critical > 0, problems, summary: critical ? `degraded: ${critical} critical problem${critical === 1 ? '' : 's'}` : `healthy with ${problems.length} warning${problems.length === 1 ? '' : 's'}` };
}

/** The verdict with the balancers' problems added (the editor reads them apart from the API's objects). */
export function withBalancers(v: Verdict | undefined, balancers: BalancersModel | undefined): Verdict | undefined {
  return withProblems(v, balancers?.problems ?? []);
}
