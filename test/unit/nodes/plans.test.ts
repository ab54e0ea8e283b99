import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { parseInventory } from '../../../src/core/inventory/parse';
import { generateHaproxyConfig } from '../../../src/core/generate/haproxy';
import { lineDiff, removeHostText, replaceHostText } from '../../../src/core/nodes/inventoryEdit';
import { removeControlPlanePhases, removeWorkerPhases, resetPhases } from '../../../src/core/nodes/plans';
import { renderPlan, type PhasePlan } from '../../../src/core/plan/types';
import { inventoryAfter } from '../../../src/engine/nodes';

const text = readFileSync(join(__dirname, '../../../examples/labs-k8s/inventory.yaml'), 'utf8');
const inv = parseInventory(text).inventory!;
const host = (n: string) => inv.hosts.find((h) => h.name === n)!;

function everyStepChecked(phases: PhasePlan[]): void {
  for (const s of phases.flatMap((p) => p.steps)) assert.ok(s.check || s.rerun, `${s.id} has neither a check nor a reason to re-run`);
  const ids = phases.flatMap((p) => p.steps.map((s) => s.id));
  assert.equal(new Set(ids).size, ids.length, 'step ids are unique (the ledger is keyed by them)');
}

test('a dead control-plane node: nothing runs on it, HAProxy first, the member removed by ID on the helper, a note instead of the reset', () => {
  const target = host('labs-k8s-m01');
  const after = inventoryAfter(inv, { operation: 'remove', host: target.name });
  const phases = removeControlPlanePhases({ inventory: inv, target, helper: 'labs-k8s-m02', targetAnswers: false, memberId: 'a1b2c3d4e5f60718' }, after, generateHaproxyConfig(after));
  everyStepChecked(phases);
  const steps = phases.flatMap((p) => p.steps);
  assert.ok(!steps.some((s) => s.host === target.name), 'no step on the dead node');
  assert.equal(phases[0]!.steps[0]!.host, 'labs-k8s-balancer', 'HAProxy is changed before the API server stops');
  const plan = renderPlan({ fingerprint: 'x', phases });
  assert.match(plan, /kubectl --kubeconfig \/etc\/kubernetes\/admin.conf -n kube-system exec etcd-labs-k8s-m02 -- etcdctl .* member remove a1b2c3d4e5f60718/);
  assert.match(plan, /haproxy -c -q -f \/etc\/haproxy\/haproxy.cfg.kubeadm-workbench && mv .* && systemctl reload haproxy/);
  assert.match(plan, /does not answer over SSH: .* kubeadm reset is skipped/);
  assert.doesNotMatch(after.hosts.map((h) => h.name).join(' '), /labs-k8s-m01/);
  assert.doesNotMatch(generateHaproxyConfig(after), /10\.3\.60\.51/);
});

test('a control-plane node that answers: its API server, controller-manager and scheduler stop (not etcd), then it is reset', () => {
  const target = host('labs-k8s-m03');
  const after = inventoryAfter(inv, { operation: 'remove', host: target.name });
  const phases = removeControlPlanePhases({ inventory: inv, target, helper: 'labs-k8s-m01', targetAnswers: true, memberId: 'ff' }, after, generateHaproxyConfig(after));
  everyStepChecked(phases);
  const onTarget = phases.flatMap((p) => p.steps).filter((s) => s.host === target.name).map((s) => s.id);
  assert.deepEqual(onTarget, ['remove-node/labs-k8s-m03/stop-control-plane', 'remove-node/labs-k8s-m03/reset']);
  const stop = renderPlan({ fingerprint: 'x', phases: [{ ...phases[1]!, steps: phases[1]!.steps.slice(0, 1) }] });
  assert.match(stop, /kube-apiserver kube-controller-manager kube-scheduler/);
  assert.doesNotMatch(stop, /etcd\.yaml/);
  const order = phases[1]!.steps.map((s) => s.id.split('/')[2]);
  assert.deepEqual(order, ['stop-control-plane', 'leases-labs-k8s-m03', 'drain-labs-k8s-m03', 'etcd-member-labs-k8s-m03', 'delete-node-labs-k8s-m03', 'reset']);
});

test('a worker: drained with a finite timeout, deleted, reset with the CNI and iptables clean-up', () => {
  const phases = removeWorkerPhases({ inventory: inv, target: host('labs-k8s-w02'), helper: 'labs-k8s-m01', targetAnswers: true, drainTimeoutSeconds: 120 });
  everyStepChecked(phases);
  const plan = renderPlan({ fingerprint: 'x', phases });
  assert.match(plan, /kubectl --kubeconfig \/etc\/kubernetes\/admin.conf drain labs-k8s-w02 --ignore-daemonsets --delete-emptydir-data --timeout=120s/);
  assert.doesNotMatch(plan, /--force|--disable-eviction/);
  assert.match(plan, /kubeadm reset -f .*find \/etc\/cni\/net.d -mindepth 1 -delete.*for t in iptables ip6tables.*grep -viE "kube-\|flannel\|cni-\|calico"/);
  // containerd watches /etc/cni/net.d: with the folder gone a node joined again stayed NotReady until it restarted.
  assert.match(plan, /find \/etc\/cni\/net.d -mindepth 1 -delete; \}.*systemctl restart containerd/);
  everyStepChecked(resetPhases('labs-k8s-w02'));
});

test('the inventory edit keeps every other byte; the diff shows the change', () => {
  const removed = removeHostText(text, 'labs-k8s-w02');
  assert.equal(removed, text.replace('  - { name: labs-k8s-w02, address: 10.3.60.55, roles: [worker] }\n', ''));
  const replaced = replaceHostText(text, 'labs-k8s-m01', { name: 'labs-k8s-m04', address: '10.3.60.57' });
  assert.equal(replaced, text.replace('{ name: labs-k8s-m01, address: 10.3.60.51,', '{ name: labs-k8s-m04, address: 10.3.60.57,'));
  assert.ok(replaced.startsWith('# The seed topology'), 'comments kept');
  const diff = lineDiff(text, replaced);
  assert.match(diff, /^-  - \{ name: labs-k8s-m01, address: 10\.3\.60\.51, roles: \[control-plane\] \}$/m);
  assert.match(diff, /^\+  - \{ name: labs-k8s-m04, address: 10\.3\.60\.57, roles: \[control-plane\] \}$/m);
  const block = 'hosts:\n  # the first\n  - name: a\n    address: 1.1.1.1 # keep\n    roles: [control-plane]\n  - name: b\n    address: 1.1.1.2\n    roles: [worker]\n';
  assert.equal(removeHostText(block, 'b'), 'hosts:\n  # the first\n  - name: a\n    address: 1.1.1.1 # keep\n    roles: [control-plane]\n');
  assert.equal(replaceHostText(block, 'a', { name: 'x y', address: '1.1.1.9' }), block.replace('name: a', 'name: x y').replace('1.1.1.1', '1.1.1.9'));
  assert.throws(() => removeHostText(text, 'nope'), /not a host/);
});
