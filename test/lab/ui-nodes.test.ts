/**
 * Node operations from the command palette in real VS Code (code-server, the installed .vsix) on the lab cluster,
 * after test/lab/nodes.test.ts (which replaced the powered-off, wiped m01 with the spare m04 from the CLI):
 *  - "Kubeadm: Remove from Cluster…" of a worker that answers: picked, plan approved in its modal, drained, deleted and
 *    reset; the inventory edit (its diff shown) applied unsaved — the worker gone — and reverted; "Kubeadm: Join Hosts to Cluster…" joins
 *    it back, Ready;
 *  - "Kubeadm: Replace…" of m04 by m01 (powered on again, bare of Kubernetes, not in the inventory: typed in): the
 *    topology restored — three voting etcd members m01–m03, five Ready Nodes, the spare reset — and the inventory
 *    edit (m01 in m04's place) saved by the user.
 * The workspace's inventory is the lab's with m04 in m01's place, as the CLI's edit left it. Screenshots:
 * test-results/ui/nodes-*.png. Needs root, the lab cluster as nodes.test.ts leaves it, code-server and Chromium, the
 * packaged .vsix. Run: node --import tsx --test test/lab/nodes.test.ts test/lab/ui-nodes.test.ts
 */
import assert from 'node:assert/strict';
import { execFileSync, spawnSync } from 'node:child_process';
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import type { Page } from 'playwright-core';
import { parseDocument } from 'yaml';
import { recordBench } from './bench';
import { waitHealthy } from './clusterHealth';
import { labEnv, openLabEditor, pickManyInQuickPick, runPaletteCommand, type LabEditor } from './labEditor';
import { tempDir } from '../tempDir';

const OLD = 'labs-k8s-m01';
const OLD_LINE = /^ {2}- \{ name: labs-k8s-m01, address: 10\.3\.60\.51, roles: \[control-plane\] \}$/m;
const SPARE = 'labs-k8s-m04';
const SPARE_LINE = '  - { name: labs-k8s-m04, address: 10.3.60.57, roles: [control-plane] }';
const WORKER = 'labs-k8s-w02';
const NODES = ['labs-k8s-m01', 'labs-k8s-m02', 'labs-k8s-m03', 'labs-k8s-w01', 'labs-k8s-w02'];
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

describe('node operations from the palette in VS Code on the lab cluster', { timeout: 25 * 60_000 }, () => {
  let env: Record<string, string>;
  let ed: LabEditor | undefined;
  let ok = false;
  const numbers: Record<string, number | string> = {};

  const kubectl = (...args: string[]) => execFileSync('kubectl', ['--kubeconfig', env.KUBECONFIG!, '--request-timeout=10s', ...args], { encoding: 'utf8', env: { ...process.env, PATH: env.PATH! }, stdio: ['ignore', 'pipe', 'pipe'] });
  const ssh = (host: string, script: string) => spawnSync('ssh', ['-F', env.LAB_SSH_CONFIG!, '-o', `UserKnownHostsFile=${env.LAB_KNOWN_HOSTS}`, '-o', 'BatchMode=yes', '-o', 'ConnectTimeout=5', host, script], { encoding: 'utf8', timeout: 60_000 });
  const readyNodes = (): string[] => {
    type N = { metadata: { name: string }; status: { conditions: { type: string; status: string }[] } };
    return (JSON.parse(kubectl('get', 'nodes', '-o', 'json')).items as N[]).filter((n) => n.status.conditions.some((c) => c.type === 'Ready' && c.status === 'True')).map((n) => n.metadata.name).sort();
  };
  async function until<T>(what: string, timeoutMs: number, probe: () => T | undefined): Promise<T> {
    const end = Date.now() + timeoutMs;
    let last = '';
    for (;;) {
      try {
        const v = probe();
        if (v !== undefined) return v;
      } catch (e) {
        last = String((e as { stderr?: string }).stderr ?? e);
      }
      if (Date.now() > end) assert.fail(`${what}: not within ${timeoutMs / 1000} s ${last}`);
      await sleep(2000);
    }
  }

  /** The run terminal's text until the plan-run says how the run ended; a dialog on the way fails the test. */
  async function followRun(page: Page, title: string, minutes: number): Promise<string> {
    const dialog = page.locator('.monaco-dialog-box');
    const done = new RegExp(`${title.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')} done in [\\d.]+ s`);
    for (const deadline = Date.now() + minutes * 60_000; ;) {
      const terminal = (await page.locator('.xterm-rows').last().innerText().catch(() => '')).replace(/\u00a0/g, ' ');
      if (done.test(terminal)) return terminal;
      if (/(failed|cancelled) at .*; run the command again to resume/.test(terminal)) assert.fail(`${title} failed:\n${terminal.slice(-3000)}`);
      // The inventory edit is offered only after the run ended: its question may come up before the last line shows.
      if ((await dialog.isVisible()) && !/Apply the edit to inventory\.yaml\?/.test(await dialog.innerText().catch(() => ''))) assert.fail(`${title} stopped at a dialog: ${(await dialog.innerText()).replace(/\s+/g, ' ')}`);
      if (Date.now() > deadline) assert.fail(`${title} did not finish within ${minutes} minutes:\n${terminal.slice(-3000)}`);
      await page.waitForTimeout(1000);
    }
  }

  /** The modal that asks to run the plan (the plan document beside it): Run. */
  async function approve(page: Page, planTab: string, shot: string): Promise<void> {
    const dialog = page.locator('.monaco-dialog-box').filter({ hasText: /Run \d+ steps? on \d+ hosts? of labs-k8s\?/ });
    await dialog.waitFor({ timeout: 3 * 60_000 });
    await page.locator('.tabs-container .tab', { hasText: planTab }).first().waitFor();
    await ed!.shot(shot);
    await dialog.locator('.monaco-button', { hasText: /^Run$/ }).first().click();
    await dialog.waitFor({ state: 'hidden' });
  }

  /** A quick pick or input box: type, then Enter. */
  async function answer(page: Page, text: string, row?: string): Promise<void> {
    const input = page.locator('.quick-input-widget input.input');
    await input.waitFor();
    await input.fill(text);
    if (row) await page.locator('.quick-input-list .monaco-list-row', { hasText: row }).first().waitFor();
    await page.keyboard.press('Enter');
  }

  /** The question that offers the inventory edit (its diff beside it): "Apply (unsaved)" → inventory.yaml open and dirty. */
  async function applyTheEdit(page: Page, diffTab: string): Promise<void> {
    const dialog = page.locator('.monaco-dialog-box').filter({ hasText: /Apply the edit to inventory\.yaml\?/ });
    await dialog.waitFor({ timeout: 60_000 });
    await page.locator('.tabs-container .tab', { hasText: diffTab }).first().waitFor();
    await dialog.locator('.monaco-button', { hasText: 'Apply (unsaved)' }).first().click();
    await dialog.waitFor({ state: 'hidden' });
    await page.locator('.tabs-container .tab.dirty', { hasText: 'inventory.yaml' }).waitFor({ timeout: 30_000 });
  }

  const editorText = (page: Page) => page.locator('.editor-instance .view-lines').first().innerText().then((t) => t.replace(/\u00a0/g, ' '));

  before(async () => {
    if (process.getuid?.() !== 0) throw new Error('the lab needs root');
    env = labEnv();
    const lab = readFileSync(env.LAB_INVENTORY!, 'utf8');
    assert.match(lab, OLD_LINE, 'the lab inventory lists m01 as a control-plane host');
    // The state nodes.test.ts leaves: m04 in the cluster in m01's place, m01 powered off.
    assert.equal(ssh(SPARE, 'test -e /etc/kubernetes/kubelet.conf && echo joined').stdout.trim(), 'joined', `${SPARE} is a node (run test/lab/nodes.test.ts first)`);
    spawnSync('bash', [join(__dirname, '../../lab/lab.sh'), 'fault', 'power-on', OLD], { encoding: 'utf8', timeout: 5 * 60_000 });
    await until(`${OLD} answers over SSH`, 120_000, () => (ssh(OLD, 'true').status === 0 ? true : undefined));
    const home = tempDir('kw-ui-nodes-home-');
    // The desktop's default: a web workbench saves after a delay by default, and the test reads the unsaved edit.
    ed = await openLabEditor('ui-nodes', { 'files.autoSave': 'off' }, (text) => text.replace(OLD_LINE, SPARE_LINE));
    // Healthy as that inventory says (m04 in m01's place): every backend UP, etcd and the Nodes.
    const inventory = join(ed.dirs.workspace, 'inventory.yaml');
    await waitHealthy({ ...env, LAB_INVENTORY: inventory }, home, 300_000);
  });

  after(async () => {
    console.log('node operations from the palette:', JSON.stringify(numbers, null, 2));
    await ed?.close(ok);
  });

  it('"Remove from Cluster…" of a worker: drained, deleted, reset; the edit shown unsaved; "Join Hosts to Cluster…" brings it back', async () => {
    const { page, shot } = ed!;
    let t0 = Date.now();
    await runPaletteCommand(page, 'Kubeadm: Remove from Cluster…');
    await answer(page, WORKER, WORKER);
    await approve(page, `remove-${WORKER}-plan.txt`, 'nodes-1-remove-approve');
    await followRun(page, `Remove ${WORKER} from the cluster`, 8);
    numbers.removeWorkerSeconds = (Date.now() - t0) / 1000;
    assert.ok(!kubectl('get', 'nodes', '-o', 'name').includes(`node/${WORKER}`), `${WORKER}'s Node deleted`);
    assert.equal(ssh(WORKER, 'test ! -e /etc/kubernetes/kubelet.conf && echo reset').stdout.trim(), 'reset', `${WORKER} reset over SSH`);
    await applyTheEdit(page, `remove-${WORKER}-inventory.diff`);
    const edited = await editorText(page);
    assert.ok(!edited.includes(`name: ${WORKER}`), `the edit takes ${WORKER} out:\n${edited}`);
    assert.ok(readFileSync(join(ed!.dirs.workspace, 'inventory.yaml'), 'utf8').includes(`name: ${WORKER}`), 'unsaved: the file on disk is as it was');
    await shot('nodes-2-remove-edit');
    await runPaletteCommand(page, 'File: Revert File');
    await page.locator('.tabs-container .tab.dirty', { hasText: 'inventory.yaml' }).waitFor({ state: 'detached', timeout: 30_000 });

    t0 = Date.now();
    await runPaletteCommand(page, 'Kubeadm: Join Hosts to Cluster…');
    await page.locator('.quick-input-widget .quick-input-title', { hasText: 'Join hosts to the cluster' }).waitFor();
    await pickManyInQuickPick(page, [WORKER]);
    await approve(page, 'join-plan.txt', 'nodes-3-join-approve');
    await followRun(page, `Join of ${WORKER}`, 10);
    await until(`${WORKER} Ready`, 5 * 60_000, () => (readyNodes().includes(WORKER) ? true : undefined));
    numbers.joinWorkerSeconds = (Date.now() - t0) / 1000;
    recordBench({ uiRemoveWorkerSeconds: numbers.removeWorkerSeconds, uiJoinWorkerSeconds: numbers.joinWorkerSeconds });
  });

  it('"Replace…" of the spare by the old node (not in the inventory: typed in): the topology restored, the edit saved', async () => {
    const { page, shot, dirs } = ed!;
    const t0 = Date.now();
    await runPaletteCommand(page, 'Kubeadm: Replace…');
    await answer(page, SPARE, SPARE);
    await answer(page, 'A host that is not in the inventory', 'A host that is not in the inventory');
    await answer(page, OLD);
    await answer(page, '10.3.60.51');
    await approve(page, `replace-${SPARE}-plan.txt`, 'nodes-4-replace-approve');
    await followRun(page, `Replace ${SPARE} with ${OLD}`, 12);
    numbers.replaceSeconds = (Date.now() - t0) / 1000;
    // The terminal shows only its last rows: the run log beside the inventory has every step.
    const runs = join(dirs.workspace, '.kubeadm-workbench', 'runs');
    const runLog = readdirSync(runs).filter((f) => f.endsWith('-replace.log')).sort().at(-1);
    assert.ok(runLog, `no replace run log in ${runs}`);
    assert.match(readFileSync(join(runs, runLog), 'utf8'), new RegExp(`\\[${SPARE}\\] -> Stop the API server, controller-manager and scheduler on ${SPARE}`));
    await shot('nodes-5-replace-done');
    await applyTheEdit(page, `replace-${SPARE}-inventory.diff`);
    await page.keyboard.press('Control+S');
    await page.locator('.tabs-container .tab.dirty', { hasText: 'inventory.yaml' }).waitFor({ state: 'detached', timeout: 30_000 });
    const saved = parseDocument(readFileSync(join(dirs.workspace, 'inventory.yaml'), 'utf8')).toJS() as { hosts: { name: string; roles: string[] }[] };
    assert.deepEqual(saved.hosts.filter((h) => h.roles.includes('control-plane')).map((h) => h.name).sort(), ['labs-k8s-m01', 'labs-k8s-m02', 'labs-k8s-m03'], 'the saved inventory lists m01 in m04\'s place');

    await until('every node Ready', 5 * 60_000, () => (JSON.stringify(readyNodes()) === JSON.stringify(NODES) ? true : undefined));
    const members = kubectl('-n', 'kube-system', 'exec', 'etcd-labs-k8s-m02', '--', 'etcdctl', '--endpoints=https://127.0.0.1:2379', '--cacert=/etc/kubernetes/pki/etcd/ca.crt',
      '--cert=/etc/kubernetes/pki/etcd/server.crt', '--key=/etc/kubernetes/pki/etcd/server.key', 'member', 'list').trim().split('\n').map((l) => l.split(', '));
    assert.deepEqual(members.map((m) => `${m[2]} ${m[1]} ${m[5]}`).sort(), NODES.slice(0, 3).map((n) => `${n} started false`), 'three started, voting members m01–m03');
    assert.equal(ssh(SPARE, 'test ! -e /etc/kubernetes/kubelet.conf && test -z "$(ls -A /var/lib/etcd 2>/dev/null)" && echo bare').stdout.trim(), 'bare', 'the spare is reset');
    recordBench({ uiReplaceSeconds: numbers.replaceSeconds });
    ok = true;
  });
});
