/**
 * Drain Node… / Cordon Node / Uncordon Node in real VS Code against a real kube-apiserver (test/integration/apiserver.ts).
 * The questions are answered by a scripted Ui put in front of VS Code's through the extension's API (the documents
 * and the run terminal stay VS Code's); the test plays w02's kubelet (a pod marked
 * for deletion is removed with grace 0), since there is none.
 */
import * as assert from 'node:assert/strict';
import * as vscode from 'vscode';
import { api, scripted } from './helpers';
import { createNode, startTestCluster, type TestCluster } from '../../integration/apiserver';

const NODE = 'labs-k8s-w02';


suite('drain, cordon and uncordon commands against a real kube-apiserver', function () {
  this.timeout(120_000);
  let c: TestCluster;
  let kubelet: NodeJS.Timeout | undefined;

  suiteSetup(async function () {
    this.timeout(120_000);
    c = await startTestCluster();
    await createNode(c, 'labs-k8s-m01', { controlPlane: true, address: '10.3.60.51' });
    await createNode(c, 'labs-k8s-w01', { address: '10.3.60.54' });
    await createNode(c, NODE, { address: '10.3.60.55' });
    const rs = await c.api<{ metadata: { uid: string } }>('POST', '/apis/apps/v1/namespaces/default/replicasets', {
      apiVersion: 'apps/v1', kind: 'ReplicaSet', metadata: { name: 'web' },
      spec: { replicas: 1, selector: { matchLabels: { app: 'web' } }, template: { metadata: { labels: { app: 'web' } }, spec: { containers: [{ name: 'c', image: 'x' }] } } },
    });
    for (const [name, owned] of [['web-1', true], ['bare', false]] as const) {
      const r = await c.api('POST', '/api/v1/namespaces/default/pods', {
        apiVersion: 'v1', kind: 'Pod',
        metadata: { name, labels: { app: 'web' }, ...(owned ? { ownerReferences: [{ apiVersion: 'apps/v1', kind: 'ReplicaSet', name: 'web', uid: rs.body.metadata.uid, controller: true }] } : {}) },
        spec: { nodeName: NODE, containers: [{ name: 'c', image: 'x' }] },
      });
      assert.equal(r.status, 201, JSON.stringify(r.body));
      await c.api('PATCH', `/api/v1/namespaces/default/pods/${name}/status`, { status: { phase: 'Running' } }, 'application/merge-patch+json');
    }
    // w02's kubelet: a pod marked for deletion goes away once its containers stopped (grace 0 from the kubelet).
    kubelet = setInterval(async () => {
      const r = await c.api<{ items?: { metadata: { name: string; namespace: string; deletionTimestamp?: string } }[] }>('GET', `/api/v1/pods?fieldSelector=spec.nodeName%3D${NODE}`).catch(() => undefined);
      for (const p of r?.body.items ?? []) if (p.metadata.deletionTimestamp) await c.api('DELETE', `/api/v1/namespaces/${p.metadata.namespace}/pods/${p.metadata.name}`, { apiVersion: 'v1', kind: 'DeleteOptions', gracePeriodSeconds: 0 }).catch(() => undefined);
    }, 200);
    await vscode.workspace.getConfiguration('kubeadmWorkbench').update('kubeconfig', c.kubeconfig, vscode.ConfigurationTarget.Workspace);
    await (await api()).connection.reconnect();
  });

  suiteTeardown(async () => {
    if (kubelet) clearInterval(kubelet);
    await vscode.workspace.getConfiguration('kubeadmWorkbench').update('kubeconfig', undefined, vscode.ConfigurationTarget.Workspace);
    await c?.stop();
  });

  const unschedulable = async (node: string) => (await c.api<{ spec?: { unschedulable?: boolean } }>('GET', `/api/v1/nodes/${node}`)).body.spec?.unschedulable === true;

  test('Drain Node… without --force: the plan shows the bare pod refused, nothing is cordoned', async () => {
    const d = await scripted({ confirm: (r) => r.actions[0] });
    try {
      await vscode.commands.executeCommand('kubeadm.drainNode', NODE);
    } finally {
      d.restore();
    }
    const plan = vscode.workspace.textDocuments.find((t) => t.uri.path === `/drain-${NODE}-plan.txt`)?.getText() ?? '';
    assert.match(plan, /refuse +default\/bare +Pods that declare no controller \(use --force to override\)/, plan);
    assert.match(plan, /evict +default\/web-1 +ReplicaSet web/);
    assert.ok(d.messages().some((s) => /^error: Drain of labs-k8s-w02 not started — Pods are refused: cannot delete Pods that declare no controller/.test(s)), d.transcript.join('\n'));
    assert.equal(d.confirms.length, 0, 'a refused plan asks nothing');
    assert.equal(await unschedulable(NODE), false);
  });

  test('Drain Node… with --force from the Inventory host row: asks, evicts both pods, leaves the node cordoned', async () => {
    const d = await scripted({ pickMany: (_t, items) => items.filter((i) => i.picked || i.description === '--force'), confirm: (r) => r.actions[0] });
    const t0 = Date.now();
    try {
      const host = { kind: 'host', role: 'worker', host: { name: NODE, address: '10.3.60.55', roles: ['worker'] } };
      await vscode.commands.executeCommand('kubeadm.drainNode', host);
    } finally {
      d.restore();
    }
    assert.deepEqual(d.confirms.map((c) => c.message), ['Drain labs-k8s-w02: evict 2 pod(s)?'], d.transcript.join('\n'));
    assert.ok(d.messages().some((s) => /^info: node\/labs-k8s-w02 drained: 2 pod\(s\) evicted, 0 kept/.test(s)), d.transcript.join('\n'));
    assert.ok(vscode.window.terminals.some((t) => t.name === `Kubeadm: drain ${NODE}`), 'the run terminal');
    const left = await c.api<{ items: unknown[] }>('GET', `/api/v1/pods?fieldSelector=spec.nodeName%3D${NODE}`);
    assert.equal(left.body.items.length, 0);
    assert.equal(await unschedulable(NODE), true);
    console.log(`      drain from the editor: ${Date.now() - t0} ms`);
  });

  test('Uncordon Node / Cordon Node from a Control Plane node row and by name, after a confirmation', async () => {
    const d = await scripted({ confirm: (r) => r.actions[0] });
    try {
      await vscode.commands.executeCommand('kubeadm.uncordonNode', NODE);
      assert.equal(await unschedulable(NODE), false);
      await vscode.commands.executeCommand('kubeadm.cordonNode', { id: 'cpnode:labs-k8s-m01', label: 'labs-k8s-m01' });
      assert.equal(await unschedulable('labs-k8s-m01'), true);
      await vscode.commands.executeCommand('kubeadm.uncordonNode', { id: 'cpnode:labs-k8s-m01', label: 'labs-k8s-m01' });
      assert.equal(await unschedulable('labs-k8s-m01'), false);
    } finally {
      d.restore();
    }
    assert.deepEqual(d.messages('info'), ['node/labs-k8s-w02 uncordoned', 'node/labs-k8s-m01 cordoned', 'node/labs-k8s-m01 uncordoned']);
    assert.deepEqual(d.confirms.map((c) => c.message), ['Uncordon labs-k8s-w02?', 'Cordon labs-k8s-m01?', 'Uncordon labs-k8s-m01?'], d.transcript.join('\n'));
  });

  test('a dismissed confirmation changes nothing', async () => {
    const d = await scripted({ confirm: () => undefined });
    try {
      await vscode.commands.executeCommand('kubeadm.cordonNode', NODE);
    } finally {
      d.restore();
    }
    assert.deepEqual(d.confirms.map((c) => c.message), [`Cordon ${NODE}?`]);
    assert.equal(await unschedulable(NODE), false);
  });
});
