/**
 * The degraded verdict shared by the status bar, the views and `kubeadm-workbench status`:
 * a member down, quorum at risk, a node NotReady, a control-plane pod not running/ready, a node lease
 * expired, a leader lease not renewed, an add-on short of replicas, a balancer problem (VIP held by none or two,
 * HAProxy down, a backend server DOWN).
 */
import { t } from '../l10n';
import type { LiveModel } from './snapshot';
import type { BalancersModel } from './balancers';
import { isKubernetesHost } from '../inventory/types';

export type Severity = 'critical' | 'warning';

export interface Problem {
  severity: Severity;
  what: string;
  /** Set on the balancers' problems about the VIP itself (none or two holders, a stuck VIP): the VIP row shows them. */
  about?: 'vip';
  /** What code recognises a problem by (its words are in the display language): two balancers hold the VIP. */
  kind?: 'split-brain';
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
    if (n.readiness !== 'Ready') add('critical', n.readyReason ? t('control-plane node {0} is {1} ({2})', n.name, n.readiness, n.readyReason) : t('control-plane node {0} is {1}', n.name, n.readiness));
    for (const c of n.components) {
      // On a node that is not Ready the pods' status is stale: the node's problem says it once.
      if (c.stale) continue;
      if (!c.present) add('critical', t('{0} has no pod on {1}', c.component, n.name));
      else if (c.phase !== 'Running' || !c.ready) add('critical', c.reason ? t('{0}: {1}, ready {2}/{3} ({4})', c.podName, c.phase, c.readyContainers, c.totalContainers, c.reason) : t('{0}: {1}, ready {2}/{3}', c.podName, c.phase, c.readyContainers, c.totalContainers));
      if (c.drift?.drift) add('warning', t('{0}: manifest on disk differs from the running pod ({1})', c.podName, c.drift.differences[0]));
    }
  }
  const cpNames = new Set(model.controlPlane.nodes.map((n) => n.name));
  for (const h of model.hosts) {
    if (h.node && h.readiness !== 'Ready' && !cpNames.has(h.node)) add('critical', h.readyReason ? t('node {0} is {1} ({2})', h.node, h.readiness, h.readyReason) : t('node {0} is {1}', h.node, h.readiness));
    if (!h.node && isKubernetesHost(h)) add('warning', t('host {0} has no Node in the cluster', h.host));
  }
  for (const l of model.leases.nodes) if (l.health === 'expired') add('critical', t('node lease {0} not renewed for {1}s (duration {2}s)', l.node, Math.round((l.sinceRenewMs ?? 0) / 1000), l.durationSeconds));
  for (const l of model.leases.leaders) if (l.health === 'expired') add('critical', t('leader lease {0} not renewed for {1}s', l.name, Math.round((l.sinceRenewMs ?? 0) / 1000)));
  for (const a of model.controlPlane.addons) if (!a.healthy) add('warning', t('{0}: {1}/{2} ready', a.name, a.ready, a.desired));
  if (model.etcd) {
    // by what each problem is about (its words are in the display language); a model without them by the English words
    const issues = model.etcd.issues;
    model.etcd.problems.forEach((p, i) => add(issues?.[i]?.severity ?? (/quorum lost|quorum at risk|unreachable|no leader|alarm|no members|nearly full/.test(p) ? 'critical' : 'warning'), p));
  } else if (opts.etcdRequired) add('critical', t('etcd could not be read'));
  for (const p of opts.balancers?.problems ?? []) add(p.severity, p.what);
  const critical = problems.filter((p) => p.severity === 'critical').length;
  return {
    degraded: critical > 0,
    problems,
    summary: summaryOf(critical, problems.length),
  };
}

/** "degraded: 2 critical problems", "healthy with 1 warning", "healthy". */
function summaryOf(critical: number, problems: number): string {
  if (critical) return critical === 1 ? t('degraded: 1 critical problem') : t('degraded: {0} critical problems', critical);
  if (problems) return problems === 1 ? t('healthy with 1 warning') : t('healthy with {0} warnings', problems);
  return t('healthy');
}

/** The verdict with problems read apart from the API's objects added (balancers, certificates, snapshots). */
export function withProblems(v: Verdict | undefined, extra: readonly Problem[]): Verdict | undefined {
  if (!extra.length) return v;
  const problems = [...(v?.problems ?? []), ...extra];
  const critical = problems.filter((p) => p.severity === 'critical').length;
  return { degraded: critical > 0, problems, summary: summaryOf(critical, problems.length) };
}

/** The verdict with the balancers' problems added (the editor reads them apart from the API's objects). */
export function withBalancers(v: Verdict | undefined, balancers: BalancersModel | undefined): Verdict | undefined {
  return withProblems(v, balancers?.problems ?? []);
}
