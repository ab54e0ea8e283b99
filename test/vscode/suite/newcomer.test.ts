/**
 * What a newcomer meets, in real VS Code: no kubeconfig → the live views stay empty and message-free so their welcome
 * buttons show; a failing kubeconfig → the reason in plain words and what to do as rows; Select Cluster Context always
 * opens a picker whose "Browse for a kubeconfig file…" leads to a real kube-apiserver (test/integration/apiserver.ts)
 * and fills the Control Plane; the timeline opens that picker instead of a toast pointing elsewhere.
 * Dialogs are answered by replacing the window's functions for one test (the UI tier drives the real ones).
 */
import * as assert from 'node:assert/strict';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import * as vscode from 'vscode';
import { createMirrorPod, createNode, startTestCluster, type TestCluster } from '../../integration/apiserver';
import { api, waitFor } from './helpers';
import { tempDir } from '../../tempDir';

type Item = vscode.QuickPickItem & { action?: { kind: string } };
interface Shown {
  picks: { title?: string; items: Item[] }[];
  messages: string[];
}

/** Replaces the window's quick pick, open dialog and messages; returns what was shown and a restore function. */
function answer(quickPick: (items: Item[], title?: string) => Item | undefined, openDialog?: () => vscode.Uri[] | undefined): Shown & { restore: () => void } {
  const w = vscode.window as unknown as Record<string, unknown>;
  const saved = { showQuickPick: w.showQuickPick, showOpenDialog: w.showOpenDialog, showErrorMessage: w.showErrorMessage, showWarningMessage: w.showWarningMessage };
  const shown: Shown = { picks: [], messages: [] };
  w.showQuickPick = async (items: Item[] | Thenable<Item[]>, options?: vscode.QuickPickOptions) => {
    const list = await items;
    shown.picks.push({ ...(options?.title ? { title: options.title } : {}), items: list });
    return quickPick(list, options?.title);
  };
  w.showOpenDialog = async () => openDialog?.();
  w.showErrorMessage = async (m: string) => void shown.messages.push(`error: ${m}`);
  w.showWarningMessage = async (m: string) => void shown.messages.push(`warning: ${m}`);
  return { ...shown, restore: () => Object.assign(w, saved) };
}

type Provider = vscode.TreeDataProvider<unknown> & { treeView: vscode.TreeView<unknown>; refresh?: () => void };

async function rows(p: Provider): Promise<{ label: string; description: string; command?: string }[]> {
  const out = [];
  for (const n of (await p.getChildren()) ?? []) {
    const item = await p.getTreeItem(n);
    out.push({ label: typeof item.label === 'string' ? item.label : (item.label?.label ?? ''), description: String(item.description ?? ''), ...(item.command ? { command: item.command.command } : {}) });
  }
  return out;
}

const settings = () => vscode.workspace.getConfiguration('kubeadmWorkbench');

suite('a newcomer connecting to a cluster', function () {
  this.timeout(120_000);
  const scratch = tempDir('kw-newcomer-');
  let c: TestCluster | undefined;

  suiteTeardown(async () => {
    await settings().update('kubeconfig', undefined, vscode.ConfigurationTarget.Workspace);
    await settings().update('kubeconfig', undefined, vscode.ConfigurationTarget.Global);
    await c?.stop();
  });

  test('no kubeconfig: the live views have no rows and no message, so their welcome buttons show', async () => {
    const a = await api();
    await settings().update('kubeconfig', join(scratch, 'no-such-kubeconfig'), vscode.ConfigurationTarget.Workspace);
    await vscode.commands.executeCommand('kubeadm.controlPlane.focus');
    await waitFor('the connection to fail for want of a kubeconfig', () => (a.connection.state.kind === 'error' && a.connection.state.message.includes('no-such-kubeconfig') ? true : undefined), 15_000);
    for (const view of [a.views.controlPlane, a.views.leases, a.views.etcdMembers] as unknown as Provider[]) {
      view.refresh?.();
      assert.deepEqual(await rows(view), []);
      assert.equal(view.treeView.message, undefined, 'a view message would hide the welcome content');
    }
  });

  test('a kubeconfig whose server refuses: the reason in plain words and what to do, as rows', async () => {
    const a = await api();
    const file = join(scratch, 'refused.kubeconfig');
    writeFileSync(file, ['apiVersion: v1', 'kind: Config', 'clusters: [{name: c, cluster: {server: "https://127.0.0.1:1", insecure-skip-tls-verify: true}}]', 'users: [{name: u, user: {token: t}}]', 'contexts: [{name: refused, context: {cluster: c, user: u}}]', 'current-context: refused', ''].join('\n'));
    await settings().update('kubeconfig', file, vscode.ConfigurationTarget.Workspace);
    const p = a.views.controlPlane as unknown as Provider;
    const got = await waitFor('problem rows', async () => {
      const r = await rows(p);
      return r[0]?.label === 'Cannot connect to the cluster' && /refused|127\.0\.0\.1:1/.test(r[0].description) ? r : undefined;
    }, 20_000);
    console.log(`      ${got.map((r) => `${r.label} — ${r.description}`).join(' | ')}`);
    assert.match(got[0]!.description, /refused|127\.0\.0\.1:1/);
    assert.ok(!got[0]!.description.includes('`'), 'no Markdown backticks in a row');
    assert.deepEqual(got.slice(1).map((r) => r.command), ['kubeadm.selectClusterContext', 'kubeadm.reconnectCluster']);
    assert.equal(p.treeView.message, undefined);
  });

  test('Select Cluster Context with no kubeconfig still opens a picker: where it looked, Browse, Settings, Bring Up', async () => {
    await settings().update('kubeconfig', join(scratch, 'no-such-kubeconfig'), vscode.ConfigurationTarget.Workspace);
    const d = answer(() => undefined);
    try {
      await vscode.commands.executeCommand('kubeadm.selectClusterContext');
    } finally {
      d.restore();
    }
    assert.equal(d.picks.length, 1, 'one picker, no toast instead of it');
    assert.match(d.picks[0]!.title ?? '', /^No kubeconfig file found \(looked at .*no-such-kubeconfig\)$/);
    assert.deepEqual(d.picks[0]!.items.map((i) => i.action?.kind), ['browse', 'settings', 'bringUp']);
    assert.deepEqual(d.messages, []);
  });

  test('Open Settings (welcome button and picker) opens the Settings editor on the kubeconfig setting', async () => {
    await vscode.commands.executeCommand('kubeadm.openKubeconfigSetting');
    const tab = await waitFor('the Settings editor', () => (vscode.window.tabGroups.activeTabGroup.activeTab?.label === 'Settings' ? vscode.window.tabGroups.activeTabGroup.activeTab : undefined), 10_000);
    await vscode.window.tabGroups.close(tab);
  });

  test('Show kubectl run Timeline… without a connection opens the picker right there (no loop through another command)', async () => {
    const d = answer(() => undefined);
    try {
      await vscode.commands.executeCommand('kubeadm.showPodTimeline');
    } finally {
      d.restore();
    }
    assert.equal(d.picks.length, 1);
    assert.match(d.picks[0]!.title ?? '', /No kubeconfig file found/);
    assert.ok(!d.messages.some((m) => /Select Cluster Context/.test(m)), d.messages.join('\n'));
  });

  test('Browse for a kubeconfig file… of a real kube-apiserver: saved as the setting, connected, Control Plane fills', async () => {
    const a = await api();
    c = await startTestCluster();
    await createNode(c, 'labs-k8s-m01', { controlPlane: true, address: '10.3.60.51' });
    for (const comp of ['etcd', 'kube-apiserver', 'kube-controller-manager', 'kube-scheduler']) await createMirrorPod(c, comp, 'labs-k8s-m01');
    // The workspace value would win over the user setting that Browse writes.
    await settings().update('kubeconfig', undefined, vscode.ConfigurationTarget.Workspace);
    await settings().update('kubeconfig', join(scratch, 'no-such-kubeconfig'), vscode.ConfigurationTarget.Global);
    const kubeconfig = c.kubeconfig;
    const d = answer((items) => items.find((i) => i.action?.kind === 'browse'), () => [vscode.Uri.file(kubeconfig)]);
    let connected;
    try {
      connected = await vscode.commands.executeCommand<boolean>('kubeadm.selectClusterContext');
    } finally {
      d.restore();
    }
    assert.deepEqual(d.messages, []);
    assert.equal(connected, true, `state: ${JSON.stringify(a.connection.state)}`);
    assert.equal(settings().inspect<string>('kubeconfig')?.globalValue, kubeconfig);
    await vscode.commands.executeCommand('kubeadm.controlPlane.focus');
    const p = a.views.controlPlane as unknown as Provider;
    const got = await waitFor('the control-plane node row', async () => (await rows(p)).find((r) => r.label === 'labs-k8s-m01'), 30_000);
    // The node row counts its four control-plane pods (kubectl-style words from the health model).
    assert.match(got.description, /\b[0-4]\/4 pods ready|pods last reported [0-4]\/4 ready/);
  });
});
