/**
 * Client-certificate authentication from inside real VS Code with its DEFAULT settings (http.proxySupport
 * "override") against a kube-apiserver on a NON-loopback address: VS Code's proxy support leaves 127.0.0.1 alone, so
 * this is the path kubeadm's admin.conf through a VIP takes. The address is one this test puts on a veth pair it
 * creates and removes (198.18.0.0/15 is the benchmarking range: nothing real lives there). Needs root (ip link) and
 * the lab's kube-apiserver/etcd build.
 */
import * as assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import * as vscode from 'vscode';
import { api, waitFor } from './helpers';
import { createMirrorPod, createNode, putNodeLease, startTestCluster, type TestCluster } from '../../integration/apiserver';

const IFACE = 'kwauth0';
const ADDRESS = '198.18.47.1';
const CP = ['labs-k8s-m01', 'labs-k8s-m02', 'labs-k8s-m03'];

function ip(args: string[], allowFail = false): void {
  const r = spawnSync('ip', args, { encoding: 'utf8' });
  if (r.status !== 0 && !allowFail) throw new Error(`ip ${args.join(' ')}: ${r.stderr.trim() || r.error?.message}`);
}

type Provider = vscode.TreeDataProvider<unknown>;

async function rows(p: Provider): Promise<string[]> {
  const out: string[] = [];
  for (const child of (await p.getChildren()) ?? []) {
    const item = await p.getTreeItem(child);
    out.push(`${typeof item.label === 'string' ? item.label : (item.label?.label ?? '')} — ${String(item.description ?? '')}`);
  }
  return out;
}

suite('client certificate through VS Code default proxy support, non-loopback API server', function () {
  this.timeout(150_000);
  let c: TestCluster | undefined;

  suiteSetup(async function () {
    this.timeout(150_000);
    const proxySupport = vscode.workspace.getConfiguration('http').inspect<string>('proxySupport');
    assert.equal(proxySupport?.globalValue ?? proxySupport?.workspaceValue, undefined, 'http.proxySupport must be left at its default for this test');
    ip(['link', 'del', IFACE], true);
    ip(['link', 'add', IFACE, 'type', 'veth', 'peer', 'name', `${IFACE}p`]);
    ip(['addr', 'add', `${ADDRESS}/32`, 'dev', IFACE]);
    ip(['link', 'set', IFACE, 'up']);
    ip(['link', 'set', `${IFACE}p`, 'up']);
    c = await startTestCluster({ address: ADDRESS });
    for (const [i, n] of CP.entries()) {
      await createNode(c, n, { controlPlane: true, address: `10.3.60.5${i + 1}` });
      await putNodeLease(c, n, Date.now());
      await createMirrorPod(c, 'kube-apiserver', n);
    }
    await vscode.workspace.getConfiguration('kubeadmWorkbench').update('kubeconfig', c.kubeconfig, vscode.ConfigurationTarget.Workspace);
  });

  suiteTeardown(async () => {
    await vscode.workspace.getConfiguration('kubeadmWorkbench').update('kubeconfig', undefined, vscode.ConfigurationTarget.Workspace);
    await c?.stop();
    ip(['link', 'del', IFACE], true);
  });

  test('Control Plane fills as the admin (not system:anonymous); the status bar says as whom what the health model says', async () => {
    const a = await api();
    assert.equal(vscode.workspace.getConfiguration('http').get('proxySupport'), 'override', 'VS Code default');
    await a.connection.reconnect();
    await vscode.commands.executeCommand('kubeadm.controlPlane.focus');
    const p = a.views.controlPlane as unknown as Provider;
    const tree = await waitFor('control-plane rows', async () => {
      const r = await rows(p);
      return r.filter((l) => /^labs-k8s-m0\d — /.test(l)).length === 3 ? r : undefined;
    }, 40_000).catch((e: Error) => {
      // Say what the user would see: the view's message and the health model's verdict.
      throw new Error(`${e.message}; view message: ${a.views.controlPlane.treeView.message ?? '—'}; health: ${a.connection.health?.headline ?? '—'}`);
    });
    console.log(tree.map((l) => `      ${l}`).join('\n'));
    assert.equal(a.connection.state.kind, 'connected');
    assert.equal(a.connection.state.kind === 'connected' && a.connection.state.server, c!.server);
    const health = await waitFor('health', () => a.connection.health, 20_000);
    console.log(`      health: ${health.state} — ${health.headline}; status bar: ${a.statusBar.text}`);
    assert.equal(health.identity?.username, 'kw-admin', `the API server saw ${health.identity?.username}`);
    assert.notEqual(health.state, 'unauthorised', health.reasons.join('; '));
    // The status bar says the health model's own verdict, as whom. This API server runs without the static pods of a
    // kubeadm control plane (no kubelet): the model finds them missing, and says so — degraded, never "healthy".
    assert.equal(health.state, 'degraded', `${health.state}: ${health.headline}`);
    assert.match(health.headline, /etcd has no pod on labs-k8s-m0\d/, health.headline);
    assert.equal(a.statusBar.text, '$(warning) kw-admin@kw-test · degraded');
  });

  test('status bar: neutral "no cluster" without a kubeconfig, red with the classified reason after a real failure', async () => {
    const a = await api();
    const settings = vscode.workspace.getConfiguration('kubeadmWorkbench');
    await settings.update('kubeconfig', `${c!.root}/no-such-kubeconfig`, vscode.ConfigurationTarget.Workspace);
    await a.connection.ensure();
    await waitFor('no kubeconfig', () => (a.connection.state.kind === 'error' && a.statusBar.text === '$(plug) Kubeadm: no cluster' ? true : undefined), 20_000);
    assert.equal(a.statusBar.background, undefined, 'no alarm colour when nothing failed');
    // A server that refuses: a real failure, red, with the reason.
    const refused = `${c!.root}/refused.conf`;
    const text = (await vscode.workspace.fs.readFile(vscode.Uri.file(c!.kubeconfig))).toString().replace(/server: https:\/\/[^\n]+/, `server: https://${ADDRESS}:1`);
    await vscode.workspace.fs.writeFile(vscode.Uri.file(refused), new TextEncoder().encode(text));
    await settings.update('kubeconfig', refused, vscode.ConfigurationTarget.Workspace);
    await a.connection.reconnect();
    await a.connection.ensure();
    const shown = await waitFor('red status bar', () => (a.statusBar.background === 'statusBarItem.errorBackground' ? a.statusBar.text : undefined), 30_000);
    console.log(`      refused: ${shown} — ${a.connection.health?.headline}`);
    assert.match(shown, /unreachable/);
    assert.equal(a.connection.health?.headline, 'unreachable: connection refused');
    await settings.update('kubeconfig', c!.kubeconfig, vscode.ConfigurationTarget.Workspace);
  });
});
