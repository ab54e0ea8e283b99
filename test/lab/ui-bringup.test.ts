/**
 * Bring-up from the command palette in real VS Code (code-server, driven by Debian's Chromium through
 * playwright-core) against the lab's bare nodes: the lab is reset, a workspace with the lab's inventory
 * is opened and trusted through VS Code's own dialog, "Kubeadm: Bring Up Cluster" is run from the
 * palette, the plan is approved in the modal, and the run is followed to its notification; then
 * kubectl and etcdctl say what the user would check. Screenshots: test-results/ui/bringup-*.png.
 *
 * Leaves the cluster up, its admin context in the lab's kubeconfig (`lab env` KUBECONFIG, outside the
 * workspace): the live, drain and drill tests of the lab tier run on it. Needs root, the lab (`npm run lab
 * -- build`), code-server and Chromium (scripts/setup.sh) and the packaged .vsix (npm run package:tests).
 * Run: node --import tsx --test test/lab/ui-bringup.test.ts
 */
import * as assert from 'node:assert/strict';
import { execFileSync, spawnSync } from 'node:child_process';
import { copyFileSync, existsSync, mkdirSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import type { BrowserContext, Locator, Page } from 'playwright-core';
import {
  QUIET_SETTINGS,
  REPO,
  extensionHostErrors,
  launchBrowser,
  makeRunDirs,
  removeRunDir,
  startCodeServer,
  workbenchUrl,
  type CodeServer,
  type RunDirs,
} from '../vscode/harness/codeServer';
import { installVsix } from '../vscode/harness/vsix';
import { recordBench } from './bench';
import { checkRunLogs, secretsIn } from './secrets';
import { tempDir } from '../tempDir';

const LAB = join(REPO, 'lab/lab.sh');
const SHOTS = join(REPO, 'test-results/ui');
const NODES = ['labs-k8s-m01', 'labs-k8s-m02', 'labs-k8s-m03', 'labs-k8s-w01', 'labs-k8s-w02'];
const env: Record<string, string> = {};
const report: Record<string, number | string> = {};

function lab(args: string[], timeoutMs = 20 * 60_000): string {
  const r = spawnSync('bash', [LAB, ...args], { encoding: 'utf8', timeout: timeoutMs });
  if (r.status !== 0) throw new Error(`lab ${args.join(' ')} failed (${r.status}):\n${r.stdout}\n${r.stderr}`);
  return r.stdout;
}
const kubectl = (...args: string[]) =>
  execFileSync('kubectl', ['--kubeconfig', env.KUBECONFIG!, '--request-timeout=10s', ...args], { encoding: 'utf8', env: { ...process.env, PATH: env.PATH! } });

/** The host keys the nodes present, as `ssh-keyscan` sees them, next to the ones the lab's known_hosts records. */
function hostKeyDiagnosis(): string {
  const scan = spawnSync('sh', ['-c', 'for ip in 10.3.60.50 10.3.60.56 10.3.60.51 10.3.60.52 10.3.60.53 10.3.60.54 10.3.60.55; do ssh-keyscan -T 3 -t ed25519 $ip 2>/dev/null | ssh-keygen -lf - ; done'], { encoding: 'utf8' }).stdout;
  const known = spawnSync('sh', ['-c', `grep ssh-ed25519 ${env.LAB_KNOWN_HOSTS} | ssh-keygen -lf -`], { encoding: 'utf8' }).stdout;
  return `presented now:\n${scan}recorded:\n${known}`;
}

/** Every node answers over SSH with the key the lab's known_hosts records: the editor must not ask about any. */
function labAnswersWithRecordedKeys(): void {
  const status = lab(['status']);
  const notOk = [...status.matchAll(/^(labs-k8s-\S+)\s+\S+\s+(\S+)\s+(\S+)/gm)].filter((m) => m[2] !== 'running' || m[3] !== 'ok');
  assert.deepEqual(notOk.map((m) => m[1]), [], `the lab's nodes do not all answer over SSH with their recorded keys:\n${status}\n${hostKeyDiagnosis()}`);
}

describe('bring-up from the palette in VS Code, on the lab\'s bare nodes', { timeout: 20 * 60_000 }, () => {
  let dirs: RunDirs;
  let cs: CodeServer | undefined;
  let context: BrowserContext | undefined;
  let page: Page;
  let ok = false;

  before(async () => {
    if (process.getuid?.() !== 0) throw new Error('the lab needs root: run as root');
    if (!existsSync(join(REPO, 'dist/extension.js'))) throw new Error('dist/extension.js missing: run npm run build first');
    mkdirSync(SHOTS, { recursive: true });
    const t0 = Date.now();
    // Bare Debian on every node (the lab comes up first when it is down).
    lab(['reset']);
    report.labResetSeconds = (Date.now() - t0) / 1000;
    for (const m of lab(['env']).matchAll(/^export (\w+)="(.*)"$/gm)) env[m[1]!] = m[2]!.replace('$PATH', process.env.PATH ?? '');
    labAnswersWithRecordedKeys();

    // The workspace: the lab's inventory and the files it names, as scripts/start.sh --lab opens them.
    const labState = dirname(env.LAB_INVENTORY!);
    const staging = tempDir('kw-ui-bringup-ws-');
    for (const f of ['inventory.yaml', 'kube-flannel.yml', 'kubeadm-extra.yaml']) copyFileSync(join(labState, f), join(staging, f));
    dirs = makeRunDirs('ui-bringup', staging);
    rmSync(staging, { recursive: true, force: true });
    // Workspace trust on: the test trusts the folder itself. The DOM terminal renderer makes the run
    // terminal's text readable.
    writeFileSync(join(dirs.userData, 'User', 'settings.json'), JSON.stringify({
      ...QUIET_SETTINGS,
      'security.workspace.trust.enabled': true,
      'security.workspace.trust.startupPrompt': 'always',
      'terminal.integrated.gpuAcceleration': 'off',
    }, null, 2));
    // Like start.sh --lab: the lab's SSH config and known_hosts, and the lab's kubeconfig (outside the
    // workspace) for the admin context, as Remote settings. These settings are machine-overridable: in the
    // User file, once the folder was trusted through the dialog, code-server's window did not apply them
    // (the editor asked about every lab host's key, and admin.conf would have gone to ~/.kube/config).
    mkdirSync(join(dirs.userData, 'Machine'), { recursive: true });
    writeFileSync(join(dirs.userData, 'Machine', 'settings.json'), JSON.stringify({
      'kubeadmWorkbench.kubeconfig': env.KUBECONFIG,
      'kubeadmWorkbench.sshConfigFile': env.LAB_SSH_CONFIG,
      'kubeadmWorkbench.knownHostsFile': env.LAB_KNOWN_HOSTS,
    }, null, 2));

    // What users install: the packaged .vsix (run.sh packages it first).
    installVsix(dirs);
    cs = await startCodeServer({ dirs, smokeTestDriver: true, workspaceTrust: true });
    ({ context, page } = await launchBrowser(dirs));
    page.setDefaultTimeout(30_000);
    await page.goto(workbenchUrl(cs, dirs.workspace, [['skipWelcome', 'true']]));
  });

  after(async () => {
    if (!ok && page) await page.screenshot({ path: join(SHOTS, 'bringup-failure.png') }).catch(() => undefined);
    if (!ok && dirs) for (const e of extensionHostErrors(dirs)) console.log(`extension host: ${e}`);
    await context?.close().catch(() => undefined);
    await cs?.stop();
    console.log('UI bring-up report:', JSON.stringify(report, null, 2));
    if (ok) removeRunDir(dirs);
    else if (dirs) console.log(`run folder kept: ${dirs.root}`);
  });

  const button = (dialog: Locator, label: string | RegExp) => dialog.locator('.monaco-button', { hasText: label }).first();

  it('trusts the lab workspace, runs "Kubeadm: Bring Up Cluster" from the palette, approves the plan and gets an HA cluster', async () => {
    // VS Code asks whether to trust the folder; nothing of ours connects before the answer.
    const dialog = page.locator('.monaco-dialog-box');
    await dialog.filter({ hasText: /trust the authors/i }).waitFor({ timeout: 90_000 });
    await page.screenshot({ path: join(SHOTS, 'bringup-1-trust.png') });
    await button(dialog, /Yes, I trust/).click();
    await dialog.waitFor({ state: 'hidden' });
    await page.locator('.explorer-folders-view .monaco-list-row', { hasText: 'inventory.yaml' }).waitFor({ timeout: 60_000 });
    await page.locator('.part.activitybar a[aria-label^="Kubeadm"]').first().waitFor({ timeout: 60_000 });

    await page.keyboard.press('F1');
    const input = page.locator('.quick-input-widget input.input');
    await input.fill('>Kubeadm: Bring Up Cluster');
    await page.locator('.quick-input-list .monaco-list-row', { hasText: 'Bring Up Cluster' }).first().waitFor();
    await page.keyboard.press('Enter');
    // The phases, all ticked: accept.
    await page.locator('.quick-input-widget .quick-input-title', { hasText: 'Bring up the cluster' }).waitFor();
    await page.locator('.quick-input-list .monaco-list-row', { hasText: 'join-workers' }).first().waitFor();
    await page.keyboard.press('Enter');

    // The plan opens beside the modal that asks to run it.
    const approve = dialog.filter({ hasText: /Run \d+ steps on \d+ hosts of labs-k8s\?/ });
    await approve.waitFor({ timeout: 60_000 });
    await page.locator('.tabs-container .tab', { hasText: 'bring-up-plan.txt' }).waitFor();
    report.approval = (await approve.locator('.dialog-message-text').innerText()).trim();
    labAnswersWithRecordedKeys();
    await page.screenshot({ path: join(SHOTS, 'bringup-2-approve.png') });
    const t0 = Date.now();
    await button(approve, /^Run$/).click();

    // Progress in a notification and the run terminal, to the end. A dialog on the way (a host key
    // prompt, a kubeconfig question) means the run is waiting for an answer it should not need: fail.
    await page.locator('.panel .pane-header, .panel .composite.title, .panel', { hasText: 'Kubeadm: Bring-up of labs-k8s' }).first().waitFor({ timeout: 60_000 });
    // The run terminal's last line says how it ended; a toast may come and go unseen, so the notification
    // is read in the notification center afterwards.
    const terminalText = async () => (await page.locator('.xterm-rows').last().innerText().catch(() => '')).replace(/\u00a0/g, ' ');
    let progressShot = false;
    let terminal = '';
    for (const deadline = Date.now() + 8 * 60_000; ; ) {
      terminal = await terminalText();
      if (/Bring-up of labs-k8s done in [\d.]+ s/.test(terminal)) break;
      if (/(failed|cancelled) at .*; run the command again to resume/.test(terminal)) assert.fail(`the bring-up failed:\n${terminal.slice(-3000)}`);
      if (await dialog.isVisible()) assert.fail(`the run stopped at a dialog: ${(await dialog.innerText()).replace(/\s+/g, ' ')}\n${hostKeyDiagnosis()}`);
      if (!progressShot && Date.now() - t0 > 45_000) {
        progressShot = true;
        await page.screenshot({ path: join(SHOTS, 'bringup-3-progress.png') });
      }
      if (Date.now() > deadline) assert.fail(`the bring-up did not finish within 8 minutes:\n${terminal.slice(-3000)}`);
      await page.waitForTimeout(1000);
    }
    report.uiBringUpSeconds = (Date.now() - t0) / 1000;
    recordBench({ uiBringUpSeconds: report.uiBringUpSeconds, ...phaseSpans(join(dirs.workspace, '.kubeadm-workbench', 'runs')) });
    report.runSaid = /Bring-up of labs-k8s done in [\d.]+ s/.exec(terminal)![0];
    await page.screenshot({ path: join(SHOTS, 'bringup-4-done.png') });
    await page.keyboard.press('F1');
    await input.fill('>Notifications: Show Notifications');
    await page.locator('.quick-input-list .monaco-list-row', { hasText: 'Show Notifications' }).first().waitFor();
    await page.keyboard.press('Enter');
    const upNotice = page.locator('.notifications-center .notification-list-item', { hasText: /labs-k8s is up \([\d.]+ s\)/ }).first();
    await upNotice.waitFor({ timeout: 10_000 });
    const notification = (await upNotice.innerText()).replace(/\s+/g, ' ').trim();
    report.notification = notification;
    assert.match(notification, new RegExp(`Admin context labs-k8s-admin@labs-k8s in ${env.KUBECONFIG!.replace(/[.*+?^${}()|[\]\\/]/g, '\\$&')}`));
    await page.screenshot({ path: join(SHOTS, 'bringup-5-notification.png') });

    // What a user checks next, with the context the run wrote.
    assert.match(readFileSync(env.KUBECONFIG!, 'utf8'), /current-context: labs-k8s-admin@labs-k8s/);
    type NodeJson = { metadata: { name: string }; status: { conditions: { type: string; status: string }[] } };
    const nodes = JSON.parse(kubectl('get', 'nodes', '-o', 'json')).items as NodeJson[];
    assert.deepEqual(nodes.filter((n) => n.status.conditions.some((c) => c.type === 'Ready' && c.status === 'True')).map((n) => n.metadata.name).sort(), NODES);
    const members = kubectl('-n', 'kube-system', 'exec', 'etcd-labs-k8s-m01', '--', 'etcdctl', '--endpoints=https://127.0.0.1:2379', '--cacert=/etc/kubernetes/pki/etcd/ca.crt',
      '--cert=/etc/kubernetes/pki/etcd/server.crt', '--key=/etc/kubernetes/pki/etcd/server.key', 'member', 'list').trim().split('\n').map((l) => l.split(', '));
    assert.equal(members.length, 3, members.join('\n'));
    assert.deepEqual(members.map((m) => `${m[1]} ${m[5]}`), ['started false', 'started false', 'started false'], 'three started, voting members');
    assert.deepEqual(members.map((m) => m[2]).sort(), NODES.slice(0, 3));

    // The run's log in the workspace (deleted with it once this test passes): both control-plane joins and the
    // workers' with the token and certificate key as ***, and no secret there or in the run terminal.
    const logs = checkRunLogs(join(dirs.workspace, '.kubeadm-workbench', 'runs'));
    report.runLogs = JSON.stringify(logs);
    assert.ok(logs.some((l) => l.masked.token >= 4 && l.masked.certificateKey >= 2), `the bring-up's log shows every join masked: ${JSON.stringify(logs)}`);
    assert.deepEqual(secretsIn(terminal), [], 'the run terminal');
    ok = true;
  });
});

/**
 * Where the bring-up's time goes, from its ledger: each phase's span (its first step's start to its last step's end;
 * phases side by side overlap) and the ten longest steps, printed; the spans go to the lab bench.
 */
function phaseSpans(runs: string): Record<string, number> {
  const file = readdirSync(runs).filter((f) => f.endsWith('-up.json')).sort().pop();
  if (!file) return {};
  const ledger = JSON.parse(readFileSync(join(runs, file), 'utf8')) as { steps: Record<string, { startedAt?: string; finishedAt?: string }> };
  const spans = new Map<string, { from: number; to: number }>();
  const steps: [string, number][] = [];
  for (const [id, st] of Object.entries(ledger.steps)) {
    if (!st.startedAt || !st.finishedAt) continue;
    const from = Date.parse(st.startedAt);
    const to = Date.parse(st.finishedAt);
    const phase = id.split('/')[0]!;
    const span = spans.get(phase);
    spans.set(phase, { from: Math.min(span?.from ?? from, from), to: Math.max(span?.to ?? to, to) });
    steps.push([id, (to - from) / 1000]);
  }
  const start = Math.min(...[...spans.values()].map((x) => x.from));
  console.log(`bring-up from the palette, where the time goes (ledger):\n${[...spans].sort((a, b) => a[1].from - b[1].from).map(([p, x]) => `  ${p.padEnd(20)} +${((x.from - start) / 1000).toFixed(1).padStart(6)} s … +${((x.to - start) / 1000).toFixed(1).padStart(6)} s (${((x.to - x.from) / 1000).toFixed(1)} s)`).join('\n')}\n  longest steps: ${steps.sort((a, b) => b[1] - a[1]).slice(0, 10).map(([id, sec]) => `${id} ${sec.toFixed(1)} s`).join(', ')}`);
  return Object.fromEntries([...spans].map(([p, x]) => [`uiBringUpPhaseSeconds@${p}`, (x.to - x.from) / 1000]));
}
