/**
 * One health model for every surface (the status bar, the live views' message line, `kubeadm-workbench status`):
 *  - unreachable: the API does not answer through the endpoint (the classified network/TLS reason);
 *  - unauthorised: it answers, but we are nobody (system:anonymous: the client certificate or token was not sent
 *    or not accepted) or may not read what the views need — who we are and what we may not do;
 *  - degraded: it answers and we may read, but a component, node, etcd member or balancer is not well (which, where);
 *  - healthy: none of that. An anonymous `/readyz` answer is never healthy.
 */
import { t } from '../l10n';
import type { FailureKind } from './errors';
import type { Problem, Verdict } from './status';

export type HealthState = 'healthy' | 'degraded' | 'unauthorised' | 'unreachable';

export interface Identity {
  username: string;
  groups: string[];
}

/** One access check the live views need, and its answer. */
export interface AccessCheck {
  verb: string;
  resource: string;
  /** `pods/exec` etc. */
  subresource?: string;
  namespace?: string;
  group?: string;
  allowed: boolean;
  /** The authoriser's reason, when it gave one. */
  reason?: string;
}

/** What the live views read: kube-system pods, nodes, both lease namespaces, DaemonSets/Deployments; exec for etcdctl. */
export const NEEDED_ACCESS: Omit<AccessCheck, 'allowed' | 'reason'>[] = [
  { verb: 'list', resource: 'pods', namespace: 'kube-system' },
  { verb: 'list', resource: 'nodes' },
  { verb: 'list', resource: 'leases', group: 'coordination.k8s.io', namespace: 'kube-node-lease' },
  { verb: 'list', resource: 'leases', group: 'coordination.k8s.io', namespace: 'kube-system' },
  { verb: 'list', resource: 'daemonsets', group: 'apps', namespace: 'kube-system' },
  { verb: 'create', resource: 'pods', subresource: 'exec', namespace: 'kube-system' },
];

export interface Reachability {
  ok: boolean;
  ms: number;
  /** The classified failure, when not ok. */
  failure?: FailureKind | undefined;
  why?: string | undefined;
}

export interface HealthInput {
  reach: Reachability;
  /** From a SelfSubjectReview; undefined when it could not be asked (old API server or no answer). */
  identity?: Identity | undefined;
  access?: AccessCheck[] | undefined;
  /** A 401/403 a watch or list actually got (proof beyond the access review). */
  denied?: { kind: 'auth' | 'forbidden'; message: string } | undefined;
  /** The verdict on what the views have read; undefined when nothing was read yet. */
  verdict?: Verdict | undefined;
}

export interface ClusterHealth {
  state: HealthState;
  /** One line in plain words, e.g. "degraded: control-plane node labs-k8s-m03 is NotReady". */
  headline: string;
  /** Every reason, most important first. */
  reasons: string[];
  identity: Identity | undefined;
  /** The checks that were denied. */
  denied: AccessCheck[];
  failure: FailureKind | undefined;
  latencyMs: number | undefined;
  /** The problems behind a degraded state (critical first). */
  problems: Problem[];
}

export const ANONYMOUS = 'system:anonymous';

export function describeAccess(a: Omit<AccessCheck, 'allowed'>): string {
  const res = `${a.resource}${a.subresource ? `/${a.subresource}` : ''}`;
  return `${a.verb} ${res}${a.namespace ? ` in ${a.namespace}` : ' (cluster-wide)'}`;
}

const FAILURE_WORDS: Partial<Record<FailureKind, () => string>> = {
  dns: () => t('DNS lookup failed'),
  tls: () => t('TLS handshake failed'),
  timeout: () => t('no answer'),
  refused: () => t('connection refused'),
  unreachable: () => t('host unreachable'),
  auth: () => t('credentials rejected'),
  config: () => t('kubeconfig problem'),
};

export function assessHealth(input: HealthInput): ClusterHealth {
  const base = { identity: input.identity, latencyMs: input.reach.ok ? input.reach.ms : undefined };
  if (!input.reach.ok) {
    const words = (input.reach.failure && FAILURE_WORDS[input.reach.failure]?.()) || t('API not answering');
    // A 401 on /readyz is not "unreachable": the server answered and refused our credentials.
    if (input.reach.failure === 'auth') {
      return { ...base, state: 'unauthorised', headline: t('unauthorised: the API server rejected our credentials (401)'), reasons: [input.reach.why ?? 'HTTP 401'], denied: [], failure: 'auth', problems: [] };
    }
    return { ...base, state: 'unreachable', headline: t('unreachable: {0}', words), reasons: [input.reach.why ?? words], denied: [], failure: input.reach.failure, problems: [] };
  }
  const denied = (input.access ?? []).filter((a) => !a.allowed);
  // Anonymous users may not even ask who they are; the refusal names the user: `User "system:anonymous" cannot …`.
  const who = input.identity?.username ?? (input.denied ? /User "([^"]+)"/.exec(input.denied.message)?.[1] : undefined);
  if (who === ANONYMOUS || denied.length || input.denied) {
    const whoText = who ? (who === ANONYMOUS ? t('{0} (no client certificate or token was accepted)', ANONYMOUS) : who) : t('an unknown user');
    const signedIn = who && !input.identity ? t('refused as {0}', whoText) : t('signed in as {0}', whoText);
    const reasons = [input.identity?.groups.length ? t('{0}, groups {1}', signedIn, input.identity.groups.join(', ')) : signedIn];
    for (const d of denied) reasons.push(d.reason ? t('may not {0} ({1})', describeAccess(d), d.reason) : t('may not {0}', describeAccess(d)));
    if (input.denied) reasons.push(input.denied.message);
    const first = denied[0];
    const headline = first ? (who ? t('unauthorised: {0} may not {1}', who, describeAccess(first)) : t('unauthorised: we may not {0}', describeAccess(first))) : who === ANONYMOUS ? t('unauthorised: requests arrive as {0}', ANONYMOUS) : t('unauthorised: requests refused');
    return { ...base, state: 'unauthorised', headline, reasons, denied, failure: input.denied?.kind ?? 'forbidden', problems: [] };
  }
  const problems = [...(input.verdict?.problems ?? [])].sort((a, b) => (a.severity === b.severity ? 0 : a.severity === 'critical' ? -1 : 1));
  if (input.verdict?.degraded) {
    const critical = problems.filter((p) => p.severity === 'critical');
    const what = critical[0]?.what ?? input.verdict.summary;
    return { ...base, state: 'degraded', headline: critical.length > 1 ? t('degraded: {0} (+{1} more)', what, critical.length - 1) : t('degraded: {0}', what), reasons: problems.map((p) => p.what), denied: [], failure: undefined, problems };
  }
  const healthy = problems.length ? (problems.length === 1 ? t('healthy with 1 warning') : t('healthy with {0} warnings', problems.length)) : t('healthy');
  return { ...base, state: 'healthy', headline: who ? t('{0} · as {1}', healthy, who) : healthy, reasons: problems.map((p) => p.what), denied: [], failure: undefined, problems };
}
