/**
 * The balancer drills without a lab: the plan from the pair's numbers (the lab's: MASTER 100, BACKUP 90, advert_int 1,
 * chk_haproxy interval 2 weight −20), the refusals (the other balancer unhealthy, the VIP elsewhere, weights that never
 * move it, split brain already), and the observer + report on a timeline like the lab's (VIP on balancer2 3.6 s after
 * the power-off; the hand measurement: ≈ 3.5 s against 3.65 s).
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { masterDown, skew } from '../../../src/core/drill/balancerExpect';
import { DrillObserver, type Observation } from '../../../src/core/drill/observer';
import { buildDrillPlan, renderDrillPlan, type DrillRequest } from '../../../src/core/drill/plan';
import { buildDrillReport, renderDrillReport, type RunFacts } from '../../../src/core/drill/report';
import { healthy, inv, LB1, LB2, snapshot } from './balancerPair';

const powerOff: DrillRequest = { host: LB1, kind: 'power-off', powerOffCommand: 'bash lab/lab.sh fault power-off {host}', powerOnCommand: 'bash lab/lab.sh fault power-on {host}' };
const facts = (over: Partial<RunFacts> = {}): RunFacts => ({ startedAt: '2026-12-04T00:00:00Z', faultSeconds: 0.3, observedSeconds: 10, restore: { ok: true, seconds: 4, attempted: true }, recoverySeconds: 12, cancelled: false, probeErrors: {}, ...over });
const byId = (p: { expectations: { id: string; min?: number; max?: number }[] }) => Object.fromEntries(p.expectations.map((e) => [e.id, e]));

test('the seed formula: Master_Down_Interval = 3 × advert_int + (256 − priority)/256 s', () => {
  assert.equal(masterDown(1, 90), 3 + 166 / 256);
  assert.equal(Math.round(masterDown(1, 90) * 100) / 100, 3.65);
  assert.equal(skew(1, 90), 166 / 256);
});

test('plans from the pair as it runs: each fault with its bounds, the node that watches the ARP entry, the failures allowed', () => {
  const off = buildDrillPlan(inv, powerOff, healthy());
  assert.deepEqual(off.refusals, []);
  assert.equal(off.target.role, 'loadbalancer');
  assert.deepEqual([off.vrrp?.holder, off.vrrp?.taker, off.vrrp?.neighbour], [LB1, LB2, 'labs-k8s-w01']);
  // silent holder: [MDI − advert_int, MDI] = [2.65, 3.65]; the ARP entry follows within a second
  assert.deepEqual([byId(off)['vip-moved']?.min, byId(off)['vip-moved']?.max], [2.65, 3.65]);
  assert.deepEqual([byId(off)['neighbour-moved']?.min, byId(off)['neighbour-moved']?.max], [2.65, 4.65]);
  // requests whose SYN and its retry 1 s later both meet the silent holder: ⌈(3.65 + 1 − 1) / 0.5⌉ + 1
  assert.equal(off.vrrp?.allowedFailures, 9);
  assert.equal(byId(off)['vip-back']?.max, 300, 'the boot is not bounded: watched for the restore limit');
  const stop = buildDrillPlan(inv, { host: LB1, kind: 'stop' }, healthy());
  assert.deepEqual([byId(stop)['vip-moved']?.min, byId(stop)['vip-moved']?.max], [0, 0.65], 'priority 0: the skew alone');
  assert.match(stop.fault?.where === 'ssh' ? stop.fault.command.display : '', /systemctl stop keepalived\.service/);
  const hap = buildDrillPlan(inv, { host: LB1, kind: 'haproxy' }, healthy());
  // interval 2 × fall 1 + 3.65 = 5.65; at the earliest the check fails at once: 0 + 3.65 − 1
  assert.deepEqual([byId(hap)['vip-moved']?.min, byId(hap)['vip-moved']?.max], [2.65, 5.65]);
  // back: rise 1 × interval 2 + lb1's own master-down interval 3 + (256 − 100)/256 = 5.61
  assert.equal(byId(hap)['vip-back']?.max, 5.61);
  const split = buildDrillPlan(inv, { host: LB2, kind: 'split-brain' }, { ...healthy(), targetCheck: { ok: true, detail: '' } });
  assert.deepEqual(split.refusals, []);
  assert.deepEqual([byId(split)['split-brain']?.min, byId(split)['split-brain']?.max], [2.65, 3.65]);
  assert.equal(byId(split)['split-brain-detected']?.max, 8.65, 'within 5 s of the second MASTER');
  assert.equal(split.vrrp?.allowedFailures, 0);
  assert.match(split.fault?.where === 'ssh' ? split.fault.command.display : '', /ip protocol 112 drop/);
  const md = renderDrillPlan(hap);
  assert.match(md, /# Failure drill: haproxy labs-k8s-balancer \(balancer\)/);
  assert.match(md, /black hole check: 100 − 20 \(chk_haproxy\) = 80 < labs-k8s-balancer2's 90/);
  assert.match(md, /labs-k8s-balancer2: priority 90, advert_int 1 s, Master_Down_Interval 3\.65 s, preempt/);
});

test('refused before running: weights that never move the VIP (with the numbers), the other balancer unhealthy, the VIP elsewhere', () => {
  const weak = buildDrillPlan(inv, { host: LB1, kind: 'haproxy' }, snapshot({ [LB1]: { holds: true, weight: -5 }, [LB2]: { holds: false, weight: -5 } }));
  assert.match(weak.refusals.join('\n'), /refused before running: when HAProxy dies labs-k8s-balancer's priority falls to 100 − 5 \(chk_haproxy\) = 95, not below labs-k8s-balancer2's 90: the VIP would never move \(black hole\); a weight of -11 or lower on chk_haproxy moves it/);
  // its plan's expectations say the same, never "drops to 95 < 90"
  const moved = weak.expectations.find((e) => e.id === 'vip-moved')!;
  assert.match(moved.basis, /priority drops only to 95, not below labs-k8s-balancer2's 90: labs-k8s-balancer2 never takes the VIP/);
  assert.doesNotMatch(weak.expectations.map((e) => e.basis).join('\n'), /95 < 90/);
  assert.match(renderDrillPlan(weak), /REFUSED — nothing will be done/);
  // the same pair may still be powered off: the weights do not matter when the holder is gone
  assert.deepEqual(buildDrillPlan(inv, powerOff, snapshot({ [LB1]: { holds: true, weight: -5 }, [LB2]: { holds: false, weight: -5 } })).refusals, []);
  const nopreempt = buildDrillPlan(inv, { host: LB1, kind: 'haproxy' }, snapshot({ [LB1]: { holds: true }, [LB2]: { holds: false, nopreempt: true } }));
  assert.match(nopreempt.refusals.join('\n'), /labs-k8s-balancer2 runs with nopreempt: it does not take the VIP from a live MASTER/);
  for (const [other, why] of [
    [{ holds: false, haproxy: false }, /HAProxy is not running on labs-k8s-balancer2: the other balancer must be healthy/],
    [{ holds: false, keepalived: false }, /keepalived is not running on labs-k8s-balancer2/],
    [{ holds: false, state: 'FAULT' }, /keepalived on labs-k8s-balancer2 is in FAULT/],
  ] as const) assert.match(buildDrillPlan(inv, powerOff, snapshot({ [LB1]: { holds: true }, [LB2]: other })).refusals.join('\n'), why);
  assert.match(buildDrillPlan(inv, { ...powerOff, host: LB2 }, healthy()).refusals[0] ?? '', /labs-k8s-balancer2 does not hold the VIP \(labs-k8s-balancer does\): failing it moves nothing — run the drill on labs-k8s-balancer/);
  assert.match(buildDrillPlan(inv, powerOff, snapshot({ [LB1]: { holds: true }, [LB2]: { holds: true } })).refusals[0] ?? '', /split brain\) already/);
  assert.match(buildDrillPlan(inv, { host: LB1, kind: 'partition' }, healthy()).refusals[0] ?? '', /for a balancer run split-brain/);
  assert.match(buildDrillPlan(inv, { host: 'labs-k8s-m01', kind: 'haproxy' }, healthy()).refusals[0] ?? '', /haproxy is a balancer drill/);
});

function observer(plan: ReturnType<typeof buildDrillPlan>): DrillObserver {
  return new DrillObserver({ role: 'loadbalancer', targetNode: plan.target.host, balancers: [], leases: [], evictable: [], replicaSets: [], waitForEvictions: false, vrrp: { kind: plan.kind === 'split-brain' ? 'split-brain' : 'move', target: plan.target.host, taker: plan.vrrp!.taker, macs: plan.vrrp!.macs, neighbour: plan.vrrp!.neighbour, preempt: plan.vrrp!.sides.find((s) => s.host === plan.target.host)!.preempt } });
}

test('power-off of the holder: the VIP on the other balancer at 3.6 s, the ARP entry with it, the failures only during the move; back after the power-on', () => {
  const plan = buildDrillPlan(inv, powerOff, healthy());
  const o = observer(plan);
  const feed = (x: Observation) => o.observe(x);
  for (let t = 0; t < 20_000; t += 500) feed({ source: 'api', t, ok: !(t >= 500 && t <= 2500) && !(t >= 12_000 && t < 12_500), ms: 10 });
  feed({ source: 'vip', t: 100, balancer: LB1, holds: true });
  feed({ source: 'vip', t: 100, balancer: LB2, holds: false });
  feed({ source: 'neighbour', t: 100, host: 'labs-k8s-w01', mac: '0a:00:00:00:00:50' });
  feed({ source: 'vip', t: 1600, balancer: LB1, holds: false }); // no answer: powered off
  assert.equal(o.has('vip-moved'), false);
  feed({ source: 'vip', t: 3600, balancer: LB2, holds: true });
  feed({ source: 'neighbour', t: 3700, host: 'labs-k8s-w01', mac: '0a:00:00:00:00:56' });
  assert.equal(o.failureComplete(), true);
  o.restoreStarted(10_000);
  feed({ source: 'vip', t: 18_000, balancer: LB1, holds: true });
  feed({ source: 'vip', t: 18_200, balancer: LB2, holds: false });
  feed({ source: 'neighbour', t: 18_300, host: 'labs-k8s-w01', mac: '0a:00:00:00:00:50' });
  assert.equal(o.recoveryComplete(), true);
  const r = buildDrillReport(plan, o.timeline(), facts());
  const m = Object.fromEntries(r.measurements.map((x) => [x.id, x]));
  assert.deepEqual([m['vip-moved']?.seconds, m['vip-moved']?.expected, m['vip-moved']?.verdict], [3.6, '2.65–3.65 s', 'pass']);
  assert.deepEqual([m['neighbour-moved']?.seconds, m['neighbour-moved']?.verdict], [3.7, 'pass']);
  assert.deepEqual([m.api?.verdict, m.api?.expected], ['pass', '≤ 9 failures, none after the move']);
  assert.match(m.api!.detail!, /^5 of 20 requests failed during the fault \(5 until 5\.6 s.*; 1 during the way back/);
  assert.deepEqual([m['vip-back']?.seconds, m['vip-back']?.verdict], [8.2, 'pass']);
  assert.equal(r.ok, true);
  assert.match(renderDrillReport(r), /## During the fault \(seconds since the fault\)[\s\S]*\| the VIP moves to labs-k8s-balancer2 \| 3\.6 s \| 2\.65–3\.65 s \| pass \| on labs-k8s-balancer2 \|/);
  // a request failing after the move fails the drill
  const late = observer(plan);
  for (const x of [{ source: 'vip', t: 100, balancer: LB1, holds: false }, { source: 'vip', t: 3600, balancer: LB2, holds: true }, { source: 'api', t: 7000, ok: false, ms: 2000 }] as Observation[]) late.observe(x);
  assert.equal(Object.fromEntries(buildDrillReport(plan, late.timeline(), facts()).measurements.map((x) => [x.id, x])).api?.verdict, 'fail');
});

test('split brain: the second MASTER, its detection by the live view read within 5 s (or not), healed', () => {
  const plan = buildDrillPlan(inv, { host: LB2, kind: 'split-brain' }, healthy());
  const run = (detectAt: number) => {
    const o = observer(plan);
    o.observe({ source: 'vip', t: 100, balancer: LB1, holds: true });
    o.observe({ source: 'vip', t: 100, balancer: LB2, holds: false });
    o.observe({ source: 'vip', t: 3500, balancer: LB2, holds: true });
    o.observe({ source: 'vrrp-verdict', t: detectAt, splitBrain: 'the VIP 10.3.60.100 is held by labs-k8s-balancer and labs-k8s-balancer2 at once (split brain): both MASTER …' });
    assert.equal(o.failureComplete(), true);
    o.restoreStarted(12_000);
    o.observe({ source: 'vip', t: 12_800, balancer: LB2, holds: false });
    return Object.fromEntries(buildDrillReport(plan, o.timeline(), facts()).measurements.map((x) => [x.id, x]));
  };
  const ok = run(5200);
  assert.deepEqual([ok['split-brain']?.seconds, ok['split-brain']?.verdict], [3.5, 'pass']);
  assert.deepEqual([ok['split-brain-detected']?.seconds, ok['split-brain-detected']?.verdict], [5.2, 'pass']);
  assert.match(ok['split-brain-detected']!.detail!, /counted from the second MASTER seen at 3\.5 s/);
  assert.deepEqual([ok['split-brain-healed']?.seconds, ok['split-brain-healed']?.verdict], [0.8, 'pass']);
  assert.equal(run(10_000)['split-brain-detected']?.verdict, 'fail', '6.5 s after the second MASTER is too late');
});

test('nopreempt: the VIP stays on the other balancer after the restore, and the report says so', () => {
  const plan = buildDrillPlan(inv, { host: LB1, kind: 'stop' }, snapshot({ [LB1]: { holds: true, nopreempt: true }, [LB2]: { holds: false, nopreempt: true } }));
  assert.ok(plan.expectations.some((e) => e.id === 'vip-stays'));
  const o = observer(plan);
  o.observe({ source: 'vip', t: 100, balancer: LB1, holds: false });
  o.observe({ source: 'vip', t: 600, balancer: LB2, holds: true });
  o.restoreStarted(5000);
  assert.equal(o.recoveryComplete(), false, 'nothing to wait for: the watch runs to its limit');
  const m = Object.fromEntries(buildDrillReport(plan, o.timeline(), facts()).measurements.map((x) => [x.id, x]));
  assert.deepEqual([m['vip-stays']?.verdict], ['pass']);
  assert.match(m['vip-stays']!.detail!, /stayed on labs-k8s-balancer2/);
});
