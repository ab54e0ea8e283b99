/**
 * The network partition of a control-plane node: the cut and its heal (nftables over SSH with a self-heal, or the
 * user's own commands), the quorum guard as for a power-off, and a silent host's bounds (HAProxy's checks time out).
 * The nft commands themselves run against a real kernel in the lab tier: the partition's cut and heal in
 * test/lab/partition.test.ts, the VRRP block (split brain) in test/lab/balancers.test.ts.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { generateHaproxyConfig } from '../../../src/core/generate/haproxy';
import { healCommand, partitionCutCommand, vrrpBlockCommand, parseNeighbour, holdsAddress } from '../../../src/core/drill/faults';
import { haproxyCfgInfo } from '../../../src/core/drill/params';
import { buildDrillPlan, renderDrillPlan, type DrillSnapshot } from '../../../src/core/drill/plan';
import { buildEtcd } from '../../../src/core/live/etcd';
import type { Node } from '../../../src/core/live/types';
import { loadInventory } from '../haproxy/helpers';

const inv = loadInventory('examples/labs-k8s/inventory.yaml');
const cfg = haproxyCfgInfo(generateHaproxyConfig(inv));
const ids: Record<string, string> = { m01: '8e9e05c52164694d', m02: '91bc3c398fb3c146', m03: 'fd422379fda50e48' };
const node = (name: string, ready = 'True'): Node => ({ metadata: { name }, status: { conditions: [{ type: 'Ready', status: ready }] } });

function snapshot(over: Partial<DrillSnapshot> = {}, down: string[] = []): DrillSnapshot {
  const members = Object.keys(ids);
  const etcd = buildEtcd(
    {
      members: members.map((m) => ({ ID: BigInt(`0x${ids[m]}`).toString(), name: `labs-k8s-${m}`, peerURLs: [`https://10.3.60.5${m.slice(-1)}:2380`], clientURLs: [`https://10.3.60.5${m.slice(-1)}:2379`] })),
      statuses: members.map((m) => (down.includes(m) ? { endpoint: `https://10.3.60.5${m.slice(-1)}:2379`, error: 'context deadline exceeded' } : { endpoint: `https://10.3.60.5${m.slice(-1)}:2379`, status: { header: { member_id: BigInt(`0x${ids[m]}`).toString() }, leader: BigInt(`0x${ids.m01}`).toString(), raftTerm: 4, raftIndex: 5000, raftAppliedIndex: 5000 } })),
    },
    'test',
    0,
    inv,
  );
  return {
    apiServer: 'https://10.3.60.100:6443',
    nodes: ['m01', 'm02', 'm03', 'w01', 'w02'].map((n) => node(`labs-k8s-${n}`, down.includes(n) ? 'Unknown' : 'True')),
    leaderLeases: [],
    kubeVersion: 'v1.34.12',
    componentArgs: {},
    etcd,
    balancers: [{ host: 'labs-k8s-balancer', cfg, method: 'socat', clockEpoch: 1, states: Object.fromEntries(['m01', 'm02', 'm03'].map((m) => [`kubernetes-master-nodes/labs-k8s-${m}`, { status: 'UP' }])) }],
    pods: [],
    replicaSets: [],
    targetCheck: { ok: true, detail: 'nft and the self-heal timer available' },
    ...over,
  };
}

test('partition over SSH: an nftables cut that keeps this SSH session and heals itself; the heal deletes the table', () => {
  const plan = buildDrillPlan(inv, { host: 'labs-k8s-m02', kind: 'partition' }, snapshot());
  assert.deepEqual(plan.refusals, []);
  assert.equal(plan.fault?.where, 'ssh');
  const cut = plan.fault?.where === 'ssh' ? plan.fault.command.display : '';
  assert.match(cut, /systemd-run --quiet --unit="\$unit" --on-active=\d+s/);
  assert.match(cut, /policy drop; iif lo accept; ip saddr @CIP@ tcp dport @SPORT@ accept/);
  assert.ok(cut.indexOf('systemd-run') < cut.indexOf('nft -f -'), 'the self-heal is armed before the cut');
  assert.match(plan.restore?.where === 'ssh' ? plan.restore.command.display : '', /nft delete table inet kubeadm_workbench_drill/);
  // a silent host: HAProxy's checks time out (power-off's bounds), etcd's leader (m01) is elsewhere
  const down = plan.expectations.find((e) => e.id === 'haproxy-down@labs-k8s-balancer')!;
  assert.deepEqual([down.min, down.max], [4, 12]);
  assert.equal(plan.expectations.find((e) => e.id === 'etcd-leader')?.informational, true);
  assert.match(renderDrillPlan(plan), /cut labs-k8s-m02's network in both directions with nftables \(the machine keeps running; this SSH session stays; it heals itself after \d+ s\)/);
  // the leader cut: a new one is elected within etcd's bound
  const leader = buildDrillPlan(inv, { host: 'labs-k8s-m01', kind: 'partition' }, snapshot());
  const e = leader.expectations.find((x) => x.id === 'etcd-leader')!;
  assert.deepEqual([e.min, e.max, e.informational], [1, 2.2, undefined]);
});

test('partition: your own cut and heal commands (local, no shell); refused like a power-off when quorum is at stake or nft is missing', () => {
  const own = buildDrillPlan(inv, { host: 'labs-k8s-m02', kind: 'partition', cutCommand: 'bash lab/lab.sh fault cut {host}', healCommand: 'bash lab/lab.sh fault restore {host}' }, snapshot({ targetCheck: undefined }));
  assert.deepEqual(own.refusals, []);
  assert.deepEqual(own.fault?.where === 'local' && own.fault.command.argv, ['bash', 'lab/lab.sh', 'fault', 'cut', 'labs-k8s-m02']);
  assert.deepEqual(own.restore?.where === 'local' && own.restore.command.argv, ['bash', 'lab/lab.sh', 'fault', 'restore', 'labs-k8s-m02']);
  assert.match(buildDrillPlan(inv, { host: 'labs-k8s-m02', kind: 'partition', cutCommand: 'x {host}' }, snapshot()).refusals.join('\n'), /the heal command is missing/);
  const quorum = buildDrillPlan(inv, { host: 'labs-k8s-m02', kind: 'partition' }, snapshot({}, ['m03']));
  assert.match(quorum.refusals.join('\n'), /etcd would lose quorum/);
  const noNft = buildDrillPlan(inv, { host: 'labs-k8s-m02', kind: 'partition' }, snapshot({ targetCheck: { ok: false, detail: 'cannot cut its network with nftables: nft (the nftables package) is not installed' } }));
  assert.match(noNft.refusals.join('\n'), /labs-k8s-m02: cannot cut its network with nftables: nft \(the nftables package\) is not installed/);
});

test('the fault commands: VRRP blocked both ways, the heal idempotent, the probes parsed', () => {
  assert.match(vrrpBlockCommand(60).display, /chain input \{ type filter hook input priority -300; policy accept; ip protocol 112 drop; \}/);
  assert.match(vrrpBlockCommand(10).display, /--on-active=30s/, 'the self-heal never comes sooner than 30 s');
  assert.match(partitionCutCommand(120).text, /sed -n 's\/\^SSH_CONNECTION=\/\/p'/);
  assert.match(healCommand().display, /nft delete table inet kubeadm_workbench_drill 2>\/dev\/null \|\| true; systemctl stop 'kubeadm-workbench-heal-\*\.timer'/);
  assert.equal(parseNeighbour('10.3.60.100 dev ens192 lladdr 0A:00:00:00:00:56 REACHABLE\n'), '0a:00:00:00:00:56');
  assert.equal(parseNeighbour('10.3.60.100 dev ens192 FAILED\n'), undefined);
  assert.equal(holdsAddress('2: ens192    inet 10.3.60.100/24 scope global secondary ens192\\', '10.3.60.100'), true);
  assert.equal(holdsAddress('2: ens192    inet 10.3.60.1000/24 scope global ens192\\', '10.3.60.100'), false);
});
