/**
 * The balancers' VRRP verdict against two real keepalived 2.2.7 (test/unit/live/vrrpPair.ts): the data dump read with
 * the product's command, the priority arithmetic as keepalived does it, a stuck VIP (weight too small: the black hole)
 * that really stays, a move that really happens within interval × fall + Master_Down_Interval, the failback, and split
 * brain with VRRP blocked between them — each verdict next to what keepalived actually did. VRRPv3 with adverts every
 * 0.25 s: the seed's formulas at a quarter of the seconds (≈ 12 s for the file).
 */
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Inventory } from '../../../src/core/inventory/types';
import { buildBalancer, buildBalancers, type BalancersModel } from '../../../src/core/live/balancers';
import { DATA_LINES, keepalivedDumpCommand, parseKeepalivedDump, priorityBreakdown, splitDump } from '../../../src/core/live/keepalivedData';
import { requireNetns } from '../haproxy/helpers';
import { tempDir } from '../../tempDir';
import { ADDRESSES, config, VIP, VrrpPair, within, type Side } from './vrrpPair';

requireNetns();
const ADV = 0.25;
const pair = new VrrpPair();
const inv: Inventory = {
  cluster: { name: 'vrrp', kubernetesVersion: '1.34.0', controlPlaneEndpoint: `${VIP}:6443`, podSubnet: '10.244.0.0/16', serviceSubnet: '10.96.0.0/12', cni: 'flannel' },
  ssh: {},
  hosts: [
    { name: 'lb1', address: ADDRESSES.lb1, roles: ['loadbalancer'], vrrp: { state: 'MASTER', priority: 100, interface: 'ens192' } },
    { name: 'lb2', address: ADDRESSES.lb2, roles: ['loadbalancer'], vrrp: { state: 'BACKUP', priority: 90, interface: 'ens192' } },
  ],
};
const checkOk: Record<Side, boolean> = { lb1: true, lb2: true };

/** What the product reads on both balancers now (HAProxy "runs" while the check file exists). */
function read(): BalancersModel {
  return buildBalancers(
    inv,
    (['lb1', 'lb2'] as const).map((side) => {
      const d = splitDump(pair.exec(side, keepalivedDumpCommand().text));
      const instance = parseKeepalivedDump(d.data, d.stats)[0];
      const holds = pair.holdsVip(side);
      return buildBalancer(inv.hosts.find((h) => h.name === side)!, { holdsVip: holds, vipInterface: holds ? 'ens192' : undefined, keepalivedActive: true, keepalivedState: instance?.state as never, haproxyActive: checkOk[side], instance }, undefined);
    }),
    Date.now(),
  );
}
const mdi = (priority: number) => 3 * ADV + ((256 - priority) * ADV) / 256;

before(async () => {
  pair.setUp();
  pair.start('lb1', config('lb1', { state: 'MASTER', priority: 100, weight: -5 }));
  pair.start('lb2', config('lb2', { state: 'BACKUP', priority: 90, weight: -5 }));
  assert.ok((await within(8000, () => pair.holdsVip('lb1') && !pair.holdsVip('lb2'))) !== undefined, 'lb1 never took the VIP alone');
});
after(() => pair.tearDown());

test('the data dump the product reads: state, priorities, scripts and the master-down timer of the seed formula', () => {
  const m = read();
  assert.deepEqual(m.holders, ['lb1']);
  assert.deepEqual(m.problems, []);
  const lb2 = m.balancers[1]!.vrrp!.instance!;
  assert.equal(lb2.state, 'BACKUP');
  assert.equal(lb2.masterRouter, ADDRESSES.lb1);
  assert.deepEqual([lb2.vrid, lb2.priority, lb2.effectivePriority, lb2.advertSeconds, lb2.preempt], [51, 90, 90, ADV, true]);
  assert.deepEqual(lb2.scripts.map((s) => [s.name, s.weight, s.status, s.intervalSeconds, s.fall, s.rise]), [['chk_haproxy', -5, 'GOOD', 1, 1, 1]]);
  // Master_Down_Interval = 3 × advert_int + skew, skew = (256 − priority)/256 × advert_int (VRRPv3; × 1 s in v2)
  assert.ok(Math.abs(lb2.masterDownMs! - mdi(90) * 1000) < 1, `${lb2.masterDownMs} ms vs ${mdi(90) * 1000}`);
});

test("the dump's password and script command lines never leave the host (the filter is grep -E on the host)", () => {
  const dir = tempDir('kw-dump-');
  const sample = ['------< VRRP Topology >------', ' VRRP Instance = VI_1', '   State = MASTER', '   Authentication type = SIMPLE_PASSWORD', '   Password = s3cr3t!', '   Priority = 100', '------< VRRP Scripts >------', ' VRRP Script = chk', "   Command = '/usr/bin/curl' '-u' 'admin:hunter2' 'http://127.0.0.1:8404'", '   Status = BAD', ''].join('\n');
  writeFileSync(join(dir, 'keepalived.data'), sample);
  const kept = execFileSync('grep', ['-E', DATA_LINES, join(dir, 'keepalived.data')], { encoding: 'utf8' });
  assert.doesNotMatch(kept, /s3cr3t|hunter2|Password|Command/);
  assert.match(kept, /State = MASTER[\s\S]*Priority = 100[\s\S]*Status = BAD/);
});

test('HAProxy dies on the holder, weight −5: stuck (100 − 5 = 95, not below 90), and keepalived indeed keeps the VIP', async () => {
  pair.failCheck('lb1');
  checkOk.lb1 = false;
  assert.ok((await within(4000, () => read().balancers[0]!.vrrp!.instance!.scripts[0]!.status === 'BAD')) !== undefined, 'the check never failed');
  const m = read();
  assert.equal(priorityBreakdown(m.balancers[0]!.vrrp!.instance!), '95 = 100 − 5 (chk_haproxy failing)');
  const p = m.problems.find((x) => /HAProxy is not running on balancer lb1/.test(x.what));
  assert.equal(p?.severity, 'critical');
  assert.match(p!.what, /stuck: its priority 95 = 100 − 5 \(chk_haproxy failing\) is not below lb2's 90, so the VIP never moves \(black hole\) — a weight of -11 or lower would move it/);
  // what keepalived does: nothing, well past lb2's master-down interval
  await new Promise((r) => setTimeout(r, (mdi(90) + 4 * ADV) * 1000));
  assert.ok(pair.holdsVip('lb1') && !pair.holdsVip('lb2'));
});

test('weight −20 (reloaded): the VIP moves within interval × fall + Master_Down_Interval, and back after the check recovers (preempt)', async () => {
  pair.reload('lb1', config('lb1', { state: 'MASTER', priority: 100, weight: -20 }));
  pair.reload('lb2', config('lb2', { state: 'BACKUP', priority: 90, weight: -20 }));
  // the bound: the check's next run (interval 1 s, fall 1) + lb2's master-down interval, + 1 s for the reload itself
  const moved = await within((1 * 1 + mdi(90) + 1) * 1000, () => pair.holdsVip('lb2') && !pair.holdsVip('lb1'));
  assert.ok(moved !== undefined, `the VIP did not move within ${1 + mdi(90) + 1} s`);
  const m = read();
  assert.deepEqual(m.holders, ['lb2']);
  assert.equal(priorityBreakdown(m.balancers[0]!.vrrp!.instance!), '80 = 100 − 20 (chk_haproxy failing)');
  assert.ok(!m.problems.some((x) => x.severity === 'critical'), JSON.stringify(m.problems));
  // failback: the check passes at its next run (rise 1), then lb1 preempts after its own master-down interval
  pair.failCheck('lb1', false);
  checkOk.lb1 = true;
  const back = await within((1 + mdi(100) + 1) * 1000, () => pair.holdsVip('lb1') && !pair.holdsVip('lb2'));
  assert.ok(back !== undefined, `no failback within ${1 + mdi(100) + 1} s`);
});

test('VRRP blocked between them: split brain (both MASTER), its cause named; healed: one MASTER again', async () => {
  pair.blockVrrp('lb2');
  try {
    const both = await within((mdi(90) + 1) * 1000, () => pair.holdsVip('lb1') && pair.holdsVip('lb2'));
    assert.ok(both !== undefined, `lb2 did not become MASTER within ${mdi(90) + 1} s`);
    const m = read();
    const p = m.problems.find((x) => /split brain/.test(x.what));
    assert.equal(p?.severity, 'critical');
    assert.match(p!.what, /held by lb1 and lb2 at once \(split brain\): both MASTER \(since lb1 \d\d:\d\d:\d\d, lb2 \d\d:\d\d:\d\d\): they do not hear each other's adverts — VRRP \(IP protocol 112\) is blocked or lost between them/);
  } finally {
    pair.blockVrrp('lb2', false);
  }
  // healed: lb2 hears lb1's higher priority at its next advert and steps down
  assert.ok((await within((ADV + 1) * 1000, () => pair.holdsVip('lb1') && !pair.holdsVip('lb2'))) !== undefined, 'still two holders after the heal');
  assert.deepEqual(read().problems, []);
});
