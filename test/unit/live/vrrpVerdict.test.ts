/**
 * What `status` prints and the balancer rows show of the VRRP pair (core/live/render.ts renderBalancers, the per-balancer
 * `VRRP …` line of vrrpVerdict.ts vrrpLine with keepalivedData.ts priorityBreakdown, and the VIP's problem with its
 * cause) for the four states a user meets: a healthy pair, a failing script that moved the VIP, a VIP stuck on a dead
 * HAProxy, and split brain — from keepalived's data dump as the probe parses it, without SSH. (Against two real
 * keepalived: keepalivedLive.test.ts; the rows in the editor: the lab's ui-balancers.test.ts.)
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { buildBalancer, buildBalancers, vipLine, type BalancerLive, type BalancersModel } from '../../../src/core/live/balancers';
import { priorityBreakdown, type VrrpInstanceData } from '../../../src/core/live/keepalivedData';
import { renderBalancers } from '../../../src/core/live/render';
import { vrrpLine } from '../../../src/core/live/vrrpVerdict';
import { instance, inv, LB1, LB2, type Side } from '../drill/balancerPair';

/** One balancer as the probe reads it: the pair's instance (MASTER 100 / BACKUP 90, chk_haproxy weight −20) with changes. */
function live(host: string, side: Side, over: Partial<VrrpInstanceData> = {}, failing = false): BalancerLive {
  const i = instance(host, side);
  const scripts = i.scripts.map((s) => ({ ...s, status: failing ? 'BAD' : 'GOOD' }));
  return buildBalancer(inv.hosts.find((h) => h.name === host)!, { holdsVip: side.holds, vipInterface: side.holds ? 'ens192' : undefined, keepalivedActive: side.keepalived ?? true, keepalivedState: i.state as never, haproxyActive: side.haproxy ?? true, instance: { ...i, scripts, ...over } }, undefined);
}

const pair = (a: BalancerLive, b: BalancerLive): BalancersModel => buildBalancers(inv, [a, b], 0);
const problems = (m: BalancersModel) => m.problems.map((p) => `${p.severity}: ${p.what}`);
/** Epoch seconds 1 800 000 000 on the clock keepalived's dump gives (UTC). */
const SINCE = new Date(1_800_000_000_000).toISOString().slice(11, 19);

test('a healthy pair: MASTER and BACKUP at their base priorities, no failing script, no problem', () => {
  const m = pair(live(LB1, { holds: true }), live(LB2, { holds: false }));
  assert.deepEqual(m.balancers.map(vrrpLine), ['MASTER · priority 100', 'BACKUP · priority 90']);
  assert.deepEqual(m.problems, []);
  assert.deepEqual(renderBalancers(m), [
    'BALANCERS',
    '  VIP 10.3.60.100 on labs-k8s-balancer (MASTER) · HAProxy up · no backends',
    '  labs-k8s-balancer 10.3.60.50 · holds the VIP on ens192 · keepalived active (MASTER) · HAProxy up · no backends',
    '    VRRP MASTER · priority 100',
    '  labs-k8s-balancer2 10.3.60.56 · standby · keepalived active (BACKUP) · HAProxy up · no backends',
    '    VRRP BACKUP · priority 90',
  ]);
});

test('HAProxy died on lb1 and its check failed: priority 80 = 100 − 20, the VIP moved to lb2; lb1 a standby with a warning', () => {
  const m = pair(live(LB1, { holds: false, haproxy: false, state: 'BACKUP', effective: 80 }, {}, true), live(LB2, { holds: true, state: 'MASTER' }));
  assert.equal(priorityBreakdown(m.balancers[0]!.vrrp!.instance!), '80 = 100 − 20 (chk_haproxy failing)');
  assert.equal(vrrpLine(m.balancers[0]!), 'BACKUP · priority 80 = 100 − 20 (chk_haproxy failing) · failing: chk_haproxy');
  assert.deepEqual(problems(m), ['warning: HAProxy is not running on balancer labs-k8s-balancer (standby)']);
  const text = renderBalancers(m);
  assert.equal(text[1], '  VIP 10.3.60.100 on labs-k8s-balancer2 (MASTER) · HAProxy up · no backends');
  assert.deepEqual(text.slice(2, 4), ['  labs-k8s-balancer 10.3.60.50 · standby · keepalived active (BACKUP) · HAProxy DOWN · no backends', '    VRRP BACKUP · priority 80 = 100 − 20 (chk_haproxy failing) · failing: chk_haproxy']);
  // a check of positive weight counts while it succeeds, and nopreempt is shown on the line
  const plus = { ...m.balancers[1]!, vrrp: { ...m.balancers[1]!.vrrp!, instance: { ...m.balancers[1]!.vrrp!.instance!, effectivePriority: 100, preempt: false, scripts: [{ name: 'chk_haproxy', weight: 10, status: 'GOOD', intervalSeconds: 2, fall: 1, rise: 1 }] } } };
  assert.equal(vrrpLine(plus), 'MASTER · priority 100 = 90 + 10 (chk_haproxy succeeding) · nopreempt');
});

test('a VIP stuck on a dead HAProxy: the weight too small (95 not below 90), the other in nopreempt, or the check not failing — critical, with the cause; moving when it will move', () => {
  const lb2 = live(LB2, { holds: false });
  const stuck = pair(live(LB1, { holds: true, haproxy: false, effective: 95, weight: -5 }, {}, true), lb2);
  assert.equal(vrrpLine(stuck.balancers[0]!), 'MASTER · priority 95 = 100 − 5 (chk_haproxy failing) · failing: chk_haproxy');
  assert.deepEqual(problems(stuck), [
    "critical: HAProxy is not running on balancer labs-k8s-balancer, which holds the VIP: API requests through the VIP fail; stuck: its priority 95 = 100 − 5 (chk_haproxy failing) is not below labs-k8s-balancer2's 90, so the VIP never moves (black hole) — a weight of -11 or lower would move it",
  ]);
  assert.equal(stuck.problems[0]!.about, 'vip', 'the VIP row carries it');
  assert.equal(vipLine(stuck), 'VIP 10.3.60.100 on labs-k8s-balancer (MASTER) · HAProxy DOWN · no backends');
  assert.equal(renderBalancers(stuck)[3], '    VRRP MASTER · priority 95 = 100 − 5 (chk_haproxy failing) · failing: chk_haproxy');

  const nopreempt = pair(live(LB1, { holds: true, haproxy: false, effective: 80 }, {}, true), live(LB2, { holds: false, nopreempt: true }));
  assert.match(nopreempt.problems[0]!.what, /; stuck: its priority fell to 80 = 100 − 20 \(chk_haproxy failing\), below labs-k8s-balancer2's 90, but labs-k8s-balancer2 runs with nopreempt and does not take the VIP from a live MASTER \(black hole\)$/);
  assert.equal(vrrpLine(nopreempt.balancers[1]!), 'BACKUP · priority 90 · nopreempt');

  const notYet = pair(live(LB1, { holds: true, haproxy: false }), lb2);
  assert.match(notYet.problems[0]!.what, /; keepalived's check chk_haproxy \(every 2 s, fall 1\) still succeeds there, so its priority stays 100 and the VIP does not move — the script does not check HAProxy, or has not run since HAProxy stopped$/);

  const moving = pair(live(LB1, { holds: true, haproxy: false, effective: 80 }, {}, true), lb2);
  assert.match(moving.problems[0]!.what, /; moving: its priority fell to 80 = 100 − 20 \(chk_haproxy failing\), below labs-k8s-balancer2's 90, so labs-k8s-balancer2 takes the VIP within its master-down interval \(3\.6 s\)$/);
  assert.equal(moving.problems[0]!.severity, 'critical', 'requests fail until it has moved');
});

test('split brain: both hold the VIP — blocked adverts, a different virtual_router_id, rejected authentication, or a VIP left by a killed keepalived — critical, with the cause', () => {
  const both = (a: Partial<VrrpInstanceData> = {}, b: Partial<VrrpInstanceData> = {}) => pair(live(LB1, { holds: true }, a), live(LB2, { holds: true, state: 'MASTER' }, b));
  const blocked = both();
  assert.deepEqual(blocked.balancers.map(vrrpLine), ['MASTER · priority 100', 'MASTER · priority 90']);
  assert.deepEqual(problems(blocked), [
    `critical: the VIP 10.3.60.100 is held by labs-k8s-balancer and labs-k8s-balancer2 at once (split brain): both MASTER (since labs-k8s-balancer ${SINCE}, labs-k8s-balancer2 ${SINCE}): they do not hear each other's adverts — VRRP (IP protocol 112) is blocked or lost between them`,
  ]);
  assert.equal(vipLine(blocked), 'VIP 10.3.60.100: held by labs-k8s-balancer and labs-k8s-balancer2 (split brain)');
  assert.deepEqual(renderBalancers(blocked).slice(1), [
    '  VIP 10.3.60.100: held by labs-k8s-balancer and labs-k8s-balancer2 (split brain)',
    '  labs-k8s-balancer 10.3.60.50 · holds the VIP on ens192 · keepalived active (MASTER) · HAProxy up · no backends',
    '    VRRP MASTER · priority 100',
    '  labs-k8s-balancer2 10.3.60.56 · holds the VIP on ens192 · keepalived active (MASTER) · HAProxy up · no backends',
    '    VRRP MASTER · priority 90',
  ]);
  assert.match(both({}, { vrid: 52 }).problems[0]!.what, /: their virtual_router_id differs \(labs-k8s-balancer 51, labs-k8s-balancer2 52\), so each ignores the other's adverts$/);
  assert.match(both({ stats: { advertsReceived: 0, advertsSent: 40, authErrors: 12, becameMaster: 1, releasedMaster: 0 } }).problems[0]!.what, /: labs-k8s-balancer rejected 12 advert\(s\) for their authentication — auth_type or auth_pass differs$/);
  const killed = pair(live(LB1, { holds: true, keepalived: false }), live(LB2, { holds: true, state: 'MASTER' }));
  assert.match(killed.problems.find((p) => p.about === 'vip')!.what, /\(split brain\): keepalived is not running on labs-k8s-balancer but the VIP is still on its interface \(a killed keepalived leaves it there\)$/);
});
