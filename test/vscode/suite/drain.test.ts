/**
 * Drain Node… / Cordon Node / Uncordon Node in real VS Code against a real kube-apiserver (test/integration/apiserver.ts).
 * The dialogs are answered by replacing the window's QuickPick and message functions for the duration of a test
 * (the extension and this suite share the extension host's API object); the test plays w02's kubelet (a pod marked
 * for deletion is removed with grace 0), since there is none.
 */
import * as assert from 'node:assert/strict';
import * as vscode from 'vscode';
import { api } from './helpers';
import { createNode, startTestCluster, type TestCluster } from '../../integration/apiserver';

const NODE = 'labs-k8s-w02';

type Answers = { quickPick?: (items: readonly vscode.QuickPickItem[]) => unknown; warning?: (message: string, items: string[]) => string | undefined };

/** Replaces the window's dialogs; returns what was shown and a restore function. */
function answerDialogs(answers: Answers): { shown: string[]; restore: () => void } {
  const w = vscode.window as unknown as Record<string, unknown>;
  const saved = { showQuickPick: w.showQuickPick, showWarningMessage: w.showWarningMessage, showInformationMessage: w.showInformationMessage, showErrorMessage: w.showErrorMessage };
  const shown: string[] = [];
  const strings = (args: unknown[]) => args.filter((a): a is string => typeof a === 'string');
  w.showQuickPick = async (items: readonly vscode.QuickPickItem[] | Thenable<readonly vscode.QuickPickItem[]>) => answers.quickPick?.(await items);
  w.showWarningMessage = async (message: string, ...rest: unknown[]) => {
    shown.push(`warning: ${message} ${JSON.stringify(rest.find((r) => typeof r === 'object') ?? {})}`);
    return answers.warning?.(message, strings(rest));
  };
  w.showInformationMessage = async (message: string) => void shown.push(`info: ${message}`);
  w.showErrorMessage = async (message: string) => void shown.push(`error: ${message}`);
  return { shown, restore: () => Object.assign(w, saved) };
}

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
    const d = answerDialogs({ quickPick: (items) => items.filter((i) => i.picked), warning: (_m, items) => items[0] });
    try {
      await vscode.commands.executeCommand('kubeadm.drainNode', NODE);
    } finally {
      d.restore();
    }
    const plan = vscode.workspace.textDocuments.find((t) => t.uri.path === `/drain-${NODE}-plan.txt`)?.getText() ?? '';
    assert.match(plan, /refuse +default\/bare +Pods that declare no controller \(use --force to override\)/, plan);
    assert.match(plan, /evict +default\/web-1 +ReplicaSet web/);
    assert.ok(d.shown.some((s) => /^error: Drain of labs-k8s-w02 not started — Pods are refused: cannot delete Pods that declare no controller/.test(s)), d.shown.join('\n'));
    assert.equal(await unschedulable(NODE), false);
  });

  test('Drain Node… with --force from the Inventory host row: asks, evicts both pods, leaves the node cordoned', async () => {
    const d = answerDialogs({ quickPick: (items) => items.filter((i) => i.picked || i.description === '--force'), warning: (_m, items) => items[0] });
    const t0 = Date.now();
    try {
      const host = { kind: 'host', role: 'worker', host: { name: NODE, address: '10.3.60.55', roles: ['worker'] } };
      await vscode.commands.executeCommand('kubeadm.drainNode', host);
    } finally {
      d.restore();
    }
    assert.ok(d.shown.some((s) => s.startsWith('warning: Drain labs-k8s-w02: evict 2 pod(s)?')), d.shown.join('\n'));
    assert.ok(d.shown.some((s) => /^info: node\/labs-k8s-w02 drained: 2 pod\(s\) evicted, 0 kept/.test(s)), d.shown.join('\n'));
    const left = await c.api<{ items: unknown[] }>('GET', `/api/v1/pods?fieldSelector=spec.nodeName%3D${NODE}`);
    assert.equal(left.body.items.length, 0);
    assert.equal(await unschedulable(NODE), true);
    console.log(`      drain from the editor: ${Date.now() - t0} ms`);
  });

  test('Uncordon Node / Cordon Node from a Control Plane node row and by name, after a confirmation', async () => {
    const d = answerDialogs({ warning: (_m, items) => items[0] });
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
    assert.deepEqual(d.shown.filter((s) => s.startsWith('info:')), ['info: node/labs-k8s-w02 uncordoned', 'info: node/labs-k8s-m01 cordoned', 'info: node/labs-k8s-m01 uncordoned']);
    assert.ok(d.shown.some((s) => s.startsWith('warning: Cordon labs-k8s-m01?') && s.includes('modal')), d.shown.join('\n'));
  });

  test('a dismissed confirmation changes nothing', async () => {
    const d = answerDialogs({ warning: () => undefined });
    try {
      await vscode.commands.executeCommand('kubeadm.cordonNode', NODE);
    } finally {
      d.restore();
    }
    assert.equal(await unschedulable(NODE), false);
  });
});
