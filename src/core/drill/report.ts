/**
 * The drill's report: each measurement against its expectation (pass / fail / info), the API's
 * availability through the VIP, the quorum arithmetic, and how the restore went — as JSON (CLI
 * --json, tests) and as Markdown (the editor's report document, the CLI's text output).
 */
import { holderNode } from '../drain/controlPlaneGuard';
import { TAKEOVER_SYNC_SECONDS, type Expectation } from './expect';
import type { ApiSample, ObservedTimeline } from './observer';
import type { DrillPlan } from './plan';
import { inEnglish, t } from '../l10n';
import { detailOf } from './observer';

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
  /** The same report in English when the plan has an English twin (another language): what `drill --json` prints. */
  english?: DrillReport | undefined;
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
  if (e.min !== undefined && e.max !== undefined) return t('{0}–{1} s', e.min, e.max);
  if (e.max !== undefined) return t('≤ {0} s', e.max);
  return '—';
}

/**
 * Allowance below a floor. A poll sees an event up to one interval late, never early, and the clock starts before
 * the fault command runs, so a measured moment can only be later than the real one — except that an etcd or API
 * sample is stamped at the middle of its request.
 */
export const FLOOR_SLACK_SECONDS = 1.5;

function judge(e: Expectation, seconds: number | undefined, since = t('after this fault')): { verdict: Verdict; note?: string } {
  if (seconds === undefined) return { verdict: e.informational && e.phase === 'failure' ? 'not observed' : 'fail' };
  if (e.informational || e.max === undefined) return { verdict: e.phase === 'recovery' ? 'pass' : 'info' };
  if (seconds > e.max + e.slack) return { verdict: 'fail', note: t('slower than the {0} s bound (+{1} s polling slack)', e.max, e.slack) };
  // Every lower bound is a floor the settings impose (the checks, timeouts and grace periods must run out first):
  // earlier means the fault was not the one planned or a probe misread the state.
  const early = Math.min(e.slack, FLOOR_SLACK_SECONDS);
  if (e.min !== undefined && seconds < e.min - early) return { verdict: 'fail', note: t('faster than the {0} s floor (−{1} s slack): it cannot happen that early {2}', e.min, early, since) };
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
    return up && up.t < ready.t ? [`${b.host} ${t('{0} s', sec(up.t - restoreAt))}`] : [];
  });
  const when = ready && early.length ? t(' HAProxy admitted it ({0} after the restore began) before its own /readyz was ok ({1} s).', early.join(', '), sec(ready.t - restoreAt)) : '';
  const fix = !tcp.length
    ? ''
    : tcp.length === 1
    ? t(' {0} checks it over TCP, which admits kube-apiserver as soon as its port opens: `option httpchk GET /readyz` with `http-check expect status 200` and `check check-ssl verify none` waits for readiness.', tcp[0])
    : t(' {0} check it over TCP, which admits kube-apiserver as soon as its port opens: `option httpchk GET /readyz` with `http-check expect status 200` and `check check-ssl verify none` waits for readiness.', tcp.join(', '));
  if (failedDuringRecovery) return [t('{0} API request(s) through the VIP failed while {1} came back.{2}{3}', failedDuringRecovery, plan.target.host, when, fix)];
  if (when) return [t('no API request failed while {0} came back, but{1} Requests sent to it in between could fail.{2}', plan.target.host, when, fix)];
  return [];
}

export function buildDrillReport(plan: DrillPlan, tl: ObservedTimeline, run: RunFacts): DrillReport {
  const report = reportFor(plan, tl, run);
  const english = plan.english;
  if (english) report.english = inEnglish(() => reportFor(english, tl, run));
  return report;
}

/** The report in the catalogue's language. */
function reportFor(plan: DrillPlan, tl: ObservedTimeline, run: RunFacts): DrillReport {
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
        t('{0} of {1} requests failed during the fault', during, api.requestsWhileDown) +
        (moveAt !== undefined ? t(" ({0} until {1} s: the move + the probe's 2 s timeout; {2} after)", api.failedBeforeDown, sec(moveAt) + 2, api.failedAfterDown) : '') +
        t('; {0} during the way back', api.failedDuringRecovery) +
        (api.failed ? t('; longest outage {0} s', api.longestOutageSeconds) : '');
      measurements.push({ ...base, expected: t('≤ {0} failures, none after the move', allowed), seconds: api.firstFailureSeconds, verdict: ok ? 'pass' : 'fail', detail });
      continue;
    }
    if (e.id === 'vip-stays') {
      const back = ev['vip-back'];
      measurements.push({ ...base, seconds: back && restoreAt !== undefined ? sec(back.t - restoreAt) : undefined, verdict: back ? 'fail' : run.restore.ok ? 'pass' : 'fail', detail: back ? t('the VIP went back to {0} although it runs with nopreempt', plan.target.host) : t('stayed on {0} for the {1} s watched', tl.vipHolders.join(t(' and ')) || '?', plan.limits.restoreSeconds) });
      continue;
    }
    if (e.id === 'api') {
      const bad = plan.target.role === 'control-plane' ? (downAt === undefined ? api.failedBeforeDown : api.failedAfterDown) : api.failedBeforeDown + api.failedAfterDown;
      const detail =
        t('{0} of {1} requests failed while the node was down', api.failedBeforeDown + api.failedAfterDown, api.requestsWhileDown) +
        (plan.target.role === 'control-plane' && downAt !== undefined ? t(' ({0} before HAProxy marked it DOWN, {1} after)', api.failedBeforeDown, api.failedAfterDown) : '') +
        (api.failed ? t('; longest outage {0} s', api.longestOutageSeconds) : '') +
        (api.failedDuringRecovery ? t('; {0} failed during the recovery', api.failedDuringRecovery) : '');
      measurements.push({ ...base, expected: plan.target.role === 'control-plane' ? t('0 failures after DOWN') : t('0 failures'), seconds: api.firstFailureSeconds, verdict: bad === 0 ? 'pass' : 'fail', detail });
      if (plan.target.role === 'control-plane') notes.push(...admissionNotes(plan, tl, api.failedDuringRecovery));
      continue;
    }
    if (e.id === 'apiserver-ready' && !run.apiserverProbed) {
      measurements.push({ ...base, seconds: undefined, verdict: 'not observed', detail: t('{0} did not answer /readyz from here before the fault (only the VIP is reachable?): not measured', plan.target.address) });
      continue;
    }
    if (e.id === 'etcd-leader' && e.informational) {
      const changed = ev['etcd-leader-changed'];
      measurements.push({
        ...base,
        seconds: changed ? sec(changed.t) : undefined,
        verdict: changed ? 'fail' : 'info',
        detail: changed ? detailOf(changed) : t('leader unchanged ({0}), term {1} → {2}', name(plan.etcd?.leader) ?? '?', tl.etcd.termBefore ?? '?', tl.etcd.termAfter ?? '?'),
      });
      continue;
    }
    if (e.id === 'evictions-later') {
      measurements.push({ ...base, seconds: undefined, verdict: 'not waited', detail: plan.limits.evictionWaitSeconds ? t('would take {0} after the fault', expectedText(e)) : t('would take {0} after the fault; run with an eviction wait to watch them', expectedText(e)) });
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
      measurements.push({ ...base, seconds: undefined, verdict: 'info', detail: after === before ? t('stayed on {0}', String(before)) : t('moved from {0} to {1}', String(before), String(after)) });
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
      measurements.push({ ...base, expected: expectedText(refined), seconds, verdict: j.verdict, detail: [event && detailOf(event), t('counted from the controller-manager takeover at {0} s', h), j.note].filter(Boolean).join('; ') });
      continue;
    }
    // A window that moves with an earlier event seen before this one (the evictions count from the taint). That event
    // was seen up to a poll after it happened: its floor comes that much earlier, and "too early" is about it.
    const anchor = e.after && event ? ev[e.after.event] : undefined;
    const moved = anchor && e.after && anchor.t <= event!.t ? { at: sec(anchor.t), ...e.after } : undefined;
    const from = moved ? { ...e, min: Math.round((moved.at + moved.min - plan.limits.pollMs / 1000) * 10) / 10, max: Math.round((moved.at + moved.max) * 10) / 10 } : e;
    const j = judge(from, seconds, moved ? t('after the {0} seen at {1} s', moved.event, moved.at) : t('after this fault'));
    measurements.push({
      ...base,
      expected: expectedText(from),
      seconds,
      ...(e.phase === 'recovery' && event ? { sinceFault: sec(event.t) } : {}),
      verdict: e.phase === 'recovery' && !run.restore.attempted ? 'fail' : j.verdict,
      detail: [event && detailOf(event), moved ? moved.basis.replace('{t}', String(moved.at)) : undefined, j.note].filter(Boolean).join('; ') || undefined,
    });
  }
  // Events worth a line although nothing bounds them.
  const extra: [string, string][] = [
    ['node-taint', t('the node controller taints the node NoExecute')],
    ['etcd-no-leader', t('a surviving etcd member reports no leader')],
    ['evictions-first', t('the first pod is marked for deletion')],
    ['replicas', t('the ReplicaSets are back to full strength')],
    ['pods-cleaned', t('the evicted pods are gone (kubelet confirmed)')],
  ];
  for (const [id, title] of extra) {
    const event = ev[id];
    if (!event || measurements.some((m) => m.id === id)) continue;
    const recovery = id === 'pods-cleaned';
    measurements.push({ id, title, phase: recovery ? 'recovery' : 'failure', seconds: sec(recovery && restoreAt !== undefined ? event.t - restoreAt : event.t), ...(recovery ? { sinceFault: sec(event.t) } : {}), expected: '—', verdict: 'info', detail: detailOf(event), basis: '' });
  }
  if (plan.kind === 'stop' && plan.target.role === 'control-plane') notes.push(t('stop kills the containers with SIGKILL: nothing releases its leader lease, so the handover waits for the lease to expire as after a crash.'));
  if (tl.etcd.termAfter !== undefined && tl.etcd.termBefore !== undefined && plan.etcd?.leader !== plan.etcd?.targetMember && tl.etcd.termAfter > tl.etcd.termBefore) {
    notes.push(t('the etcd term rose {0} → {1} although the failed member was a follower: an election happened (without pre-vote a rejoining member forces one).', tl.etcd.termBefore, tl.etcd.termAfter));
  }
  if (run.faultError) notes.push(t('the fault command failed: {0}', run.faultError));
  for (const [probe, message] of Object.entries(run.probeErrors)) notes.push(t('probe {0} failed at least once: {1}', probe, message));
  if (!run.restore.ok) notes.push(t('RESTORE FAILED: {0} — bring {1} back by hand: {2}', run.restore.error ?? t('unknown error'), plan.target.host, plan.restore ? (plan.restore.where === 'ssh' ? `ssh ${plan.restore.host} '${plan.restore.command.display}'` : plan.restore.command.display) : t('(no restore command)')));

  const ok = run.restore.ok && !run.cancelled && !measurements.some((m) => m.verdict === 'fail');
  return {
    title: t('Failure drill: {0} {1} ({2})', plan.kind, plan.target.host, plan.target.role),
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
  const verdictText = r.ok ? t('PASSED') : r.run.cancelled ? t('CANCELLED') : t('FAILED');
  const out: string[] = [`# ${r.title} — ${verdictText}`, ''];
  const run = r.run;
  const lb = r.target.role === 'loadbalancer';
  out.push(
    (lb ? t('Cluster {0} · balancer {1} ({2}) · started {3}', r.cluster, r.target.node, r.target.address, r.startedAt) : t('Cluster {0} · node {1} ({2}) · started {3}', r.cluster, r.target.node, r.target.address, r.startedAt)) +
      (run.faultSeconds !== undefined ? t(' · fault command took {0} s', run.faultSeconds) : '') +
      (run.observedSeconds !== undefined ? t(' · restore began {0} s after the fault', run.observedSeconds) : '') +
      (run.restore.seconds !== undefined ? t(' (restore command {0} s)', run.restore.seconds) : '') +
      (run.recoverySeconds !== undefined ? t(' · recovery watched {0} s', run.recoverySeconds) : ''),
    '',
  );
  const table = (phase: 'failure' | 'recovery', heading: string) => {
    const rows = r.measurements.filter((m) => m.phase === phase);
    if (!rows.length) return;
    out.push(`## ${heading}`, '', `| ${t('measurement')} | ${t('measured')} | ${t('expected')} | ${t('verdict')} | ${t('detail')} |`, '| --- | --- | --- | --- | --- |');
    for (const m of rows) {
      const measured = m.seconds === undefined ? '—' : m.sinceFault !== undefined ? t('{0} s ({1} s after the fault)', m.seconds, m.sinceFault) : t('{0} s', m.seconds);
      out.push(`| ${cell(m.title)} | ${measured} | ${cell(m.expected)} | ${m.verdict === 'fail' ? `**${t('FAIL')}**` : verdictWord(m.verdict)} | ${cell(m.detail)} |`);
    }
    out.push('');
  };
  table('failure', lb ? t('During the fault (seconds since the fault)') : t('While the node is down (seconds since the fault)'));
  table('recovery', lb ? t('After the restore (seconds since the restore began)') : t('Coming back (seconds since the restore began)'));
  const span = r.api.firstFailureSeconds !== undefined ? t('; failures from {0} s to {1} s after the fault', r.api.firstFailureSeconds, r.api.lastFailureSeconds) : '';
  out.push(`## ${t('The API through the VIP')}`, '', t('{0} requests (each on a new connection, like a kubectl call), {1} failed; longest outage {2} s{3}.', r.api.requests, r.api.failed, r.api.longestOutageSeconds, span), '');
  if (r.quorum || r.etcd) {
    out.push('## etcd', '');
    if (r.quorum) out.push(`- ${r.quorum}`);
    if (r.etcd) out.push(`- ${t('leader {0} → {1}, term {2} → {3}', r.etcd.leaderBefore ?? '?', r.etcd.leaderAfter ?? '?', r.etcd.termBefore ?? '?', r.etcd.termAfter ?? '?')}`);
    out.push('');
  }
  if (r.leases.length) out.push(`## ${t('Leader leases')}`, '', ...r.leases.map((l) => `- ${l.name}: ${l.before ?? '?'} → ${l.after ?? '?'}`), '');
  if (r.notes.length) out.push(`## ${t('Notes')}`, '', ...r.notes.map((n) => `- ${n}`), '');
  out.push(`## ${t('Why these bounds')}`, '');
  for (const m of r.measurements.filter((x) => x.basis)) out.push(`- **${m.title}**: ${m.basis.replace(/\.$/, '')}.${m.seed ? t(' Seed: “{0}”', m.seed) : ''}`);
  out.push('');
  return out.join('\n');
}

/** A verdict as the report's table shows it (the JSON keeps the English word). */
function verdictWord(v: Verdict): string {
  const words: Record<Verdict, string> = { pass: t('pass'), fail: t('fail'), info: t('info'), 'not observed': t('not observed'), 'not waited': t('not waited') };
  return words[v];
}
