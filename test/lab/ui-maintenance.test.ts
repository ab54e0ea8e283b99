/**
 * Day-2 maintenance from the command palette in real VS Code (code-server, the installed .vsix) on the lab tier's
 * cluster, each checked by a witness outside the editor (etcdctl, kubectl, ssh, the CLI's reads):
 *  - "Defragment etcd…": a fragmented keyspace, the plan approved in its modal, one member at a time with the leader
 *    last (the run's ledger), every file smaller (`etcd status`), no request through the VIP failed;
 *  - a changed API server flag in the workspace's kubeadm-config.yaml: "Show Configuration Drift" names it (its pick,
 *    Problems, the diff editor); "Reconfigure Control Plane…"'s plan names it, the modal is cancelled, and nothing
 *    changed (no run, the ConfigMap and every API server as before);
 *  - "Recover etcd from NOSPACE…": a follower filled past a small quota (writes refused), the guided recovery within
 *    the node monitor's grace period less one lease renewal, no alarm left (`etcd alarms`), writes work, no Node went
 *    NotReady;
 *  - "Fix kubelet.conf…": w02's kubelet.conf made to embed its client certificate (kubeadm#1317), the node picked, the
 *    fix run; `certs` finds nothing embedded, the file names the rotated certificate, the node schedulable.
 * The CLI's versions of the defrag, the reconfigure, the NOSPACE recovery and the kubelet.conf fix (on w01) run in
 * maintenance.test.ts just before, on the same cluster.
 * Leaves it healthy (the quota back to etcd's default, w02 fixed and schedulable). Screenshots:
 * test-results/ui/maint-*.png. Needs root, the lab cluster, code-server and Chromium, the packaged .vsix.
 */
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { existsSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, describe } from 'node:test';
import { parseDocument, type YAMLMap, type YAMLSeq } from 'yaml';
import type { CertReport } from '../../src/core/certs/report';
import { parseInventory } from '../../src/core/inventory/parse';
import { recordBench } from './bench';
import { minimumPolls, waitHealthy, TAKE_OVER_HEALTHY_MS } from './clusterHealth';
import { openKubeadmContainer, openLabEditor, planApproval, runPaletteCommand, waitForLedger, type LabEditor } from './labEditor';
import { failuresMessage } from './httpPoller';
import * as lab from './maintenanceLab';
import { scenarioSteps } from '../vscode/harness/workbench';

const KUBELET_NODE = 'labs-k8s-w02';

describe('day-2 maintenance from the palette in VS Code on the lab cluster: defrag, reconfigure, NOSPACE, kubelet.conf', { timeout: 20 * 60_000 }, () => {
  let env: lab.MaintenanceEnv;
  let ed: LabEditor | undefined;
  const scenario = scenarioSteps(() => ed?.page);
  const step = scenario.step;
  const kubectl = (...args: string[]) => lab.kubectl(env, ...args);
  const runs = () => join(ed!.dirs.workspace, '.kubeadm-workbench', 'runs');

  before(async () => {
    if (process.getuid?.() !== 0) throw new Error('the lab needs root');
    env = lab.maintenanceEnv();
    await waitHealthy(env, env.HOME_DIR, TAKE_OVER_HEALTHY_MS);
    ed = await openLabEditor('ui-maintenance');
    await openKubeadmContainer(ed.page);
  });

  after(async () => {
    // Whatever failed above: no quota left on a member, w02 schedulable.
    for (const host of lab.CONTROL_PLANE) {
      spawnSync('ssh', ['-F', env.LAB_SSH_CONFIG!, '-o', `UserKnownHostsFile=${env.LAB_KNOWN_HOSTS}`, host, "sed -i '/^    - --quota-backend-bytes=/d' /etc/kubernetes/manifests/etcd.yaml"], { timeout: 60_000 });
    }
    spawnSync('kubectl', ['--kubeconfig', env.KUBECONFIG!, 'uncordon', KUBELET_NODE], { env: { ...process.env, PATH: env.PATH! }, timeout: 30_000 });
    await ed?.close(!scenario.failed);
  });

  step('"Defragment etcd…": one member at a time, the leader last, every file smaller, the API through the VIP unbroken', async () => {
    const { page, shot } = ed!;
    const before = await lab.fragment(env, 6 * 1024 * 1024, 4_000_000);
    const leader = before.find((m) => m.leader)!.host;
    const poller = lab.pollKubeadmConfig(env);
    const t0 = Date.now();
    let polled;
    let ledger;
    try {
      await runPaletteCommand(page, 'Kubeadm: Defragment etcd…');
      const modal = await planApproval(page, 'etcd-defrag-plan.txt');
      await shot('maint-1-defrag-approve');
      await modal.click('Run');
      ledger = await waitForLedger(page, runs(), 'etcd-defrag', 'defragmentation', 5);
    } finally {
      polled = await poller.stop();
    }
    const seconds = (Date.now() - t0) / 1000;
    console.log(lab.report('the defragmentation from the palette', polled));
    const defrags = Object.entries(ledger.steps).filter(([id]) => id.endsWith('/defrag')).map(([id, s]) => ({ host: id.split('/')[1]!, ...s })).sort((a, b) => Date.parse(a.startedAt!) - Date.parse(b.startedAt!));
    console.log(`defrag from the palette: ${seconds.toFixed(1)} s; ${defrags.map((d) => `${d.host} ${d.state} ${((Date.parse(d.finishedAt!) - Date.parse(d.startedAt!)) / 1000).toFixed(1)} s`).join(', ')}`);
    recordBench({ uiDefragSeconds: seconds, uiDefragApiPolls: polled.polls, uiDefragApiFailed: polled.failures.length });
    assert.deepEqual(defrags.map((d) => d.host).sort(), [...lab.CONTROL_PLANE].sort());
    assert.equal(defrags.at(-1)!.host, leader, `the leader ${leader} last: ${defrags.map((d) => d.host).join(', ')}`);
    for (const d of defrags) assert.equal(d.state, 'done', `${d.host} was fragmented: defragmented, not skipped`);
    for (let i = 1; i < defrags.length; i++) assert.ok(Date.parse(defrags[i]!.startedAt!) >= Date.parse(defrags[i - 1]!.finishedAt!), `${defrags[i]!.host} after ${defrags[i - 1]!.host}`);
    const after = lab.etcdStatus(env);
    for (const m of before) {
      const now = after.find((x) => x.host === m.host)!;
      assert.ok(now.dbSize < m.dbSize, `${m.host}: ${m.dbSize} → ${now.dbSize} bytes`);
    }
    assert.ok(polled.polls >= minimumPolls(seconds), `the API poller ran: ${polled.polls} polls in ${seconds.toFixed(1)} s`);
    assert.deepEqual(polled.failures, [], failuresMessage(polled, 'requests through the VIP failed during the defragmentation'));
    await page.locator('.notifications-toasts .notification-toast, .notifications-center .notification-list-item', { hasText: /etcd defragmentation of \S+ done/ }).first().waitFor({ timeout: 30_000 });
    await shot('maint-2-defrag-done');
  });

  step('a changed flag in the workspace: "Show Configuration Drift" names it; "Reconfigure Control Plane…"\'s plan too, cancelled in its modal, nothing changes', async () => {
    const { page, shot, dirs } = ed!;
    const current = kubectl('-n', 'kube-system', 'get', 'cm', 'kubeadm-config', '-o', 'jsonpath={.data.ClusterConfiguration}');
    const doc = parseDocument(current);
    const args = (doc.getIn(['apiServer', 'extraArgs']) as YAMLSeq<YAMLMap> | undefined)?.items ?? [];
    const backup = args.find((a) => a.get('name') === 'audit-log-maxbackup');
    assert.ok(backup, `the lab's API servers keep audit logs (--audit-log-maxbackup): ${current}`);
    const backupWas = String(backup.get('value'));
    const value = String(Number(backupWas) + 1);
    backup.set('value', value);
    writeFileSync(join(dirs.workspace, 'kubeadm-config.yaml'), doc.toString());
    // "Show Configuration Drift" names the difference first: in its pick, in Problems on the workspace's line, and in the
    // diff editor (the cluster's ConfigMap left, the workspace right).
    await runPaletteCommand(page, 'Kubeadm: Show Configuration Drift');
    const finding = page.locator('.quick-input-list .monaco-list-row', { hasText: 'apiServer.extraArgs.audit-log-maxbackup' }).first();
    await finding.waitFor({ timeout: 2 * 60_000 });
    assert.match((await finding.innerText()).replace(/\s+/g, ' '), new RegExp(`${backupWas}\\D+${value}|${value}\\D+${backupWas}`), 'the pick says both values');
    await shot('maint-3-drift');
    await finding.click();
    await page.locator('.tabs-container .tab', { hasText: 'cluster ConfigMap ↔ workspace' }).waitFor();
    await page.locator('#status\\.problems').click();
    await page.locator('.part.panel .markers-panel .monaco-list-row', { hasText: /audit-log-maxbackup/ }).first().waitFor({ timeout: 30_000 });
    const apiServers = () => lab.CONTROL_PLANE.map((n) => kubectl('-n', 'kube-system', 'get', 'pod', `kube-apiserver-${n}`, '-o', 'jsonpath={.spec.containers[0].command}'));
    const serversBefore = apiServers();
    const runsBefore = existsSync(runs()) ? readdirSync(runs()).filter((f) => f.endsWith('-reconfigure.json')) : [];
    await runPaletteCommand(page, 'Kubeadm: Reconfigure Control Plane…');
    const modal = await planApproval(page, 'reconfigure-plan.txt');
    // One node at a time behind the balancers: every control-plane node and every balancer has steps.
    const inventory = parseInventory(readFileSync(env.LAB_INVENTORY!, 'utf8')).inventory!;
    const hosts = inventory.hosts.filter((h) => h.roles.some((r) => r === 'control-plane' || r === 'loadbalancer')).length;
    assert.match(modal.message, new RegExp(`^Run \\d+ steps on ${hosts} hosts of ${inventory.cluster.name}\\?$`));
    const plan = page.locator('.editor-instance .monaco-editor .view-lines').filter({ hasText: 'Reconfigure the control plane' }).first();
    await plan.waitFor();
    assert.match((await plan.innerText()).replace(/\s+/g, ' '), new RegExp(`kube-apiserver: --audit-log-maxbackup=${value}\\b`), 'the plan names the flag and its new value');
    await shot('maint-4-reconfigure-plan');
    await modal.click('Cancel');
    await page.waitForTimeout(2000);
    assert.deepEqual(existsSync(runs()) ? readdirSync(runs()).filter((f) => f.endsWith('-reconfigure.json')) : [], runsBefore, 'no run started');
    assert.equal(kubectl('-n', 'kube-system', 'get', 'cm', 'kubeadm-config', '-o', 'jsonpath={.data.ClusterConfiguration}'), current, 'the ConfigMap as before');
    assert.deepEqual(apiServers(), serversBefore, 'every API server as before');
  });

  step('"Recover etcd from NOSPACE…": writes refused on a full follower; recovered within the grace period, writes back', async () => {
    const { page, shot } = ed!;
    const full = await lab.bringToNospace(env);
    try {
      assert.ok(lab.etcdAlarms(env).some((a) => a.alarm === 'NOSPACE'), 'the CLI sees the alarm');
      await runPaletteCommand(page, 'Kubeadm: Recover etcd from NOSPACE…');
      const modal = await planApproval(page, 'etcd-nospace-plan.txt');
      await shot('maint-5-nospace-approve');
      await modal.click('Run');
      const ledger = await waitForLedger(page, runs(), 'etcd-nospace', 'NOSPACE recovery', 5, 250);
      const recoveredMs = Date.parse(ledger.completedAt!) - full.alarmAt;
      console.log(`NOSPACE from the palette: recovered ${(recoveredMs / 1000).toFixed(1)} s after the alarm (bound ${full.boundMs / 1000} s = node-monitor-grace-period ${full.timings.nodeMonitorGraceMs / 1000} s, ${full.timings.nodeMonitorGraceSource}, less one lease renewal)`);
      recordBench({ uiNospaceRecoverySeconds: recoveredMs / 1000, nospaceBoundSeconds: full.boundMs / 1000 });
      assert.equal(lab.etcdctl(env, full.endpoint, 'put', '/kubeadm-workbench-test/after', 'ok').code, 0, 'writes work');
      assert.deepEqual(lab.etcdAlarms(env), [], 'no alarm left');
      assert.ok(recoveredMs < full.boundMs, `recovered in ${recoveredMs} ms, bound ${full.boundMs} ms`);
      lab.noNodeWentNotReady(env, full.alarmAt);
      await shot('maint-6-nospace-done');
    } finally {
      await full.restore();
    }
    await waitHealthy(env, env.HOME_DIR, 5 * 60_000);
  });

  step('"Fix kubelet.conf…": w02 picked, drained, pointed at the rotated certificate, Ready, uncordoned', async () => {
    const { page, shot } = ed!;
    await lab.embedKubeletClientCertificate(env, KUBELET_NODE);
    const seen = JSON.parse(lab.cli(env, 'certs', ['--host', KUBELET_NODE, '--json']).stdout) as CertReport;
    assert.equal(seen.hosts[0]!.entries.find((e) => e.id === 'kubelet.conf')?.fix, 'kubelet-conf', 'the CLI sees the embedded certificate');
    const t0 = Date.now();
    await runPaletteCommand(page, 'Kubeadm: Fix kubelet.conf…');
    await page.locator('.quick-input-widget .quick-input-title', { hasText: 'Fix kubelet.conf: which node?' }).waitFor();
    await page.locator('.quick-input-widget input.input').fill(KUBELET_NODE);
    await page.locator('.quick-input-list .monaco-list-row', { hasText: KUBELET_NODE }).first().waitFor();
    await page.keyboard.press('Enter');
    const modal = await planApproval(page, 'kubelet-conf-plan.txt');
    await shot('maint-7-kubelet-conf-approve');
    await modal.click('Run');
    const ledger = await waitForLedger(page, runs(), 'kubelet-conf', 'kubelet.conf fix', 5);
    const seconds = (Date.now() - t0) / 1000;
    // Drained before the kubelet restarted, uncordoned after it was Ready again: the run's own record of its steps.
    const at = (suffix: string, end: 'startedAt' | 'finishedAt') => Date.parse(Object.entries(ledger.steps).find(([id]) => id.endsWith(suffix))![1][end]!);
    assert.ok(at(`/drain-${KUBELET_NODE}`, 'finishedAt') <= at(`${KUBELET_NODE}/kubelet-restart`, 'startedAt'), 'drained before the kubelet restart');
    assert.ok(at(`${KUBELET_NODE}/kubelet-restart`, 'finishedAt') <= at(`/uncordon-${KUBELET_NODE}`, 'startedAt'), 'uncordoned after the kubelet was Ready again');
    console.log(`kubelet.conf fix of ${KUBELET_NODE} from the palette: ${seconds.toFixed(1)} s`);
    recordBench({ uiKubeletConfFixSeconds: seconds });
    const after = JSON.parse(lab.cli(env, 'certs', ['--host', KUBELET_NODE, '--json']).stdout) as CertReport;
    assert.ok(!after.hosts[0]!.entries.some((e) => e.id === 'kubelet.conf'), 'kubelet.conf takes the rotated file: nothing embedded left');
    assert.match(lab.ssh(env, KUBELET_NODE, 'grep client- /etc/kubernetes/kubelet.conf'), /client-certificate: \/var\/lib\/kubelet\/pki\/kubelet-client-current\.pem/);
    assert.equal(kubectl('get', `node/${KUBELET_NODE}`, '-o', 'jsonpath={.spec.unschedulable}').trim(), '', `${KUBELET_NODE} uncordoned`);
    await shot('maint-8-kubelet-conf-done');
    await waitHealthy(env, env.HOME_DIR, 3 * 60_000);
  });
});
