/**
 * The balancers' live model from what the commands print on a Debian balancer (`ip -o addr`, systemctl, Keepalived's
 * journal line, HAProxy's `show stat`), read through the same runner path the status verb and the Inventory view use.
 * The lab test (test/lab/live) runs the same path against the lab's balancers.
 */
import { test } from 'node:test';
import * as assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { generateHaproxyConfig } from '../../../src/core/generate/haproxy';
import { parseInventory } from '../../../src/core/inventory/parse';
import type { Inventory } from '../../../src/core/inventory/types';
import { parseVrrpProbe, vipLine } from '../../../src/core/live/balancers';
import { renderBalancers } from '../../../src/core/live/render';
import { readBalancers, type RootRunner } from '../../../src/engine/balancers';

const root = join(__dirname, '../../..');
const example: Inventory = parseInventory(readFileSync(join(root, 'examples/labs-k8s/inventory.yaml'), 'utf8')).inventory!;
// The lab's pair: the example's balancer as MASTER and a second one as BACKUP.
const inv: Inventory = { ...example, hosts: [...example.hosts, { name: 'labs-k8s-balancer2', address: '10.3.60.56', roles: ['loadbalancer'], vrrp: { state: 'BACKUP', priority: 90, interface: 'host0' } }] };
const cfgText = generateHaproxyConfig(inv);
const vip = inv.cluster.controlPlaneEndpoint.split(':')[0]!;
const lbs = inv.hosts.filter((h) => h.roles.includes('loadbalancer'));
const cps = inv.hosts.filter((h) => h.roles.includes('control-plane'));

const HEADER = '# pxname,svname,qcur,qmax,scur,smax,slim,stot,bin,bout,dreq,dresp,ereq,econ,eresp,wretr,wredis,status,weight,act,bck,chkfail,chkdown,lastchg,downtime,qlimit,pid,iid,sid,throttle,lbtot,tracked,type,rate,rate_lim,rate_max,check_status,check_code,check_duration';

function addrs(host: { address: string }, withVip: boolean): string {
  return [
    '1: lo    inet 127.0.0.1/8 scope host lo\\       valid_lft forever preferred_lft forever',
    `2: host0@if5    inet ${host.address}/24 brd 10.3.60.255 scope global host0\\       valid_lft forever preferred_lft forever`,
    ...(withVip ? [`2: host0@if5    inet ${vip}/32 scope global host0\\       valid_lft forever preferred_lft forever`] : []),
  ].join('\n');
}

interface LbState {
  vip: boolean;
  keepalived: 'active' | 'inactive';
  state: 'MASTER' | 'BACKUP';
  haproxy: 'active' | 'inactive' | 'failed';
  down?: string[];
}

function runner(states: Record<string, LbState>): RootRunner {
  return async (host, cmd) => {
    const s = states[host]!;
    const out = (stdout: string, code = 0) => ({ code, stdout, stderr: '' });
    if (cmd.text.startsWith('ip -o addr')) {
      return out(`${addrs(inv.hosts.find((h) => h.name === host)!, s.vip)}\n### keepalived\n${s.keepalived}\nVRRP_Instance(VI_1) Entering ${s.state} STATE\n### haproxy\n${s.haproxy}\n`);
    }
    if (cmd.text.startsWith('cat -- ')) return out(cfgText);
    if (cmd.text.includes('command -v socat')) return out(s.haproxy === 'active' ? 'socat\n1764500000\n' : 'journal\n1764500000\n');
    if (cmd.text.includes('show stat')) {
      const rows = cps.map((c) => `kubernetes-master-nodes,${c.name},0,0,0,3,,120,1,1,,0,,0,0,0,0,${s.down?.includes(c.name) ? 'DOWN' : 'UP'},1,1,0,3,1,12,0,,1,3,1,,40,,2,0,,3,${s.down?.includes(c.name) ? 'L4TOUT' : 'L4OK'},,2001`);
      return out([HEADER, ...rows, ''].join('\n'));
    }
    return out('', 127);
  };
}

test('ip -o addr, Keepalived and HAProxy units: who holds the VIP, on which interface, what Keepalived says', () => {
  const p = parseVrrpProbe(`${addrs(lbs[0]!, true)}\n### keepalived\nactive\nVRRP_Instance(VI_1) Entering MASTER STATE\n### haproxy\nactive\n`, vip);
  assert.deepEqual(p, { holdsVip: true, vipInterface: 'host0', keepalivedActive: true, keepalivedState: 'MASTER', haproxyActive: true });
  const q = parseVrrpProbe(`${addrs(lbs[1]!, false)}\n### keepalived\nactive\n### haproxy\ninactive\n`, vip);
  assert.deepEqual(q, { holdsVip: false, vipInterface: undefined, keepalivedActive: true, keepalivedState: undefined, haproxyActive: false });
});

test("keepalived's data dump in the probe's output: the VIP's instance, its state over the journal's", () => {
  const dump = ['### keepalived-data', '------< VRRP Topology >------', ' VRRP Instance = VI_K8S_API', '   State = BACKUP', '   Virtual Router ID = 51', '   Priority = 100', '   Effective priority = 80', `     ${vip}/24 dev host0 scope global`, '   Tracked scripts :', '     chk_haproxy weight -20', '------< VRRP Scripts >------', ' VRRP Script = chk_haproxy', '   Status = BAD', '### keepalived-stats', ''].join('\n');
  const p = parseVrrpProbe(`${addrs(lbs[0]!, false)}\n### keepalived\nactive\nVRRP_Instance(VI_1) Entering MASTER STATE\n${dump}### haproxy\ninactive\n`, vip);
  assert.equal(p.keepalivedState, 'BACKUP');
  assert.equal(p.keepalivedActive, true);
  assert.deepEqual([p.instance?.effectivePriority, p.instance?.scripts.map((s) => `${s.name} ${s.weight} ${s.status}`)], [80, ['chk_haproxy -20 BAD']]);
});

test('healthy pair: the VIP on the MASTER, every backend UP, no problem', async () => {
  const m = await readBalancers(runner({ [lbs[0]!.name]: { vip: true, keepalived: 'active', state: 'MASTER', haproxy: 'active' }, [lbs[1]!.name]: { vip: false, keepalived: 'active', state: 'BACKUP', haproxy: 'active' } }), inv);
  assert.deepEqual(m.holders, [lbs[0]!.name]);
  assert.deepEqual(m.problems, []);
  assert.equal(vipLine(m), `VIP ${vip} on ${lbs[0]!.name} (MASTER) · HAProxy up · backends ${cps.length}/${cps.length} UP`);
  assert.equal(m.balancers[0]!.servers.length, cps.length);
});

test('HAProxy stopped on the MASTER → the VIP on the BACKUP; a backend DOWN there degrades, on the standby it warns', async () => {
  const m = await readBalancers(
    runner({
      [lbs[0]!.name]: { vip: false, keepalived: 'active', state: 'BACKUP', haproxy: 'inactive' },
      [lbs[1]!.name]: { vip: true, keepalived: 'active', state: 'MASTER', haproxy: 'active', down: [cps[2]!.name] },
    }),
    inv,
  );
  assert.deepEqual(m.holders, [lbs[1]!.name]);
  assert.match(vipLine(m), new RegExp(`^VIP ${vip.replace(/\./g, '\\.')} on ${lbs[1]!.name} \\(MASTER\\) · HAProxy up · backends ${cps.length - 1}/${cps.length} UP$`));
  assert.deepEqual(m.problems.map((p) => `${p.severity}: ${p.what}`), [
    `warning: HAProxy is not running on balancer ${lbs[0]!.name} (standby)`,
    `critical: HAProxy on ${lbs[1]!.name}: backend kubernetes-master-nodes server ${cps[2]!.name} (${cps[2]!.address}) is DOWN (L4TOUT)`,
  ]);
  const text = renderBalancers(m).join('\n');
  assert.match(text, new RegExp(`${lbs[1]!.name} .* holds the VIP on host0 · keepalived active \\(MASTER\\)`));
  assert.match(text, new RegExp(`kubernetes-master-nodes/${cps[2]!.name} ${cps[2]!.address.replace(/\./g, '\\.')} · DOWN \\(L4TOUT\\)`));
});

test('no balancer holding the VIP, or two at once, is critical', async () => {
  const none = await readBalancers(runner({ [lbs[0]!.name]: { vip: false, keepalived: 'inactive', state: 'BACKUP', haproxy: 'active' }, [lbs[1]!.name]: { vip: false, keepalived: 'active', state: 'BACKUP', haproxy: 'active' } }), inv);
  assert.ok(none.problems.some((p) => p.severity === 'critical' && p.what === `no balancer holds the VIP ${vip}`));
  const two = await readBalancers(runner({ [lbs[0]!.name]: { vip: true, keepalived: 'active', state: 'MASTER', haproxy: 'active' }, [lbs[1]!.name]: { vip: true, keepalived: 'active', state: 'MASTER', haproxy: 'active' } }), inv);
  assert.ok(two.problems.some((p) => p.severity === 'critical' && /split brain/.test(p.what)));
});
