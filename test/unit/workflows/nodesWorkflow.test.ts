/**
 * The nodes workflow (Remove from Cluster…, Replace…, Reset Host… and the CLI's remove, replace, reset) answered
 * from a script, over the example cluster's hosts played below SSH (test/unit/nodes/clusterHosts.ts): a refusal
 * comes before any step acts on a host, a forced removal needs the host's name typed back, and the inventory edit
 * is offered after a run that ended well — never after a failed or cancelled one.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { parseInventory } from '../../../src/core/inventory/parse';
import type { Inventory } from '../../../src/core/inventory/types';
import { phaseConfigs, phaseSources } from '../../../src/engine/inputs';
import { nodesWorkflow, type NodesWorkflowInput } from '../../../src/engine/workflows/nodesWorkflow';
import { ClusterHosts, type ClusterState } from '../nodes/clusterHosts';
import { ScriptedUi, type Script } from './scriptedUi';
import { tempDir } from '../../tempDir';

const text = readFileSync(join(__dirname, '../../../examples/labs-k8s/inventory.yaml'), 'utf8');
const inventory = parseInventory(text).inventory!;
const inventory4: Inventory = { ...inventory, hosts: [...inventory.hosts, { name: 'labs-k8s-m04', address: '10.3.60.57', roles: ['control-plane'] }] };

/** What changes a host: every command but the read-only questions of the preparation. */
const ACTS = /drain |delete '?node|member remove|kubeadm reset|haproxy|manifests/;

async function run(script: Script, request: NodesWorkflowInput['request'], state: Partial<ClusterState> = {}, inv = inventory, extra: Partial<NodesWorkflowInput> = {}, seen?: (ssh: ClusterHosts) => void) {
  const ui = new ScriptedUi(script);
  const ssh = new ClusterHosts(inv, state);
  seen?.(ssh);
  const applied: string[] = [];
  const outcome = await nodesWorkflow(ui, {
    deps: {
      inventory: inv, inventoryText: text, ssh,
      joinInputs: async (after) => ({ configs: phaseConfigs(after, undefined, 'vrrp-pass'), sources: await phaseSources(after, join(__dirname, '../../../examples/labs-k8s'), async () => '') }),
    },
    loginUser: () => 'root',
    request,
    run: { stateDir: join(tempDir('kw-nodes-wf-'), 'state'), ssh, maxParallelHosts: 4, again: { resume: 'r', startOver: 's' } },
    inventoryEdit: { file: 'inventory.yaml', question: 'Write inventory.yaml?', action: 'Write', apply: async (t) => (applied.push(t), 'inventory.yaml written.') },
    hostKeys: ssh,
    ...extra,
  });
  return { ui, ssh, outcome, applied };
}

const approveAll: Script = { confirm: (r) => r.actions[0] };

test('the quorum guard says no: refused in one modal before any step acts on a host, no plan offered', async () => {
  // Three members, m02's etcd down: removing m03 would lose the quorum.
  const { ui, ssh, outcome } = await run(approveAll, { operation: 'remove', host: 'labs-k8s-m03' }, { etcdDown: new Set(['labs-k8s-m02']) });
  assert.equal(outcome.kind, 'refused');
  assert.ok(ui.transcript.includes(`error (modal): ${(outcome as { message: string }).message}`), ui.transcript.join('\n'));
  assert.match((outcome as { message: string }).message, /^labs-k8s-m03: remove refused; nothing was done:\n {2}- removing labs-k8s-m03 would lose etcd's quorum/);
  assert.equal(ui.confirms.length, 0, 'no plan offered to run');
  assert.equal(ui.runs.length, 0);
  assert.deepEqual(ssh.log.filter((l) => ACTS.test(l)), [], 'only questions were asked of the hosts');
  assert.match(ui.documents.get('remove-labs-k8s-m03-found.txt') ?? '', /after removing labs-k8s-m03/);

  // A host that is not in the inventory: refused before any host is asked anything.
  const unknown = await run(approveAll, { operation: 'remove', host: 'labs-k8s-m09' });
  assert.equal(unknown.outcome.kind, 'refused');
  assert.deepEqual(unknown.ssh.log, []);
});

test('another member unhealthy: the removal runs only with the host\'s name typed back; --yes is not a name', async () => {
  const state = () => ({ etcdDown: new Set(['labs-k8s-m02']), nodes: new Set(['labs-k8s-m01', 'labs-k8s-m02', 'labs-k8s-m03', 'labs-k8s-m04', 'labs-k8s-w01', 'labs-k8s-w02']) });
  const req = { operation: 'remove' as const, host: 'labs-k8s-m03' };
  const wrong = await run({ ...approveAll, input: () => 'labs-k8s-m02' }, req, state(), inventory4);
  assert.equal(wrong.outcome.kind, 'not-confirmed');
  assert.ok(wrong.ui.transcript.includes('input: Force the remove of labs-k8s-m03'), wrong.ui.transcript.join('\n'));
  assert.match(wrong.ui.messages('error')[0]!, /another member is unhealthy: labs-k8s-m02 \(unhealthy\)/);
  assert.match(wrong.ui.messages('error').at(-1)!, /not confirmed; nothing was done/);
  assert.equal(wrong.ui.confirms.length, 0, 'no plan offered');

  const yes = await run(approveAll, req, state(), inventory4, { forceName: '' });
  assert.equal(yes.outcome.kind, 'not-confirmed');
  assert.ok(!yes.ui.transcript.some((t) => t.startsWith('input:')), 'the name given up front is not asked again');

  // The right name: the plan with the member removal is offered (declined here: nothing runs).
  const right = await run({ input: () => 'labs-k8s-m03' }, req, state(), inventory4);
  assert.equal(right.outcome.kind, 'not-confirmed');
  assert.match(right.ui.confirms[0]!.message, /^Run \d+ steps on \d+ hosts of labs-k8s\?$/);
  assert.match(right.ui.documents.get('remove-labs-k8s-m03-plan.txt') ?? '', /etcdctl member remove 3 \(labs-k8s-m03\)/);
  assert.deepEqual(right.ssh.log.filter((l) => ACTS.test(l)), []);
});

test('a worker removed: drained, deleted, reset; then the inventory edit is shown as a diff and applied on the user\'s word', async () => {
  const { ui, ssh, outcome, applied } = await run(approveAll, { operation: 'remove', host: 'labs-k8s-w02' });
  assert.equal(outcome.kind, 'ran');
  assert.equal((outcome as { edit: string }).edit, 'applied', ui.transcript.join('\n') + ui.runs[0]?.lines.join('\n'));
  assert.ok(!ssh.state.nodes.has('labs-k8s-w02') && ssh.state.reset.has('labs-k8s-w02'), ssh.log.join('\n'));
  assert.match(ui.documents.get('remove-labs-k8s-w02-inventory.diff') ?? '', /^- {2}- \{ name: labs-k8s-w02, address: 10\.3\.60\.55, roles: \[worker\] \}$/m);
  assert.equal(ui.confirms.at(-1)!.message, 'Write inventory.yaml?');
  assert.equal(applied.length, 1);
  assert.doesNotMatch(applied[0]!, /labs-k8s-w02/);
  assert.match(applied[0]!, /labs-k8s-w01/);
  assert.ok(ui.messages('info').includes('inventory.yaml written.'), ui.transcript.join('\n'));

  // Declined: nothing written.
  const kept = await run({ confirm: (r) => (r.actions[0] === 'Write' ? undefined : r.actions[0]) }, { operation: 'remove', host: 'labs-k8s-w02' });
  assert.equal((kept.outcome as { edit: string }).edit, 'kept');
  assert.deepEqual(kept.applied, []);
  assert.equal(kept.ui.confirms.at(-1)!.declined, 'inventory.yaml left as it was; it still lists labs-k8s-w02.');
});

test('a failed or cancelled removal offers no inventory edit', async () => {
  const failed = await run(approveAll, { operation: 'remove', host: 'labs-k8s-w02' }, { fail: /delete '?node\/labs-k8s-w02/ });
  assert.equal(failed.outcome.kind, 'ran');
  assert.equal((failed.outcome as { result: { ok: boolean } }).result.ok, false);
  assert.equal((failed.outcome as { edit: string }).edit, 'none');
  assert.deepEqual(failed.applied, []);
  assert.ok(!failed.ui.confirms.some((c) => c.message === 'Write inventory.yaml?'), failed.ui.transcript.join('\n'));
  assert.ok(!failed.ui.documents.has('remove-labs-k8s-w02-inventory.diff'));
  assert.match(failed.ui.messages('error').at(-1)!, /Remove labs-k8s-w02 from the cluster failed at labs-k8s-m01: Delete the Node labs-k8s-w02/);

  // Cancelled while the drain runs: the plan stops there, the Node stays, no edit is offered.
  let hosts: ClusterHosts | undefined;
  const draining = () => Boolean(hosts?.log.some((l) => / drain labs-k8s-w02 /.test(l)));
  const cancelled = await run({ ...approveAll, cancelWhen: draining }, { operation: 'remove', host: 'labs-k8s-w02' }, { hang: / drain labs-k8s-w02 / }, inventory, {}, (h) => (hosts = h));
  assert.equal(cancelled.outcome.kind, 'ran');
  assert.equal((cancelled.outcome as { result: { ok: boolean; cancelled?: boolean } }).result.ok, false);
  assert.ok(cancelled.ui.transcript.some((t) => t.startsWith('cancel: ')), cancelled.ui.transcript.join('\n'));
  assert.equal((cancelled.outcome as { edit: string }).edit, 'none');
  assert.deepEqual(cancelled.applied, []);
  assert.ok(!cancelled.ui.confirms.some((c) => c.message === 'Write inventory.yaml?'));
  assert.ok(cancelled.ssh.state.nodes.has('labs-k8s-w02'), 'the Node is still there');
});

test('a re-imaged new host: its changed key shown, and accepted only with its fingerprint typed back; then the plan', async () => {
  const fp = 'SHA256:Zm9vYmFyYmF6cXV4cXV1eHF1dXhxdXV4cXV1eHF1dXg';
  const withSpare: Inventory = { ...inventory, hosts: [...inventory.hosts, { name: 'labs-k8s-m04', address: '10.3.60.57', roles: [] }] };
  const req = { operation: 'replace' as const, host: 'labs-k8s-m01', replacement: { name: 'labs-k8s-m04', address: '10.3.60.57' } };
  const state = () => ({ changedKey: { host: 'labs-k8s-m04', fingerprint: fp } });
  const asked = (title: string) => title === 'Accept the new host key of labs-k8s-m04';

  for (const answer of [undefined, 'yes', 'SHA256:something-else']) {
    const refused = await run({ ...approveAll, input: (t) => (asked(t) ? answer : undefined) }, req, state(), withSpare);
    assert.equal(refused.outcome.kind, 'refused', `typed ${answer}`);
    assert.match((refused.outcome as { message: string }).message, /labs-k8s-m04: .*host key CHANGED .*accept it explicitly/);
    assert.equal(refused.ui.confirms.length, 0, 'no plan offered');
    assert.ok(refused.ssh.log.some((l) => l.startsWith('labs-k8s-m04: ')), 'the new host was asked');
  }
  const shown = await run({ input: (t) => (asked(t) ? fp : undefined) }, req, state(), withSpare);
  const doc = shown.ui.documents.get('host-key-labs-k8s-m04.txt') ?? '';
  assert.match(doc, new RegExp(`presented: ssh-ed25519 ${fp}`));
  assert.match(doc, /on record: \/root\/\.ssh\/known_hosts line 3/);
  assert.match(doc, /ssh-keygen -lf \/etc\/ssh\/ssh_host_ed25519_key\.pub/);
  assert.ok(shown.ui.transcript.indexOf('show: host-key-labs-k8s-m04.txt') < shown.ui.transcript.indexOf('input: Accept the new host key of labs-k8s-m04'));
  assert.equal(shown.outcome.kind, 'not-confirmed', 'the plan was offered (and not approved here)');
  assert.match(shown.ui.confirms[0]!.message, /^Run \d+ steps on \d+ hosts of labs-k8s\?$/);
  assert.match(shown.ui.documents.get('replace-labs-k8s-m01-found.txt') ?? '', /labs-k8s-m04 \(10\.3\.60\.57\): answers over SSH/);

  // The CLI's --accept-new-host-key=FINGERPRINT is the same answer given up front: not asked again.
  const given = await run({}, req, state(), withSpare, { fingerprintsGiven: [fp] });
  assert.equal(given.outcome.kind, 'not-confirmed');
  assert.ok(!given.ui.transcript.some((t) => t.startsWith('input:')), given.ui.transcript.join('\n'));
  assert.equal(given.ui.confirms.length, 1);
});
