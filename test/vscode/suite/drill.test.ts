/**
 * Run Failure Drill… in real VS Code against a real kube-apiserver (test/integration/apiserver.ts): a worker powered
 * off and on through "hypervisor" commands from the (machine-scoped) settings — a small script that only records
 * what it was asked to do — while the test plays the node-lifecycle controller (the Node turns Unknown a set time
 * after the power-off ran, Ready once the power-on ran), since this cluster has no kube-controller-manager and no
 * kubelet. A kube-controller-manager mirror pod carries a 20 s node-monitor-grace-period, so that the drill's bounds
 * (NotReady 10–21 s after the fault) are short enough to play both a NotReady within them and one too early.
 * The questions are answered by a scripted Ui put in front of VS Code's through the extension's API; the plan and the
 * report documents and the run terminal stay VS Code's. The whole path with SSH,
 * HAProxy and etcd is the lab tier's (test/lab/drill.test.ts).
 */
import * as assert from 'node:assert/strict';
import { existsSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import * as vscode from 'vscode';
import { api, scripted, waitFor } from './helpers';
import type { PickItem } from '../../../src/engine/workflows/ui';
import { createNode, setNodeReady, startTestCluster, type TestCluster } from '../../integration/apiserver';
import { tempDir } from '../../tempDir';

const NODE = 'labs-k8s-w01';
/** The grace period the controller-manager pod below declares: NotReady 20 − 10 s (one lease renewal) to 20 + 1 s. */
const GRACE_FLAGS = ['--node-monitor-grace-period=20s', '--node-monitor-period=1s'];
/** Requests the drill's probe makes while the node is down (12 s at least, one every 0.5 s), halved for a loaded machine. */
const NOT_READY_MIN_REQUESTS = 12;


const byLabel = (label: RegExp) => (_title: string, items: readonly PickItem<unknown>[]) => items.find((i) => label.test(i.label));
const doc = (name: string) => vscode.workspace.textDocuments.find((t) => t.uri.path === `/${name}`)?.getText() ?? '';

suite('Run Failure Drill… against a real kube-apiserver', function () {
  this.timeout(120_000);
  let c: TestCluster;
  let dir: string;
  let controller: NodeJS.Timeout | undefined;
  let playController = true;
  /** How long after the power-off the played controller turns the Node Unknown. */
  let notReadyAfterMs = 12_000;
  const marker = (what: 'off' | 'on', host = NODE) => join(dir, `${what}-${host}`);

  suiteSetup(async function () {
    this.timeout(120_000);
    c = await startTestCluster();
    await createNode(c, 'labs-k8s-m01', { controlPlane: true, address: '10.3.60.51' });
    await createNode(c, NODE, { address: '10.3.60.54' });
    await createNode(c, 'labs-k8s-w02', { address: '10.3.60.55' });
    // What the drill reads the node-lifecycle timings from: the controller-manager's mirror pod and its flags.
    const cm = await c.api('POST', '/api/v1/namespaces/kube-system/pods', {
      apiVersion: 'v1',
      kind: 'Pod',
      metadata: { name: 'kube-controller-manager-labs-k8s-m01', namespace: 'kube-system', labels: { component: 'kube-controller-manager', tier: 'control-plane' }, annotations: { 'kubernetes.io/config.mirror': 'x' } },
      spec: { nodeName: 'labs-k8s-m01', containers: [{ name: 'kube-controller-manager', image: 'registry.k8s.io/kube-controller-manager:v1.34.12', command: ['kube-controller-manager', ...GRACE_FLAGS] }] },
    });
    assert.equal(cm.status, 201, JSON.stringify(cm.body));
    dir = tempDir('kw-drill-vscode-');
    const hypervisor = join(dir, 'hypervisor.js');
    writeFileSync(hypervisor, "require('fs').writeFileSync(require('path').join(__dirname, process.argv[2] + '-' + process.argv[3]), String(Date.now()));\n");
    const cfg = vscode.workspace.getConfiguration('kubeadmWorkbench');
    await cfg.update('drill.powerOffCommand', `"${process.execPath}" "${hypervisor}" off {host}`, vscode.ConfigurationTarget.Global);
    await cfg.update('drill.powerOnCommand', `"${process.execPath}" "${hypervisor}" on {host}`, vscode.ConfigurationTarget.Global);
    await cfg.update('kubeconfig', c.kubeconfig, vscode.ConfigurationTarget.Workspace);
    await (await api()).connection.reconnect();
    // The node-lifecycle controller of this cluster: Unknown notReadyAfterMs after the power-off, Ready after the power-on.
    let state: 'up' | 'down' = 'up';
    controller = setInterval(() => {
      if (!playController) return;
      const off = existsSync(marker('off'));
      const on = existsSync(marker('on'));
      const offFor = off ? Date.now() - Number(readFileSync(marker('off'), 'utf8')) : 0;
      const want = off && !on && offFor >= notReadyAfterMs ? 'down' : 'up';
      if (want !== state) {
        state = want;
        void setNodeReady(c, NODE, want === 'up', '10.3.60.54').catch(() => undefined);
      }
    }, 100);
  });

  suiteTeardown(async () => {
    if (controller) clearInterval(controller);
    const cfg = vscode.workspace.getConfiguration('kubeadmWorkbench');
    await cfg.update('drill.powerOffCommand', undefined, vscode.ConfigurationTarget.Global);
    await cfg.update('drill.powerOnCommand', undefined, vscode.ConfigurationTarget.Global);
    await cfg.update('kubeconfig', undefined, vscode.ConfigurationTarget.Workspace);
    await c?.stop();
    if (dir) rmSync(dir, { recursive: true, force: true });
  });

  const reset = () => {
    for (const w of ['off', 'on'] as const) rmSync(marker(w), { force: true });
  };

  // The row's node as the command's argument, as the row's menu passes it (the menu itself, right-clicked and picked
  // through, is tier 3's: test/ui/actions.ui.test.ts); here the report is read in full.
  test('power-off of a worker given its Inventory row: plan, approval, power off, NotReady, power on, Ready, report', async () => {
    reset();
    playController = true;
    notReadyAfterMs = 12_000;
    const d = await scripted({
      pick: (t, items) => byLabel(/^Power the node off/)(t, items) ?? byLabel(/^Do not wait for evictions/)(t, items),
      confirm: (r) => r.actions.find((i) => i === 'Run Drill'),
    });
    const t0 = Date.now();
    try {
      await vscode.commands.executeCommand('kubeadm.runFailureDrill', { kind: 'host', role: 'worker', host: { name: NODE, address: '10.3.60.54', roles: ['worker'] } });
    } finally {
      d.restore();
    }
    const plan = doc(`failure-drill-${NODE}-plan.md`);
    assert.match(plan, /# Failure drill: power-off labs-k8s-w01 \(worker\)/, plan);
    assert.match(plan, /\*\*Fault\*\* — power labs-k8s-w01 off: `local: .*hypervisor\.js.* off labs-k8s-w01`/);
    assert.match(plan, /the Node turns NotReady \(Ready=Unknown\) \| 10–21 s \| node-monitor-grace-period 20 s \(kube-controller-manager --node-monitor-grace-period\)/);
    const modal = d.confirms.find((r) => r.message === 'Power off labs-k8s-w01 and measure how labs-k8s copes?');
    assert.ok(modal?.detail?.includes('also when the drill fails or you cancel'), d.transcript.join('\n'));
    assert.ok(existsSync(marker('off')) && existsSync(marker('on')), 'powered off, then on again');
    const report = doc(`failure-drill-${NODE}-report.md`);
    assert.match(report, /# Failure drill: power-off labs-k8s-w01 \(worker\) — PASSED/, report);
    // Both bounds: not before the played controller turned it Unknown (12 s), not after the grace period's ceiling.
    const nr = /\| the Node turns NotReady \(Ready=Unknown\) \| (\d+(?:\.\d)?) s \| 10–21 s \| pass \| Ready=Unknown \(NodeStatusUnknown\) \|/.exec(report);
    assert.ok(nr, report);
    assert.ok(Number(nr[1]) >= 12 && Number(nr[1]) <= 21, `NotReady after ${nr[1]} s`);
    // Ready again: the played controller answers the power-on within its 100 ms tick; the drill polls every second.
    const ready = /\| the Node is Ready again \| (\d+(?:\.\d)?) s \((\d+(?:\.\d)?) s after the fault\) \| ≤ 300 s \| pass \|/.exec(report);
    assert.ok(ready, report);
    assert.ok(Number(ready[1]) <= 5, `Ready ${ready[1]} s after the restore began`);
    assert.ok(Number(ready[2]) >= Number(nr[1]), `Ready again at ${ready[2]} s after the fault, before NotReady at ${nr[1]} s`);
    // The drill's API probe asks every half second while the node is down (≥ 12 s here): never "0 of 0".
    const probed = /\| the API through the VIP \| — \| 0 failures \| pass \| 0 of (\d+) requests failed while the node was down/.exec(report);
    assert.ok(probed, report);
    assert.ok(Number(probed[1]) >= NOT_READY_MIN_REQUESTS, `the API probe asked ${probed[1]} times while the node was down`);
    assert.ok(d.messages().includes(`info: Failure drill on ${NODE} passed — see the report.`), d.transcript.join('\n'));
    assert.ok(vscode.window.terminals.some((t) => t.name === `Kubeadm: drill ${NODE}`), 'the run terminal');
    const off = Number(readFileSync(marker('off'), 'utf8'));
    const on = Number(readFileSync(marker('on'), 'utf8'));
    console.log(`      drill from the editor: ${Date.now() - t0} ms (power-off → power-on ${on - off} ms)`);
    assert.ok(on - off >= 12_000, `powered on ${on - off} ms after the power-off, before NotReady could be seen`);
  });

  test('a NotReady sooner than the grace period allows fails the drill', async () => {
    reset();
    playController = true;
    notReadyAfterMs = 0; // a node-lifecycle controller that does not wait: no real cluster does this
    const d = await scripted({
      pick: (t, items) => byLabel(/^Power the node off/)(t, items) ?? byLabel(/^Do not wait for evictions/)(t, items),
      confirm: (r) => r.actions.find((i) => i === 'Run Drill'),
    });
    try {
      await vscode.commands.executeCommand('kubeadm.runFailureDrill', NODE);
    } finally {
      d.restore();
      notReadyAfterMs = 12_000;
    }
    assert.ok(existsSync(marker('on')), 'powered on again');
    const report = await waitFor('the report of the failed drill', () => {
      const text = doc(`failure-drill-${NODE}-report.md`);
      return /— FAILED/.test(text) ? text : undefined;
    });
    assert.match(report, /\| the Node turns NotReady \(Ready=Unknown\) \| \d(\.\d)? s \| 10–21 s \| \*\*FAIL\*\* \| Ready=Unknown \(NodeStatusUnknown\); faster than the 10 s floor/, report);
    assert.ok(d.messages().some((s) => s.startsWith(`warning: Failure drill on ${NODE}: 1 measurement(s) outside their bounds`)), d.transcript.join('\n'));
  });

  test('a cancel stops the observation but never the power-on', async () => {
    reset();
    playController = false; // the node never turns NotReady: only the cancel ends the observation
    const d = await scripted({
      pick: (t, items) => byLabel(/^Power the node off/)(t, items) ?? byLabel(/^Do not wait for evictions/)(t, items),
      confirm: (r) => r.actions.find((i) => i === 'Run Drill'),
      cancelWhen: () => existsSync(marker('off')),
    });
    try {
      await vscode.commands.executeCommand('kubeadm.runFailureDrill', NODE);
    } finally {
      d.restore();
      playController = true;
    }
    assert.ok(existsSync(marker('on')), 'the node was powered on after the cancel');
    // The same report document as the first test's, refreshed by its content provider.
    await waitFor('the report of the cancelled drill', () => /— CANCELLED/.test(doc(`failure-drill-${NODE}-report.md`)) || undefined);
    assert.ok(d.messages().some((s) => s.startsWith(`warning: Failure drill on ${NODE}: cancelled`)), d.transcript.join('\n'));
  });

  test('a NotReady node is refused: the plan says why, nothing is powered off', async () => {
    reset();
    await setNodeReady(c, 'labs-k8s-w02', false, '10.3.60.55');
    const d = await scripted({ pick: (t, items) => byLabel(/^Power the node off/)(t, items) ?? items[0], confirm: (r) => r.actions[0] });
    try {
      await vscode.commands.executeCommand('kubeadm.runFailureDrill', 'labs-k8s-w02');
    } finally {
      d.restore();
      await setNodeReady(c, 'labs-k8s-w02', true, '10.3.60.55');
    }
    assert.match(doc('failure-drill-labs-k8s-w02-plan.md'), /## REFUSED — nothing will be done\n\n- labs-k8s-w02 is NotReady already: a drill starts from a healthy node/);
    assert.ok(d.messages().some((s) => s.startsWith('error: Failure drill on labs-k8s-w02 refused: labs-k8s-w02 is NotReady already')), d.transcript.join('\n'));
    assert.equal(d.confirms.length, 0, 'a refused drill asks nothing');
    assert.equal(existsSync(marker('off', 'labs-k8s-w02')), false);
  });

  test('power-off without the power commands in the settings points at them', async () => {
    const cfg = vscode.workspace.getConfiguration('kubeadmWorkbench');
    const saved = cfg.inspect<string>('drill.powerOnCommand')?.globalValue;
    await cfg.update('drill.powerOnCommand', undefined, vscode.ConfigurationTarget.Global);
    const d = await scripted({ pick: byLabel(/^Power the node off/) });
    try {
      await vscode.commands.executeCommand('kubeadm.runFailureDrill', NODE);
    } finally {
      d.restore();
      await cfg.update('drill.powerOnCommand', saved, vscode.ConfigurationTarget.Global);
    }
    assert.ok(d.messages().some((s) => s.startsWith('error: Powering a node off needs both kubeadmWorkbench.drill.powerOffCommand and kubeadmWorkbench.drill.powerOnCommand')), d.transcript.join('\n'));
    await waitFor('settings restored', () => vscode.workspace.getConfiguration('kubeadmWorkbench').get<string>('drill.powerOnCommand') === saved || undefined);
  });
});
