/**
 * The live views in real VS Code against a real kube-apiserver + etcd (test/integration/apiserver.ts, started
 * from the extension host): the kubeconfig setting points at the test cluster, the views are shown, and their
 * trees are read through the providers activate() exposes. Needs the lab's kube-apiserver/kubectl build and etcd.
 */
import * as assert from 'node:assert/strict';
import * as vscode from 'vscode';
import { api, waitFor } from './helpers';
import { createMirrorPod, createNode, microTime, putLeaderLease, putNodeLease, setNodeReady, startTestCluster, type TestCluster } from '../../integration/apiserver';
import { podTimelineFeed } from '../../../src/editor/podTimelineFeed';
import type { Timeline } from '../../../src/core/timeline/model';

const CP = ['labs-k8s-m01', 'labs-k8s-m02', 'labs-k8s-m03'];
const COMPONENTS = ['etcd', 'kube-apiserver', 'kube-controller-manager', 'kube-scheduler'];

type Provider = vscode.TreeDataProvider<unknown>;

async function rows(p: Provider, element?: unknown, depth = 0, out: string[] = []): Promise<string[]> {
  for (const child of (await p.getChildren(element)) ?? []) {
    const item = await p.getTreeItem(child);
    const label = typeof item.label === 'string' ? item.label : (item.label?.label ?? '');
    out.push(`${'  '.repeat(depth)}${label}${item.description ? ` — ${String(item.description)}` : ''}`);
    if (item.collapsibleState !== vscode.TreeItemCollapsibleState.None && depth < 3) await rows(p, child, depth + 1, out);
  }
  return out;
}

suite('live views against a real kube-apiserver', function () {
  this.timeout(120_000);
  let c: TestCluster;

  suiteSetup(async function () {
    this.timeout(120_000);
    assert.ok(vscode.workspace.isTrusted, 'the test workspace must be trusted for the extension to connect');
    c = await startTestCluster();
    const now = Date.now();
    for (const [i, n] of CP.entries()) {
      await createNode(c, n, { controlPlane: true, address: `10.3.60.5${i + 1}` });
      await putNodeLease(c, n, now);
      for (const comp of COMPONENTS) await createMirrorPod(c, comp, n);
    }
    for (const [i, n] of ['labs-k8s-w01', 'labs-k8s-w02'].entries()) {
      await createNode(c, n, { address: `10.3.60.5${i + 4}` });
      await putNodeLease(c, n, now);
    }
    await putLeaderLease(c, 'kube-scheduler', 'labs-k8s-m02_3a7d9e0b', 1, now);
    await putLeaderLease(c, 'kube-controller-manager', 'labs-k8s-m01_8f2e6c1a', 0, now);
    await vscode.workspace.getConfiguration('kubeadmWorkbench').update('kubeconfig', c.kubeconfig, vscode.ConfigurationTarget.Workspace);
  });

  suiteTeardown(async () => {
    await vscode.workspace.getConfiguration('kubeadmWorkbench').update('kubeconfig', undefined, vscode.ConfigurationTarget.Workspace);
    await c?.stop();
  });

  test('Control Plane view: three nodes with their four mirror pods, connected through the kubeconfig setting', async () => {
    const a = await api();
    await vscode.commands.executeCommand('kubeadm.controlPlane.focus');
    const p = a.views.controlPlane as unknown as Provider;
    const tree = await waitFor('control-plane tree', async () => {
      const r = await rows(p);
      return r.filter((l) => /^ {2}(etcd|kube-)/.test(l)).length === 12 ? r : undefined;
    }, 30_000);
    console.log(tree.map((l) => `      ${l}`).join('\n'));
    assert.equal(a.connection.state.kind, 'connected');
    assert.deepEqual(tree.filter((l) => !l.startsWith(' ')).map((l) => l.split(' — ')[0]), [...CP]);
    assert.ok(tree.some((l) => /^ {2}etcd — Running · ready 1\/1 · restarts 0 · \d+(m|s)?\w* · static \(mirror\)$/.test(l) || /^ {2}etcd — Running · ready 1\/1 · restarts 0 · .* · static \(mirror\)$/.test(l)), tree.join('\n'));
  });

  test('Leases view: leaders mapped to inventory hosts, node heartbeats; a node lease going stale turns late then expired', async () => {
    const a = await api();
    await vscode.commands.executeCommand('kubeadm.leases.focus');
    const p = a.views.leases as unknown as Provider;
    await waitFor('leases tree', async () => ((await rows(p)).some((l) => l.includes('kube-scheduler — labs-k8s-m02')) ? true : undefined), 30_000);
    await putNodeLease(c, 'labs-k8s-w02', Date.now(), 2);
    const stale = await waitFor('w02 expired', async () => {
      const r = await rows(p);
      return r.some((l) => /labs-k8s-w02 — expired/.test(l)) ? r : undefined;
    }, 15_000);
    console.log(stale.map((l) => `      ${l}`).join('\n'));
    assert.ok(stale.some((l) => l.includes('kube-controller-manager — labs-k8s-m01 · 0 transitions')));
  });

  test('Inventory view: a host expands to its Node, pods and leases; NotReady shows there within 2 s', async () => {
    const a = await api();
    await vscode.commands.executeCommand('kubeadm.inventory.focus');
    const p = a.views.inventory as unknown as Provider;
    await waitFor('live host children', async () => ((await rows(p)).some((l) => l.includes('Node labs-k8s-m01 — Ready')) ? true : undefined), 30_000);
    const t0 = Date.now();
    await setNodeReady(c, 'labs-k8s-w01', false);
    const r = await waitFor('w01 not ready', async () => {
      const x = await rows(p);
      return x.some((l) => l.includes('Node labs-k8s-w01 — NotReady')) ? x : undefined;
    }, 10_000);
    const ms = Date.now() - t0;
    console.log(r.map((l) => `      ${l}`).join('\n'));
    console.log(`      NotReady visible in the Inventory tree after ${ms} ms`);
    assert.ok(ms < 2000, `${ms} ms`);
  });

  test('kubectl run timeline: our create, the stored pod, the binding seen by watch and the Scheduled event, in order', async () => {
    const a = await api();
    const conn = await a.connection.ensure();
    assert.ok(conn, 'connected');
    let latest: Timeline | undefined;
    const failures: string[] = [];
    const feed = podTimelineFeed(conn, { namespace: 'default', name: 'timeline-test', create: { image: 'registry.invalid/web:1.0' } });
    const stop = feed.start((t) => (latest = t), (m) => failures.push(m));
    try {
      await waitFor('the created pod on the timeline', () => (latest?.entries.some((e) => e.label === '201 Created received') && latest.entries.some((e) => e.label.startsWith('Pod stored')) ? latest : undefined), 20_000);
      // What the scheduler does: bind the pod to a node and record a Scheduled event (eventTime in microseconds).
      const bound = await c.api('POST', '/api/v1/namespaces/default/pods/timeline-test/binding', { apiVersion: 'v1', kind: 'Binding', metadata: { name: 'timeline-test' }, target: { apiVersion: 'v1', kind: 'Node', name: 'labs-k8s-w01' } });
      assert.equal(bound.status, 201, JSON.stringify(bound.body));
      const pod = await c.api<{ metadata: { uid: string } }>('GET', '/api/v1/namespaces/default/pods/timeline-test');
      const ev = await c.api('POST', '/api/v1/namespaces/default/events', {
        apiVersion: 'v1', kind: 'Event', metadata: { name: 'timeline-test.scheduled' }, type: 'Normal', reason: 'Scheduled', action: 'Binding',
        message: 'Successfully assigned default/timeline-test to labs-k8s-w01', eventTime: microTime(Date.now()), reportingComponent: 'default-scheduler', reportingInstance: 'default-scheduler-labs-k8s-m01',
        involvedObject: { apiVersion: 'v1', kind: 'Pod', namespace: 'default', name: 'timeline-test', uid: pod.body.metadata.uid },
      });
      assert.equal(ev.status, 201, JSON.stringify(ev.body));
      const t = await waitFor('binding and Scheduled on the timeline', () => (latest?.entries.some((e) => e.label === 'Scheduled') && latest.entries.some((e) => e.label.startsWith('Watch: bound to labs-k8s-w01')) ? latest : undefined), 20_000);
      const order = t.entries.map((e) => `${e.lane}:${e.label.split(' ')[0]}`);
      const at = (label: string) => order.findIndex((o) => o.endsWith(`:${label}`));
      assert.ok(at('POST') < at('201') && at('201') <= at('Scheduled') + 1, order.join(' → '));
      assert.equal(t.entries.find((e) => e.label === 'Scheduled')!.precision, 'us');
      assert.equal(t.pod.node, 'labs-k8s-w01');
      assert.deepEqual(failures, []);
    } finally {
      stop.dispose();
    }
  });
});
