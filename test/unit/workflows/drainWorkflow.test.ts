/**
 * Drain, cordon and uncordon as the user meets them, front-end aside: the questions and refusals of the one workflow
 * the editor's commands and the CLI's verbs both run, answered by a scripted Ui over an in-memory cluster (the same
 * workflow runs in VS Code against a real kube-apiserver in test/vscode/suite/drain.test.ts, and from the CLI against
 * the lab cluster in test/lab/drain.test.ts).
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { DEFAULT_DRAIN_OPTIONS, type DrainPod } from '../../../src/core/drain/classify';
import { parseInventory } from '../../../src/core/inventory/parse';
import type { SshTransport } from '../../../src/core/ssh/transport';
import { cordonWorkflow, drainWorkflow, type DrainWorkflowInput } from '../../../src/engine/workflows/drainWorkflow';
import { ScriptedUi } from './scriptedUi';
import { Cluster } from './drainCluster';

const inventory = parseInventory(readFileSync(join(__dirname, '../../../examples/labs-k8s/inventory.yaml'), 'utf8')).inventory!;
const rs = { apiVersion: 'apps/v1', kind: 'ReplicaSet', name: 'web-5d9c' };
const pod = (name: string, extra: Partial<DrainPod> = {}): DrainPod => ({ namespace: 'default', name, uid: `uid-${name}`, phase: 'Running', hasEmptyDir: false, ...extra });

const fast = { retryIntervalMs: 20, pollIntervalMs: 5, settleMs: 0 };
function input(cluster: Cluster, node: string, extra: Partial<DrainWorkflowInput> = {}, options: Partial<DrainWorkflowInput['options']> = {}): DrainWorkflowInput {
  return {
    cluster, node, context: 'admin@labs-k8s', refusedPods: 'stop',
    options: { ...DEFAULT_DRAIN_OPTIONS, gracePeriodSeconds: -1, dryRun: 'none', readyTimeoutSeconds: 600, uncordonAfter: false, ...fast, ...options },
    ...extra,
  };
}

test('a bare pod without --force: the plan says why, the editor refuses before cordoning and asks nothing', async () => {
  const c = new Cluster({ name: 'labs-k8s-w02' });
  c.pods = [pod('bare'), pod('web-1', { controller: rs })];
  const ui = new ScriptedUi({ confirm: (r) => r.actions[0] });
  const out = await drainWorkflow(ui, input(c, 'labs-k8s-w02'));
  assert.equal(out.kind, 'refused');
  assert.match(ui.documents.get('drain-labs-k8s-w02-plan.txt')!, /refuse +default\/bare +Pods that declare no controller/);
  assert.deepEqual(ui.messages('error'), ['Drain of labs-k8s-w02 not started — Pods are refused: cannot delete Pods that declare no controller (use --force to override): default/bare Nothing was changed.']);
  assert.ok(ui.transcript.includes(`error (modal): ${ui.messages('error')[0]}`), 'the refusal is modal');
  assert.equal(ui.confirms.length, 0);
  assert.equal(c.cordoned('labs-k8s-w02'), false);
});

test('the same plan from the command line asks as kubectl would, then cordons and stops at the refusal', async () => {
  const c = new Cluster({ name: 'labs-k8s-w02' });
  c.pods = [pod('bare')];
  const no = new ScriptedUi({ confirm: () => undefined });
  assert.equal((await drainWorkflow(no, input(c, 'labs-k8s-w02', { refusedPods: 'like-kubectl' }))).kind, 'not-confirmed');
  assert.deepEqual(no.confirms.map((r) => r.message), ['Pods are refused: the drain would cordon labs-k8s-w02 and stop (as kubectl drain does). Go ahead?']);
  assert.equal(c.cordoned('labs-k8s-w02'), false, 'not confirmed: nothing changed');

  const yes = new ScriptedUi({ confirm: (r) => r.actions[0] });
  const out = await drainWorkflow(yes, input(c, 'labs-k8s-w02', { refusedPods: 'like-kubectl' }));
  assert.ok(out.kind === 'ran' && !out.result.ok);
  assert.equal(c.cordoned('labs-k8s-w02'), true);
  assert.match(yes.messages('error')[0]!, /^Drain FAILED at step "classify" on node labs-k8s-w02: unable to drain node/);
});

test('emptyDir data: the question says it is lost and the button says so; the run evicts and reports', async () => {
  const c = new Cluster({ name: 'labs-k8s-w02' });
  c.pods = [pod('cache-1', { controller: rs, hasEmptyDir: true }), pod('web-1', { controller: rs })];
  const ui = new ScriptedUi({ confirm: (r) => r.actions[0] });
  const out = await drainWorkflow(ui, input(c, 'labs-k8s-w02', {}, { deleteEmptyDirData: true, uncordonAfter: true }));
  assert.ok(out.kind === 'ran' && out.result.ok, JSON.stringify(out));
  const [q] = ui.confirms;
  assert.equal(q?.message, 'Drain labs-k8s-w02: evict 2 pod(s)?');
  assert.deepEqual(q?.actions, ['Drain and Delete emptyDir Data']);
  assert.match(q?.detail ?? '', /emptyDir data of default\/cache-1 is deleted for good\.\nFinally labs-k8s-w02 is uncordoned\./);
  assert.deepEqual(c.evicted.sort(), ['cache-1', 'web-1']);
  assert.match(ui.messages('info')[0]!, /^node\/labs-k8s-w02 drained: 2 pod\(s\) evicted, 0 kept \(\d+ s\)\. Uncordoned\.$/);
  assert.equal(ui.runs[0]?.name, 'Kubeadm: drain labs-k8s-w02');
  assert.deepEqual(ui.runs[0]?.finished?.ok, true);
});

test('the control-plane guard: refused with the reason, nothing asked, nothing cordoned', async () => {
  const c = new Cluster({ name: 'labs-k8s-m01', controlPlane: true });
  c.members = [
    { nodeName: 'labs-k8s-m01', nodeReady: true, etcdHealthy: true },
    { nodeName: 'labs-k8s-m02', nodeReady: true, etcdHealthy: true },
    { nodeName: 'labs-k8s-m03', nodeReady: false, etcdHealthy: false },
  ];
  for (const refusedPods of ['stop', 'like-kubectl'] as const) {
    const ui = new ScriptedUi({ confirm: (r) => r.actions[0] });
    const out = await drainWorkflow(ui, input(c, 'labs-k8s-m01', { refusedPods }));
    assert.equal(out.kind, 'refused');
    assert.match(ui.messages('error')[0]!, /^refusing to drain control-plane node "labs-k8s-m01": etcd would lose quorum.*labs-k8s-m03[\s\S]*\nnothing was done\.$/);
    assert.equal(ui.confirms.length, 0);
  }
  assert.equal(c.cordoned('labs-k8s-m01'), false);
});

test('a dry run asks nothing and changes nothing', async () => {
  const c = new Cluster({ name: 'labs-k8s-w02' });
  c.pods = [pod('web-1', { controller: rs })];
  const ui = new ScriptedUi();
  const out = await drainWorkflow(ui, input(c, 'labs-k8s-w02', { refusedPods: 'like-kubectl' }, { dryRun: 'client' }));
  assert.ok(out.kind === 'ran' && out.result.ok);
  assert.equal(ui.confirms.length, 0);
  assert.equal(c.cordoned('labs-k8s-w02'), false);
});

test('a cancel stops the evictions and leaves the node cordoned; the narration says so', async () => {
  const c = new Cluster({ name: 'labs-k8s-w02' });
  c.pods = [pod('web-1', { controller: rs })];
  c.hang = true; // a PDB that never allows the eviction: only the cancel ends the drain
  let asked = false;
  const ui = new ScriptedUi({ confirm: (r) => ((asked = true), r.actions[0]), cancelWhen: () => asked && c.cordoned('labs-k8s-w02') });
  const out = await drainWorkflow(ui, input(c, 'labs-k8s-w02'));
  assert.ok(out.kind === 'ran' && out.result.cancelled, JSON.stringify(out));
  assert.equal(c.cordoned('labs-k8s-w02'), true);
  assert.ok(ui.runs[0]?.lines.includes('cancelling the drain of node/labs-k8s-w02…'), ui.runs[0]?.lines.join('\n'));
  assert.match(ui.messages('error')[0]!, /^Drain cancelled at step "evict" on node labs-k8s-w02/);
});

const noSsh: SshTransport = { exec: async () => assert.fail('nothing runs before the questions are answered'), close: async () => undefined };

test('a maintenance command on a host reached as another user asks the sudo password once; backing out does nothing', async () => {
  const c = new Cluster({ name: 'labs-k8s-w02' });
  const ui = new ScriptedUi({ secret: () => undefined, confirm: (r) => r.actions[0] });
  const out = await drainWorkflow(ui, input(c, 'labs-k8s-w02', { maintenance: { inventory, ssh: noSsh, loginUser: () => 'debian', command: 'reboot', timeoutMs: 0 } }));
  assert.equal(out.kind, 'cancelled');
  assert.deepEqual(ui.secrets.map((s) => [s.kind, s.title, s.prompt]), [['sudo-password', 'sudo password for debian', 'labs-k8s-w02 is reached as debian: every step runs through sudo. Leave empty when sudo needs no password there.']]);
  assert.equal(ui.confirms.length, 0);
  assert.equal(c.cordoned('labs-k8s-w02'), false);

  const asRoot = new ScriptedUi({ confirm: () => undefined });
  assert.equal((await drainWorkflow(asRoot, input(c, 'labs-k8s-w02', { maintenance: { inventory, ssh: noSsh, loginUser: () => 'root', command: 'reboot', timeoutMs: 0 } }))).kind, 'not-confirmed');
  assert.equal(asRoot.secrets.length, 0, 'root needs no sudo');
  assert.match(asRoot.confirms[0]?.detail ?? '', /Then on labs-k8s-w02: sh -c reboot/);
});

test('a maintenance command for a node that is not an inventory host is refused before anything', async () => {
  const c = new Cluster({ name: 'elsewhere' });
  const ui = new ScriptedUi();
  const out = await drainWorkflow(ui, input(c, 'elsewhere', { maintenance: { inventory, ssh: noSsh, loginUser: () => 'root', command: 'reboot', timeoutMs: 0 } }));
  assert.equal(out.kind, 'invalid');
  assert.match(ui.messages('error')[0]!, /^node elsewhere is not a host of the inventory/);
});

test('cordon and uncordon: asked with what changes; already so, or not confirmed, changes nothing', async () => {
  const c = new Cluster({ name: 'labs-k8s-w02' });
  const no = new ScriptedUi({ confirm: () => undefined });
  assert.equal((await cordonWorkflow(no, { cluster: c, node: 'labs-k8s-w02', cordon: true, context: 'admin@labs-k8s', server: 'https://10.3.60.100:6443', dryRun: 'none' })).kind, 'not-confirmed');
  assert.deepEqual(no.confirms.map((r) => [r.message, r.actions]), [['Cordon labs-k8s-w02?', ['Cordon']]]);
  assert.match(no.confirms[0]!.detail!, /no new pods are scheduled.*Cluster: admin@labs-k8s \(https:\/\/10\.3\.60\.100:6443\)\./);
  assert.equal(c.cordoned('labs-k8s-w02'), false);

  const yes = new ScriptedUi({ confirm: (r) => r.actions[0] });
  assert.equal((await cordonWorkflow(yes, { cluster: c, node: 'labs-k8s-w02', cordon: true, context: 'x', server: '', dryRun: 'none' })).kind, 'done');
  assert.deepEqual(yes.messages('info'), ['node/labs-k8s-w02 cordoned']);
  assert.equal(c.cordoned('labs-k8s-w02'), true);

  const again = new ScriptedUi({ confirm: (r) => r.actions[0] });
  assert.equal((await cordonWorkflow(again, { cluster: c, node: 'labs-k8s-w02', cordon: true, context: 'x', server: '', dryRun: 'none' })).kind, 'unchanged');
  assert.deepEqual(again.messages('info'), ['node/labs-k8s-w02 already cordoned']);
  assert.equal(again.confirms.length, 0);

  const missing = new ScriptedUi({ confirm: (r) => r.actions[0] });
  assert.equal((await cordonWorkflow(missing, { cluster: c, node: 'nope', cordon: false, context: 'x', server: '', dryRun: 'none' })).kind, 'failed');
  assert.deepEqual(missing.messages('error'), ['error: unable to uncordon node "nope": nodes "nope" not found']);
});
