/**
 * Day-2 maintenance in real VS Code, over hosts played below SSH (the extension's test hook; no host is contacted):
 *  - "Show Configuration Drift": a flag only the cluster's kubeadm-config ConfigMap has is a Problems entry on the
 *    workspace kubeadm-config.yaml's line that says the API server's settings; a flag added by hand to m02's
 *    kube-scheduler manifest, picked from the list, opens in VS Code's diff editor (the manifest as the cluster says it
 *    should be, left; m02's own, right);
 *  - "Defragment etcd…" sits in the etcd Members view's title bar and, with a member down, refuses before any change.
 * The lab runs both on its cluster (test/lab/maintenance.test.ts).
 */
import * as assert from 'node:assert/strict';
import * as vscode from 'vscode';
import { api, extension, scripted, waitFor, workspaceFolder } from './helpers';
import { EtcdHosts } from '../../unit/backup/etcdHosts';
import type { RemoteCommand } from '../../../src/core/ssh/command';
import type { ExecResult } from '../../../src/core/ssh/transport';

const CLUSTER = `apiVersion: kubeadm.k8s.io/v1beta3
kind: ClusterConfiguration
clusterName: labs-k8s
kubernetesVersion: v1.30.14
controlPlaneEndpoint: 10.3.60.100:6443
networking:
  podSubnet: 10.244.0.0/16
  serviceSubnet: 10.96.0.0/12
  dnsDomain: cluster.local
apiServer:
  certSANs: [10.3.60.100, 10.3.60.50, labs-k8s-m01, labs-k8s-m02, labs-k8s-m03, 10.3.60.51, 10.3.60.52, 10.3.60.53]
  extraArgs:
    profiling: "false"
`;
const KUBELET = 'apiVersion: kubelet.config.k8s.io/v1beta1\nkind: KubeletConfiguration\ncgroupDriver: systemd\n';

const scheduler = (extra: string) => `apiVersion: v1\nkind: Pod\nspec:\n  containers:\n  - command:\n    - kube-scheduler\n    - --leader-elect=true\n${extra}    image: registry.k8s.io/kube-scheduler:v1.30.14\n    name: kube-scheduler\n`;
const apiserver = (address: string) => `apiVersion: v1\nkind: Pod\nspec:\n  containers:\n  - command:\n    - kube-apiserver\n    - --advertise-address=${address}\n    - --profiling=false\n    image: registry.k8s.io/kube-apiserver:v1.30.14\n    name: kube-apiserver\n`;

/** The cluster's ConfigMaps and nodes as the drift commands read them; m02's scheduler with a flag added by hand. */
class DriftHosts {
  async exec(host: string, cmd: RemoteCommand): Promise<ExecResult> {
    const ok = (stdout: string): ExecResult => ({ code: 0, signal: null, stdout, stderr: '' });
    if (cmd.text.includes('kw-cluster')) return ok(`\u001ekw-cluster\n${CLUSTER}\n\u001ekw-kubelet\n${KUBELET}\n\u001ekw-proxy\n`);
    const address = `10.3.60.5${host.slice(-1)}`;
    const file = (path: string, text: string) => `\u001ekw-file ${path}\n${text}\n`;
    const cp = /-m0\d$/.test(host);
    return ok([
      ...(cp ? [
        file('/etc/kubernetes/manifests/kube-apiserver.yaml', apiserver(address)),
        file('/etc/kubernetes/manifests/kube-scheduler.yaml', scheduler(host.endsWith('m02') ? '    - --v=3\n' : '')),
        file('/etc/kubernetes/manifests/kube-controller-manager.yaml', scheduler('').replace(/scheduler/g, 'controller-manager')),
        file('/etc/kubernetes/manifests/etcd.yaml', `spec:\n  containers:\n  - command:\n    - etcd\n    - --name=${host}\n    image: registry.k8s.io/etcd:3.5.15-0\n    name: etcd\n`),
      ] : []),
      file('/var/lib/kubelet/config.yaml', KUBELET),
    ].join(''));
  }
  async close(): Promise<void> {}
  loginUser(): string {
    return 'root';
  }
  refusedKey(): undefined {
    return undefined;
  }
  acceptKey(): void {}
}

suite('day-2 maintenance in the editor', function () {
  this.timeout(60_000);

  test('Show Configuration Drift: a Problems entry on the workspace line, and a node\'s hand-made flag in the diff editor', async () => {
    const a = await api();
    assert.ok(a.substituteSsh, 'the test harness runs the extension host with KW_TEST_UI=1');
    a.substituteSsh(() => new DriftHosts() as never);
    const w = vscode.window as unknown as Record<string, unknown>;
    const saved = w.showQuickPick;
    const offered: string[] = [];
    w.showQuickPick = async (items: readonly { label: string }[]) => {
      offered.push(...items.map((i) => i.label));
      return items.find((i) => /labs-k8s-m02: kube-scheduler --v/.test(i.label));
    };
    try {
      await vscode.commands.executeCommand('kubeadm.showDrift');
    } finally {
      w.showQuickPick = saved;
      a.substituteSsh(undefined);
    }
    assert.ok(offered.some((l) => /ClusterConfiguration apiServer\.extraArgs\.profiling/.test(l)), offered.join('\n'));
    const file = vscode.Uri.joinPath(workspaceFolder().uri, 'kubeadm-config.yaml');
    const problems = vscode.languages.getDiagnostics(file).filter((d) => d.source === 'kubeadm-workbench drift');
    assert.equal(problems.length, 1, problems.map((p) => p.message).join('\n'));
    assert.match(problems[0]!.message, /apiServer\.extraArgs\.profiling: the kubeadm-config ConfigMap has false; the workspace does not set it/);
    const text = (await vscode.workspace.openTextDocument(file)).getText();
    assert.equal(problems[0]!.range.start.line, text.split('\n').findIndex((l) => l.startsWith('apiServer:')), 'on the line of the API server\'s settings');
    const tab = await waitFor('the diff editor', () => {
      const t = vscode.window.tabGroups.activeTabGroup.activeTab;
      return t?.input instanceof vscode.TabInputTextDiff ? t : undefined;
    });
    const input = tab.input as vscode.TabInputTextDiff;
    assert.equal(input.original.path, '/drift/labs-k8s-m02-kube-scheduler.expected.yaml');
    assert.equal(input.modified.path, '/drift/labs-k8s-m02-kube-scheduler.yaml');
    const left = (await vscode.workspace.openTextDocument(input.original)).getText();
    const right = (await vscode.workspace.openTextDocument(input.modified)).getText();
    assert.ok(right.includes('- --v=3') && !left.includes('--v=3'), `${left}\n---\n${right}`);
    await vscode.commands.executeCommand('workbench.action.closeActiveEditor');
  });

  test('Defragment etcd… is in the etcd Members view\'s title bar; with a member down it refuses before any change', async () => {
    const pkg = extension().packageJSON as { contributes: { menus: Record<string, { command: string; when?: string }[]> } };
    assert.ok(pkg.contributes.menus['view/title']!.some((m) => m.command === 'kubeadm.defragEtcd' && /view == kubeadm\.etcdMembers/.test(m.when ?? '')));
    assert.ok(pkg.contributes.menus['view/title']!.some((m) => m.command === 'kubeadm.recoverEtcdNospace' && /view == kubeadm\.etcdMembers/.test(m.when ?? '')));
    const a = await api();
    const hosts = Object.assign(new EtcdHosts({ downMembers: ['m03'], extra: (_h, text) => (text.includes(' alarm list') ? { code: 0, signal: null, stdout: '', stderr: '' } : undefined) }), { loginUser: () => 'root', refusedKey: () => undefined, acceptKey: () => undefined });
    a.substituteSsh!(() => hosts as never);
    const ui = await scripted({ confirm: (r) => r.actions[0] });
    try {
      await vscode.commands.executeCommand('kubeadm.defragEtcd');
    } finally {
      ui.restore();
      a.substituteSsh!(undefined);
    }
    assert.ok(ui.messages('error').some((m) => /^etcd defragmentation of labs-k8s refused; nothing was done: etcd member m03 \(unreachable/.test(m)), ui.transcript.join('\n'));
    assert.equal(ui.confirms.length, 0, 'no plan offered');
    assert.ok(!hosts.log.some((l) => /defrag/.test(l.display)), 'nothing defragmented');
  });
});
