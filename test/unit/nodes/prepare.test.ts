/**
 * What the workflow decides before anything acts, over a scripted SSH transport that answers the probes the way
 * the lab's hosts do (the real path, with SSH, etcd and HAProxy, is test/lab/nodes.test.ts): which host the
 * cluster-side steps run on when the first control-plane node is dead, what is left out of the plan for a host
 * that does not answer, the reset's refusals, the forced path with the name typed back.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { parseInventory } from '../../../src/core/inventory/parse';
import type { Inventory } from '../../../src/core/inventory/types';
import { renderPlan } from '../../../src/core/plan/types';
import { phaseConfigs, phaseSources } from '../../../src/engine/inputs';
import { prepareNodeOperation, type NodeDeps } from '../../../src/engine/nodes';
import { ClusterHosts, type ClusterState } from './clusterHosts';

const text = readFileSync(join(__dirname, '../../../examples/labs-k8s/inventory.yaml'), 'utf8');
const inventory = parseInventory(text).inventory!;
/** The example with a fourth control-plane node: the smallest cluster where another unhealthy member leaves a safe removal. */
const inventory4: Inventory = { ...inventory, hosts: [...inventory.hosts, { name: 'labs-k8s-m04', address: '10.3.60.57', roles: ['control-plane'] }] };

type Cluster = Pick<ClusterState, 'down' | 'etcdDown' | 'nodes'>;

function deps(c: Cluster, inv: Inventory = inventory): NodeDeps {
  return {
    inventory: inv, inventoryText: text, ssh: new ClusterHosts(inv, c), become: () => undefined,
    joinInputs: async () => { throw new Error('not needed'); },
  };
}

const healthy = (): Cluster => ({ down: new Set(), etcdDown: new Set(), nodes: new Set(inventory.hosts.filter((h) => !h.roles.includes('loadbalancer')).map((h) => h.name)) });

test('the first control-plane node powered off: remove runs every cluster-side step on m02, none on m01, and says the reset is skipped', async () => {
  const c = healthy();
  c.down.add('labs-k8s-m01');
  c.etcdDown.add('labs-k8s-m01');
  const prep = await prepareNodeOperation(deps(c), { operation: 'remove', host: 'labs-k8s-m01' });
  assert.deepEqual(prep.refusals, []);
  const steps = prep.plan!.phases.flatMap((p) => p.steps);
  assert.ok(!steps.some((s) => s.host === 'labs-k8s-m01'));
  assert.ok(steps.filter((s) => s.about === 'labs-k8s-m01').every((s) => s.host === 'labs-k8s-m02'));
  const plan = renderPlan(prep.plan!);
  assert.match(plan, /etcdctl member remove 1 \(labs-k8s-m01\), from labs-k8s-m02's etcd/);
  assert.match(plan, /labs-k8s-m01 does not answer over SSH: .* its kubeadm reset is skipped/);
  assert.match(prep.facts.join('\n'), /after removing labs-k8s-m01: 2 voting, 2 healthy, quorum 2/);
  assert.doesNotMatch(prep.inventoryEdit!.text, /labs-k8s-m01/);
});

test('reset is refused while the host is an etcd member or a Node, and when it does not answer', async () => {
  const member = await prepareNodeOperation(deps(healthy()), { operation: 'reset', host: 'labs-k8s-m03' });
  assert.equal(member.plan, undefined);
  assert.match(member.refusals.join('\n'), /still etcd member 3/);
  assert.match(member.refusals.join('\n'), /still a Node of the cluster: remove it first/);
  const c = healthy();
  c.nodes.delete('labs-k8s-w02');
  const gone = await prepareNodeOperation(deps(c), { operation: 'reset', host: 'labs-k8s-w02' });
  assert.deepEqual(gone.refusals, []);
  assert.deepEqual(gone.plan!.phases.flatMap((p) => p.steps.map((s) => s.id)), ['reset-node/labs-k8s-w02/reset']);
  c.down.add('labs-k8s-w02');
  assert.match((await prepareNodeOperation(deps(c), { operation: 'reset', host: 'labs-k8s-w02' })).refusals.join('\n'), /does not answer over SSH: nothing can be reset there/);
});

test('another member unhealthy: refused; with the host\'s name typed back the removal is planned; a quorum loss never', async () => {
  // Three members, m02 dead: removing m03 would lose the quorum — refused, and force does not help.
  const c = healthy();
  c.etcdDown.add('labs-k8s-m02');
  const refused = await prepareNodeOperation(deps(c), { operation: 'remove', host: 'labs-k8s-m03', forceTyped: 'labs-k8s-m03' });
  assert.equal(refused.forceable, false);
  assert.match(refused.refusals.join('\n'), /would lose etcd's quorum/);

  // Four members, m02 dead: removing m03 keeps the quorum (3 left, 2 healthy, quorum 2) but needs the typed name.
  c.nodes.add('labs-k8s-m04');
  const unforced = await prepareNodeOperation(deps(c, inventory4), { operation: 'remove', host: 'labs-k8s-m03' });
  assert.equal(unforced.forceable, true);
  assert.match(unforced.refusals.join('\n'), /another member is unhealthy: labs-k8s-m02 \(unhealthy\)/);
  assert.equal(unforced.plan, undefined);
  const forced = await prepareNodeOperation(deps(c, inventory4), { operation: 'remove', host: 'labs-k8s-m03', forceTyped: 'labs-k8s-m03' });
  assert.deepEqual(forced.refusals, []);
  assert.ok(forced.plan!.phases.flatMap((p) => p.steps).some((s) => s.id === 'remove-node/labs-k8s-m01/etcd-member-labs-k8s-m03'));
});

test('replace of the dead first control-plane node: HAProxy loses it first, the new host joins with credentials from m02, and is added to HAProxy once joined', async () => {
  const c = healthy();
  c.down.add('labs-k8s-m01');
  c.etcdDown.add('labs-k8s-m01');
  const withSpare: Inventory = { ...inventory, hosts: [...inventory.hosts, { name: 'labs-k8s-m04', address: '10.3.60.57', roles: [] }] };
  const d: NodeDeps = {
    ...deps(c, withSpare),
    joinInputs: async (after) => ({ configs: phaseConfigs(after, undefined, 'vrrp-pass'), sources: await phaseSources(after, join(__dirname, '../../../examples/labs-k8s'), async () => '') }),
  };
  const prep = await prepareNodeOperation(d, { operation: 'replace', host: 'labs-k8s-m01', replacement: { name: 'labs-k8s-m04', address: '10.3.60.57' } });
  assert.deepEqual(prep.refusals, []);
  const phases = prep.plan!.phases;
  const ids = phases.flatMap((p) => p.steps.map((s) => s.id));
  assert.ok(!phases.flatMap((p) => p.steps).some((s) => s.host === 'labs-k8s-m01'), 'nothing on the dead node');
  const first = ids.indexOf('remove-node/labs-k8s-balancer/haproxy-without-labs-k8s-m01');
  const member = ids.indexOf('remove-node/labs-k8s-m02/etcd-member-labs-k8s-m01');
  const joinStep = ids.indexOf('join-control-plane/labs-k8s-m04/join');
  const added = ids.indexOf('remove-node/labs-k8s-balancer/haproxy-with-labs-k8s-m04');
  assert.ok(first === 0 && first < member && member < joinStep && joinStep < added, ids.join('\n'));
  for (const key of ['ca-hash', 'token', 'certificate-key']) assert.ok(ids.includes(`join-control-plane/labs-k8s-m02/${key}`), `${key} on m02: ${ids.join(', ')}`);
  const plan = renderPlan(prep.plan!);
  assert.match(plan, /haproxy.cfg with the backend labs-k8s-m02, labs-k8s-m03 \(checked/);
  assert.match(plan, /haproxy.cfg with the backend labs-k8s-m04, labs-k8s-m02, labs-k8s-m03 \(checked with haproxy -c, reloaded\); labs-k8s-m04 UP/);
  assert.equal((plan.match(/labs-k8s-m04 joins as a learner/g) ?? []).length, 1, 'the replacement\'s warning once, on its join, not on the credentials before it');
  assert.match(plan, /kubeadm join 10\.3\.60\.100:6443 --token \*\*\* .* --node-name labs-k8s-m04 --control-plane --certificate-key \*\*\* --apiserver-advertise-address 10\.3\.60\.57/);
  assert.match(prep.inventoryEdit!.diff, /^\+  - \{ name: labs-k8s-m04, address: 10\.3\.60\.57, roles: \[control-plane\] \}$/m);
});
