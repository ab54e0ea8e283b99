/**
 * The drill's report: each measurement against its expectation (pass / fail / info), the API's
 * availability through the VIP, the quorum arithmetic, and how the restore went — as JSON (CLI
 * --json, tests) and as Markdown (the editor's report document, the CLI's text output).
 */
import { holderNode } from '../drain/controlPlaneGuard';
import { TAKEOVER_SYNC_SECONDS, type Expectation } from './expect';
import type { ApiSample, ObservedTimeline } from './observer';
import type { DrillPlan } from './plan';

export type Verdict = 'pass' | 'fail' | 'info' | 'not observed' | 'not waited';

export interface Measurement {
  id: string;
  title: string;
  phase: 'failure' | 'recovery';
  /** Seconds since the fault (failure) or since the restore began (recovery). */
  seconds: number | undefined;
  /** For recovery events: seconds since the fault. */
  sinceFault?: number | undefined;
  expected: string;
  verdict: Verdict;
  detail?: string | undefined;
  basis: string;
  seed?: string | undefined;
}

export interface ApiStats {
  requests: number;
  /** Requests sent while the node was down (between the fault and the restore). */
  requestsWhileDown: number;
  failed: number;
  /** Failures in the failure phase before every balancer marked the server DOWN (+ slack). */
  failedBeforeDown: number;
  failedAfterDown: number;
  failedDuringRecovery: number;
  /** Longest stretch from a failed request to the next successful one, seconds. */
  longestOutageSeconds: number;
  firstFailureSeconds: number | undefined;
  lastFailureSeconds: number | undefined;
}

export interface RunFacts {
  startedAt: string;
  /** How long the fault command itself ran. */
  faultSeconds: number | undefined;
  faultError?: string | undefined;
  /** Seconds from the fault to the restore. */
  observedSeconds: number | undefined;
  restore: { ok: boolean; seconds: number | undefined; error?: string | undefined; attempted: boolean };
  /** Seconds the recovery was watched. */
  recoverySeconds: number | undefined;
  cancelled: boolean;
  probeErrors: Record<string, string>;
  /** Whether the target's own API server answered /readyz from here before the fault (its return was then watched). */
  apiserverProbed?: boolean | undefined;
}

export interface DrillReport {
  title: string;
  ok: boolean;
  cluster: string;
  target: DrillPlan['target'];
  kind: DrillPlan['kind'];
  startedAt: string;
  measurements: Measurement[];
  api: ApiStats;
  quorum: string | undefined;
  etcd: { leaderBefore: string | undefined; leaderAfter: string | undefined; termBefore: number | undefined; termAfter: number | undefined } | undefined;
  leases: { name: string; before: string | undefined; after: string | undefined }[];
  run: RunFacts;
  notes: string[];
}

const sec = (ms: number): number => Math.round(ms / 100) / 10;

export function apiStats(samples: ApiSample[], downAtMs: number | undefined, restoreAtMs: number | undefined, slackMs = 2000): ApiStats {
  const sorted = [...samples].sort((a, b) => a.t - b.t);
  const inFailure = (s: ApiSample) => s.t >= 0 && (restoreAtMs === undefined || s.t < restoreAtMs);
  const failed = sorted.filter((s) => !s.ok);
  const failedFailure = failed.filter(inFailure);
  const cut = downAtMs === undefined ? undefined : downAtMs + slackMs;
  let longest = 0;
  let outageStart: number | undefined;
  for (const s of sorted) {
    if (!s.ok) outageStart ??= s.t;
    else if (outageStart !== undefined) {
      longest = Math.max(longest, s.t - outageStart);
      outageStart = undefined;
    }
  }
  if (outageStart !== undefined && sorted.length) longest = Math.max(longest, sorted[sorted.length - 1]!.t - outageStart);
  return {
    requests: sorted.length,
    requestsWhileDown: sorted.filter(inFailure).length,
    failed: failed.length,
    failedBeforeDown: cut === undefined ? failedFailure.length : failedFailure.filter((s) => s.t <= cut).length,
    failedAfterDown: cut === undefined ? 0 : failedFailure.filter((s) => s.t > cut).length,
    failedDuringRecovery: restoreAtMs === undefined ? 0 : failed.filter((s) => s.t >= restoreAtMs).length,
    longestOutageSeconds: sec(longest),
    firstFailureSeconds: failedFailure[0] ? sec(failedFailure[0].t) : undefined,
    lastFailureSeconds: failedFailure.length ? sec(failedFailure[failedFailure.length - 1]!.t) : undefined,
  };
}

function expectedText(e: Expectation): string {
  if (e.min !== undefined && e.max !== undefined) return `${e.min}–${e.max} s`;
  if (e.max !== undefined) return `≤ ${e.max} s`;
  return '—';
}

/**
 * Allowance below a floor. A poll sees an event up to one interval late, never early, and the clock starts before
 * the fault command runs, so a measured moment can only be later than the real one — except that an etcd or API
 * sample is stamped at the middle of its request.
 */
export const FLOOR_SLACK_SECONDS = 1.5;

function judge(e: Expectation, seconds: number | undefined, since = 'after this fault'): { verdict: Verdict; note?: string } {
  if (seconds === undefined) return { verdict: e.informational && e.phase === 'failure' ? 'not observed' : 'fail' };
  if (e.informational || e.max === undefined) return { verdict: e.phase === 'recovery' ? 'pass' : 'info' };
  if (seconds > e.max + e.slack) return { verdict: 'fail', note: `slower than the ${e.max} s bound (+${e.slack} s polling slack)` };
  // Every lower bound is a floor the settings impose (the checks, timeouts and grace periods must run out first):
  // earlier means the fault was not the one planned or a probe misread the state.
  const early = Math.min(e.slack, FLOOR_SLACK_SECONDS);
  if (e.min !== undefined && seconds < e.min - early) return { verdict: 'fail', note: `faster than the ${e.min} s floor (−${early} s slack): it cannot happen that early ${since}` };
  return { verdict: 'pass' };
}

/**
 * What the balancers' checks did while a control plane came back: the moment each admitted the server set against
 * the moment its API server could serve, and the requests that failed in between (a TCP check admits it when the
 * port opens).
 */
function admissionNotes(plan: DrillPlan, tl: ObservedTimeline, failedDuringRecovery: number): string[] {
  const ev = tl.events;
  const restoreAt = tl.restoreAt ?? 0;
  const ready = ev['apiserver-ready'];
  const tcp = plan.balancers.filter((b) => b.params.httpCheck === undefined).map((b) => b.host);
  // Only with the node's own readiness seen is "too early" known.
  const early = !ready ? [] : plan.balancers.flatMap((b) => {
    const up = ev[`haproxy-up@${b.host}`];
    return up && up.t < ready.t ? [`${b.host} ${sec(up.t - restoreAt)} s`] : [];
  });
  const when = ready && early.length ? ` HAProxy admitted it (${early.join(', ')} after the restore began) before its own /readyz was ok (${sec(ready.t - restoreAt)} s).` : '';
  const fix = tcp.length ? ` ${tcp.join(', ')} check${tcp.length === 1 ? 's' : ''} it over TCP, which admits kube-apiserver as soon as its port opens: \`option httpchk GET /readyz\` with \`http-check expect status 200\` and \`check check-ssl verify none\` waits for readiness.` : '';
  if (failedDuringRecovery) return [`${failedDuringRecovery} API request(s) through the VIP failed while ${plan.target.host} came back.${when}${fix}`];
  if (when) return [`no API request failed while ${plan.target.host} came back, but${when} Requests sent to it in between could fail.${fix}`];
  return [];
}

export function buildDrillReport(plan: DrillPlan, tl: ObservedTimeline, run: RunFacts): DrillReport {
  const ev = tl.events;
  const restoreAt = tl.restoreAt;
  const downTimes = plan.balancers.map((b) => ev[`haproxy-down@${b.host}`]?.t);
  // a balancer drill: the VIP's move (or the second MASTER) is the moment after which every request must succeed
  const moveAt = plan.vrrp ? (ev['vip-moved'] ?? ev['split-brain'])?.t : undefined;
  const downAt = plan.vrrp ? moveAt : downTimes.length && downTimes.every((t) => t !== undefined) ? Math.max(...(downTimes as number[])) : undefined;
  const api = apiStats(tl.api, downAt, restoreAt);
  const notes: string[] = [];
  const measurements: Measurement[] = [];
  const name = (id: string | undefined) => (id ? (plan.etcd?.names[id] ?? id) : undefined);

  for (const e of plan.expectations) {
    const base = { id: e.id, title: e.title, phase: e.phase, expected: expectedText(e), basis: e.basis, seed: e.seed };
    if (e.id === 'api' && plan.vrrp) {
      const allowed = plan.vrrp.allowedFailures;
      const during = api.failedBeforeDown + api.failedAfterDown;
      const ok = api.failedAfterDown === 0 && api.failedBeforeDown <= allowed && (moveAt !== undefined || during === 0);
      const detail =
        `${during} of ${api.requestsWhileDown} requests failed during the fault` +
        (moveAt !== undefined ? ` (${api.failedBeforeDown} until ${sec(moveAt) + 2} s: the move + the probe's 2 s timeout; ${api.failedAfterDown} after)` : '') +
        `; ${api.failedDuringRecovery} during the way back${api.failed ? `; longest outage ${api.longestOutageSeconds} s` : ''}`;
      measurements.push({ ...base, expected: `≤ ${allowed} failures, none after the move`, seconds: api.firstFailureSeconds, verdict: ok ? 'pass' : 'fail', detail });
      continue;
    }
    if (e.id === 'vip-stays') {
      const back = ev['vip-back'];
      measurements.push({ ...base, seconds: back && restoreAt !== undefined ? sec(back.t - restoreAt) : undefined, verdict: back ? 'fail' : run.restore.ok ? 'pass' : 'fail', detail: back ? `the VIP went back to ${plan.target.host} although it runs with nopreempt` : `stayed on ${tl.vipHolders.join(' and ') || '?'} for the ${plan.limits.restoreSeconds} s watched` });
      continue;
    }
    if (e.id === 'api') {
      const bad = plan.target.role === 'control-plane' ? (downAt === undefined ? api.failedBeforeDown : api.failedAfterDown) : api.failedBeforeDown + api.failedAfterDown;
      const detail =
        `${api.failedBeforeDown + api.failedAfterDown} of ${api.requestsWhileDown} requests failed while the node was down` +
        (plan.target.role === 'control-plane' && downAt !== undefined ? ` (${api.failedBeforeDown} before HAProxy marked it DOWN, ${api.failedAfterDown} after)` : '') +
        (api.failed ? `; longest outage ${api.longestOutageSeconds} s` : '') +
        (api.failedDuringRecovery ? `; ${api.failedDuringRecovery} failed during the recovery` : '');
      measurements.push({ ...base, expected: plan.target.role === 'control-plane' ? '0 failures after DOWN' : '0 failures', seconds: api.firstFailureSeconds, verdict: bad === 0 ? 'pass' : 'fail', detail });
      if (plan.target.role === 'control-plane') notes.push(...admissionNotes(plan, tl, api.failedDuringRecovery));
      continue;
    }
    if (e.id === 'apiserver-ready' && !run.apiserverProbed) {
      measurements.push({ ...base, seconds: undefined, verdict: 'not observed', detail: `${plan.target.address} did not answer /readyz from here before the fault (only the VIP is reachable?): not measured` });
      continue;
    }
    if (e.id === 'etcd-leader' && e.informational) {
      const changed = ev['etcd-leader-changed'];
      measurements.push({
        ...base,
        seconds: changed ? sec(changed.t) : undefined,
        verdict: changed ? 'fail' : 'info',
        detail: changed ? changed.detail : `leader unchanged (${name(plan.etcd?.leader) ?? '?'}), term ${tl.etcd.termBefore ?? '?'} → ${tl.etcd.termAfter ?? '?'}`,
      });
      continue;
    }
    if (e.id === 'evictions-later') {
      measurements.push({ ...base, seconds: undefined, verdict: 'not waited', detail: `would take ${expectedText(e)} after the fault${plan.limits.evictionWaitSeconds ? '' : '; run with an eviction wait to watch them'}` });
      continue;
    }
    if (e.id === 'evictions-never') {
      measurements.push({ ...base, seconds: undefined, verdict: 'info' });
      continue;
    }
    if (e.id.startsWith('lease@') && e.informational) {
      const lease = e.id.slice('lease@'.length);
      const before = plan.leases.find((l) => l.name === lease)?.holderNode;
      const afterId = tl.leaseHolders[lease];
      const after = afterId ? holderNode(afterId) : undefined;
      measurements.push({ ...base, seconds: undefined, verdict: 'info', detail: after === before ? `stayed on ${before}` : `moved from ${before} to ${after}` });
      continue;
    }
    const event = ev[e.id];
    const seconds = event ? sec(e.phase === 'recovery' && restoreAt !== undefined ? event.t - restoreAt : event.t) : undefined;
    const takeover = ev['lease@kube-controller-manager'];
    if (e.id === 'node-notready' && takeover && plan.leases.some((l) => l.name === 'kube-controller-manager' && l.onTarget)) {
      // The bound from the measured takeover rather than the lease's whole window.
      const h = sec(takeover.t);
      const g = plan.timings.nodeMonitorGraceMs / 1000;
      const refined = { ...e, min: Math.round((h + g) * 10) / 10, max: Math.round((h + g + plan.timings.nodeMonitorPeriodMs / 1000 + TAKEOVER_SYNC_SECONDS) * 10) / 10 };
      const j = judge(refined, seconds);
      measurements.push({ ...base, expected: expectedText(refined), seconds, verdict: j.verdict, detail: [event?.detail, `counted from the controller-manager takeover at ${h} s`, j.note].filter(Boolean).join('; ') });
      continue;
    }
    // A window that moves with an earlier event seen before this one (the evictions count from the taint). That event
    // was seen up to a poll after it happened: its floor comes that much earlier, and "too early" is about it.
    const anchor = e.after && event ? ev[e.after.event] : undefined;
    const moved = anchor && e.after && anchor.t <= event!.t ? { at: sec(anchor.t), ...e.after } : undefined;
    const from = moved ? { ...e, min: Math.round((moved.at + moved.min - plan.limits.pollMs / 1000) * 10) / 10, max: Math.round((moved.at + moved.max) * 10) / 10 } : e;
    const j = judge(from, seconds, moved ? `after the ${moved.event} seen at ${moved.at} s` : 'after this fault');
    measurements.push({
      ...base,
      expected: expectedText(from),
      seconds,
      ...(e.phase === 'recovery' && event ? { sinceFault: sec(event.t) } : {}),
      verdict: e.phase === 'recovery' && !run.restore.attempted ? 'fail' : j.verdict,
      detail: [event?.detail, moved ? moved.basis.replace('{t}', String(moved.at)) : undefined, j.note].filter(Boolean).join('; ') || undefined,
    });
  }
  // Events worth a line although nothing bounds them.
  const extra: [string, string][] = [
    ['node-taint', 'the node controller taints the node NoExecute'],
    ['etcd-no-leader', 'a surviving etcd member reports no leader'],
    ['evictions-first', 'the first pod is marked for deletion'],
    ['replicas', 'the ReplicaSets are back to full strength'],
    ['pods-cleaned', 'the evicted pods are gone (kubelet confirmed)'],
  ];
  for (const [id, title] of extra) {
    const event = ev[id];
    if (!event || measurements.some((m) => m.id === id)) continue;
    const recovery = id === 'pods-cleaned';
    measurements.push({ id, title, phase: recovery ? 'recovery' : 'failure', seconds: sec(recovery && restoreAt !== undefined ? event.t - restoreAt : event.t), ...(recovery ? { sinceFault: sec(event.t) } : {}), expected: '—', verdict: 'info', detail: event.detail, basis: '' });
  }
  if (plan.kind === 'stop' && plan.target.role === 'control-plane') notes.push('stop kills the containers with SIGKILL: nothing releases its leader lease, so the handover waits for the lease to expire as after a crash.');
  if (tl.etcd.termAfter !== undefined && tl.etcd.termBefore !== undefined && plan.etcd?.leader !== plan.etcd?.targetMember && tl.etcd.termAfter > tl.etcd.termBefore) {
    notes.push(`the etcd term rose ${tl.etcd.termBefore} → ${tl.etcd.termAfter} although the failed member was a follower: an election happened (without pre-vote a rejoining member forces one).`);
  }
  if (run.faultError) notes.push(`the fault command failed: ${run.faultError}`);
  for (const [probe, message] of Object.entries(run.probeErrors)) notes.push(`probe ${probe} failed at least once: ${message}`);
  if (!run.restore.ok) notes.push(`RESTORE FAILED: ${run.restore.error ?? 'unknown error'} — bring ${plan.target.host} back by hand: ${plan.restore ? (plan.restore.where === 'ssh' ? `ssh ${plan.restore.host} '${plan.restore.command.display}'` : plan.restore.command.display) : '(no restore command)'}`);

  const ok = run.restore.ok && !run.cancelled && !measurements.some((m) => m.verdict === 'fail');
  return {
    title: `Failure drill: ${plan.kind} ${plan.target.host} (${plan.target.role})`,
    ok,
    cluster: plan.cluster,
    target: plan.target,
    kind: plan.kind,
    startedAt: run.startedAt,
    measurements,
    api,
    quorum: plan.etcd?.quorum,
    etcd: plan.etcd ? { leaderBefore: name(plan.etcd.leader), leaderAfter: name(tl.etcd.leaderAfter), termBefore: tl.etcd.termBefore, termAfter: tl.etcd.termAfter } : undefined,
    leases: plan.leases.map((l) => {
      const after = tl.leaseHolders[l.name];
      return { name: l.name, before: l.holderNode, after: after ? holderNode(after) : undefined };
    }),
    run,
    notes,
  };
}

const cell = (s: string | undefined): string => (s ?? '').replace(/\|/g, '\\|').replace(/\n/g, ' ');

export function renderDrillReport(r: DrillReport): string {
  const verdictText = r.ok ? 'PASSED' : r.run.cancelled ? 'CANCELLED' : 'FAILED';
  const out: string[] = [`# ${r.title} — ${verdictText}`, ''];
  const run = r.run;
  out.push(
    `Cluster ${r.cluster} · ${r.target.role === 'loadbalancer' ? 'balancer' : 'node'} ${r.target.node} (${r.target.address}) · started ${r.startedAt}` +
      (run.faultSeconds !== undefined ? ` · fault command took ${run.faultSeconds} s` : '') +
      (run.observedSeconds !== undefined ? ` · restore began ${run.observedSeconds} s after the fault` : '') +
      (run.restore.seconds !== undefined ? ` (restore command ${run.restore.seconds} s)` : '') +
      (run.recoverySeconds !== undefined ? ` · recovery watched ${run.recoverySeconds} s` : ''),
    '',
  );
  const table = (phase: 'failure' | 'recovery', heading: string) => {
    const rows = r.measurements.filter((m) => m.phase === phase);
    if (!rows.length) return;
    out.push(`## ${heading}`, '', '| measurement | measured | expected | verdict | detail |', '| --- | --- | --- | --- | --- |');
    for (const m of rows) {
      const measured = m.seconds === undefined ? '—' : `${m.seconds} s${m.sinceFault !== undefined ? ` (${m.sinceFault} s after the fault)` : ''}`;
      out.push(`| ${cell(m.title)} | ${measured} | ${cell(m.expected)} | ${m.verdict === 'fail' ? '**FAIL**' : m.verdict} | ${cell(m.detail)} |`);
    }
    out.push('');
  };
  const lb = r.target.role === 'loadbalancer';
  table('failure', lb ? 'During the fault (seconds since the fault)' : 'While the node is down (seconds since the fault)');
  table('recovery', lb ? 'After the restore (seconds since the restore began)' : 'Coming back (seconds since the restore began)');
  out.push('## The API through the VIP', '', `${r.api.requests} requests (each on a new connection, like a kubectl call), ${r.api.failed} failed; longest outage ${r.api.longestOutageSeconds} s${r.api.firstFailureSeconds !== undefined ? `; failures from ${r.api.firstFailureSeconds} s to ${r.api.lastFailureSeconds} s after the fault` : ''}.`, '');
  if (r.quorum || r.etcd) {
    out.push('## etcd', '');
    if (r.quorum) out.push(`- ${r.quorum}`);
    if (r.etcd) out.push(`- leader ${r.etcd.leaderBefore ?? '?'} → ${r.etcd.leaderAfter ?? '?'}, term ${r.etcd.termBefore ?? '?'} → ${r.etcd.termAfter ?? '?'}`);
    out.push('');
  }
  if (r.leases.length) out.push('## Leader leases', '', ...r.leases.map((l) => `- ${l.name}: ${l.before ?? '?'} → ${l.after ?? '?'}`), '');
  if (r.notes.length) out.push('## Notes', '', ...r.notes.map((n) => `- ${n}`), '');
  out.push('## Why these bounds', '');
  for (const m of r.measurements.filter((x) => x.basis)) out.push(`- **${m.title}**: ${m.basis.replace(/\.$/, '')}.${m.seed ? ` Seed: “${m.seed}”` : ''}`);
  out.push('');
  return out.join('\n');
}
