/**
 * A balancer drill is restored whatever happens once its fault was attempted: the engine's runner (engine/drill.ts, the
 * one the CLI's `drill` and the editor's Run Failure Drill… share) over a scripted SSH transport that plays the pair,
 * cancelled or failing mid-observation — HAProxy started again on the holder, the split-brain drill's nftables table
 * deleted — and the report saying so. (The node drills' cancel: test/unit/workflows/drillWorkflow.test.ts and
 * test/vscode/suite/drill.test.ts.)
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { buildDrillPlan, type DrillPlan } from '../../../src/core/drill/plan';
import { renderDrillReport } from '../../../src/core/drill/report';
import type { RemoteCommand } from '../../../src/core/ssh/command';
import { RunOutput } from '../../../src/core/ssh/runLog';
import type { ExecResult } from '../../../src/core/ssh/transport';
import { runDrill, type DrillApi } from '../../../src/engine/drill';
import { healthy, inv, LB1, LB2 } from './balancerPair';

const VIP = '10.3.60.100';
const addrs = (holds: boolean) => `2: ens192    inet 10.3.60.50/24 brd 10.3.60.255 scope global ens192\n${holds ? `2: ens192    inet ${VIP}/24 scope global secondary ens192\n` : ''}`;
const api: DrillApi = { server: `https://${VIP}:6443`, get: async () => ({ status: 200, body: 'ok' }) };

interface Pair {
  /** Every command sent, in order: `host: display`. */
  sent: string[];
  lines: string[];
}

/**
 * The pair over SSH: the plan's fault and restore commands answer as `fault`/`restore` say, `ip -o -4 addr show` says
 * who holds the VIP (`holders`: the VIP never moves), anything else (the live view's read, the neighbour entry) answers
 * nothing useful. `onFault` runs once the fault was sent.
 */
async function run(plan: DrillPlan, o: { holders: string[]; fault?: ExecResult; onFault?: () => void; signal?: AbortSignal }): Promise<Pair & { report: Awaited<ReturnType<typeof runDrill>> }> {
  const pair: Pair = { sent: [], lines: [] };
  const ok = (stdout = ''): ExecResult => ({ code: 0, signal: null, stdout, stderr: '' });
  const exec = async (host: string, cmd: RemoteCommand): Promise<ExecResult> => {
    pair.sent.push(`${host}: ${cmd.display}`);
    if (plan.fault?.where === 'ssh' && cmd.text === plan.fault.command.text) {
      o.onFault?.();
      return o.fault ?? ok();
    }
    if (plan.restore?.where === 'ssh' && cmd.text === plan.restore.command.text) return ok();
    if (cmd.text.startsWith('ip -o -4 addr show')) return ok(addrs(o.holders.includes(host)));
    return { code: 1, signal: null, stdout: '', stderr: 'not played here' };
  };
  const output = new RunOutput();
  output.addSink((l) => pair.lines.push(l.text));
  const report = await runDrill({ inventory: inv, ssh: { exec, close: async () => undefined }, api, probe: api, become: () => undefined, output }, plan, o.signal ? { signal: o.signal } : {});
  return { ...pair, report };
}

/** A unit stopped or started (the live view's read only asks `systemctl is-active`). */
const UNIT_ACTION = /systemctl (stop|start) /;
/** The split-brain drill's heal: its table deleted and checked gone (the block deletes a leftover one first too). */
const HEAL = /nft delete table inet kubeadm_workbench_drill .*the drill table is still there/;

/** The index of the first command sent to `host` matching `re` (−1: never sent). */
const sentAt = (p: Pair, host: string, re: RegExp) => p.sent.findIndex((s) => s.startsWith(`${host}: `) && re.test(s));

test('haproxy drill cancelled while the VIP has not moved yet: HAProxy is started again on the holder, and the report says the drill was cancelled and restored', async () => {
  const plan = buildDrillPlan(inv, { host: LB1, kind: 'haproxy' }, healthy());
  assert.deepEqual(plan.refusals, []);
  const cancel = new AbortController();
  const p = await run(plan, { holders: [LB1], onFault: () => setTimeout(() => cancel.abort(), 600), signal: cancel.signal });
  const stopped = sentAt(p, LB1, /systemctl stop haproxy\.service/);
  const started = sentAt(p, LB1, /systemctl start haproxy\.service/);
  assert.ok(stopped >= 0 && started > stopped, `HAProxy stopped then started on ${LB1}: ${p.sent.filter((s) => UNIT_ACTION.test(s)).join(' | ')}`);
  assert.equal(sentAt(p, LB2, UNIT_ACTION), -1, `nothing was done to ${LB2}`);
  const r = p.report;
  assert.equal(r.run.cancelled, true);
  assert.deepEqual([r.run.restore.attempted, r.run.restore.ok, r.ok], [true, true, false]);
  assert.equal(r.run.recoverySeconds, undefined, 'a cancel skips the watch of the way back, never the restore');
  assert.ok(r.run.observedSeconds! < 5, `the observation stopped at the cancel (${r.run.observedSeconds} s), not at its ${plan.limits.observeSeconds} s limit`);
  assert.ok(p.lines.some((l) => /\] restore: start HAProxy on labs-k8s-balancer/.test(l)), p.lines.join('\n'));
  const md = renderDrillReport(r);
  assert.match(md, /^# Failure drill: haproxy labs-k8s-balancer \(loadbalancer\) — CANCELLED/);
  assert.match(md, /restore began \d+(\.\d)? s after the fault \(restore command \d+(\.\d)? s\)/);
  assert.doesNotMatch(md, /RESTORE FAILED/);
  assert.equal(r.measurements.find((m) => m.id === 'vip-moved')?.verdict, 'fail', 'the move was not seen');
});

test('split-brain drill whose second MASTER never comes: the observation ends at its limit, FAILED, and the nftables table is deleted', async () => {
  const plan = buildDrillPlan(inv, { host: LB2, kind: 'split-brain' }, { ...healthy(), targetCheck: { ok: true, detail: '' } });
  assert.deepEqual(plan.refusals, []);
  // the observation's limit (Master_Down_Interval + 5 s + 10 s on the lab) shortened: the VIP stays on lb1 alone
  const p = await run({ ...plan, limits: { ...plan.limits, observeSeconds: 1 } }, { holders: [LB1] });
  const blocked = sentAt(p, LB2, /ip protocol 112 drop/);
  const healed = sentAt(p, LB2, HEAL);
  assert.ok(blocked >= 0 && healed > blocked, `VRRP blocked then the table deleted on ${LB2}: ${p.sent.filter((s) => /\bnft\b/.test(s)).join(' | ')}`);
  assert.equal(sentAt(p, LB1, /\bnft\b/), -1, `nothing was done to ${LB1}`);
  const r = p.report;
  assert.deepEqual([r.run.cancelled, r.run.restore.attempted, r.run.restore.ok, r.ok], [false, true, true, false]);
  assert.equal(r.measurements.find((m) => m.id === 'split-brain')?.verdict, 'fail', 'no second MASTER');
  // one MASTER after the restore: lb2 never became one, so the heal is seen at once
  assert.equal(r.measurements.find((m) => m.id === 'split-brain-healed')?.verdict, 'pass');
  const md = renderDrillReport(r);
  assert.match(md, /^# Failure drill: split-brain labs-k8s-balancer2 \(loadbalancer\) — FAILED/);
  assert.match(md, /restore began \d+(\.\d)? s after the fault \(restore command \d+(\.\d)? s\)/);
  assert.doesNotMatch(md, /RESTORE FAILED/);
});

test('split-brain drill whose fault command fails half-way: the table it may have loaded is deleted all the same, and the report names the failure', async () => {
  const plan = buildDrillPlan(inv, { host: LB2, kind: 'split-brain' }, { ...healthy(), targetCheck: { ok: true, detail: '' } });
  const p = await run(plan, { holders: [LB1], fault: { code: 1, signal: null, stdout: '', stderr: 'Error: Could not process rule: No such file or directory' } });
  assert.ok(sentAt(p, LB2, /ip protocol 112 drop/) >= 0 && sentAt(p, LB2, HEAL) > sentAt(p, LB2, /ip protocol 112 drop/), p.sent.join(' | '));
  const r = p.report;
  assert.deepEqual([r.run.restore.attempted, r.run.restore.ok, r.ok], [true, true, false]);
  assert.match(r.run.faultError ?? '', /exited 1: Error: Could not process rule/);
  assert.ok(r.run.observedSeconds! < 2, `nothing was observed after the failed fault (${r.run.observedSeconds} s)`);
  assert.ok(r.notes.some((n) => /^the fault command failed: /.test(n)), r.notes.join('\n'));
});
