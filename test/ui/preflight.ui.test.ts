/**
 * Tier 3: the preflight as a newcomer meets it, in Chromium through code-server with the extension installed from the
 * .vsix, against real sshd instances on loopback (test/unit/preflight/zoo.ts): one host that lets us in, one whose
 * port refuses, two whose host keys nobody knows yet, one that does not take our key, one whose sudo asks for a
 * password, and one whose identity file does not exist; no kubeconfig. Bring Up Cluster… reviews both unknown keys in
 * one step and refuses before any question with the table (each cause and fix) and a message whose buttons work; Back
 * Up etcd…, Replace… and Run Failure Drill… refuse before their first question; once the missing key file exists and
 * the keys are accepted, Run Again turns those hosts green. Screenshots: test-results/ui/preflight-*.png.
 *
 * Run: npm run -s package:tests && node --import tsx --test test/ui/preflight.ui.test.ts
 */
import * as assert from 'node:assert/strict';
import { chmodSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, describe } from 'node:test';
import type { BrowserContext, FrameLocator, Locator, Page } from 'playwright-core';
import { REPO, extensionHostErrors, launchBrowser, makeRunDirs, removeRunDir, startCodeServer, workbenchUrl, type CodeServer, type RunDirs } from '../vscode/harness/codeServer';
import { installVsix } from '../vscode/harness/vsix';
import { clearToasts as clearAll, quickTitle as quickTitleOf, runPaletteCommand, scenarioSteps, shown, toast as toastOf } from '../vscode/harness/workbench';
import { startZoo, type Zoo } from '../unit/preflight/zoo';

const SHOTS = join(REPO, 'test-results/ui');

describe('the preflight before any question', { timeout: 420_000 }, () => {
  let dirs: RunDirs;
  let zoo: Zoo | undefined;
  let cs: CodeServer | undefined;
  let context: BrowserContext | undefined;
  let page: Page;
  const scenario = scenarioSteps(() => page);
  const step = scenario.step;

  const shot = async (name: string, target?: Locator): Promise<void> => {
    await (target ?? page).screenshot({ path: join(SHOTS, `preflight-${name}.png`) });
  };
  const runCommand = (title: string): Promise<void> => runPaletteCommand(page, title);
  const panel = (): FrameLocator => page.frameLocator('iframe.webview.ready').frameLocator('iframe#active-frame');
  const toast = (text: RegExp): Locator => toastOf(page, text);
  const hostRow = (host: string): Locator => panel().locator(`#hosts tr[data-host="${host}"]`);
  const quickTitle = (): Locator => quickTitleOf(page);
  /**
   * The host-key review of the hosts in scope, nothing ticked; Escape accepts none. Pressed in the review's input, and
   * again until the review is gone: an Escape that lands while the pick is still taking the focus closes nothing.
   */
  const declineReview = async (hosts: number): Promise<void> => {
    const review = quickTitle().filter({ hasText: `Unknown host keys of ${hosts} host${hosts === 1 ? '' : 's'}` });
    await shown(page, review, `the host-key review of ${hosts} host(s)`);
    for (let i = 0; i < 5 && (await review.isVisible()); i++) {
      await page.locator('.quick-input-widget input.input').press('Escape').catch(() => undefined);
      await review.waitFor({ state: 'hidden', timeout: 3_000 }).catch(() => undefined);
    }
    assert.equal(await review.isVisible(), false, 'the host-key review closed on Escape');
  };
  const clearToasts = (): Promise<void> => clearAll(page);

  before(async () => {
    mkdirSync(SHOTS, { recursive: true });
    dirs = makeRunDirs('ui-preflight');
    // The zoo's test user logs in with a key its sshd reads as that user: the run folder must let it through.
    chmodSync(dirs.root, 0o755);
    zoo = await startZoo(join(dirs.root, 'zoo'), { balancer: 'ok', m01: 'refused', m02: 'unknown-key', m03: 'not-accepted', w01: 'sudo-password', w02: 'no-identity', w03: 'unknown-key' });
    writeFileSync(join(dirs.workspace, 'inventory.yaml'), zoo.inventoryText);
    // The zoo's SSH config and known_hosts, and no kubeconfig on this "machine" (machine-overridable settings).
    const machine = join(dirs.userData, 'Machine', 'settings.json');
    writeFileSync(machine, JSON.stringify({ ...JSON.parse(readFileSync(machine, 'utf8')), 'kubeadmWorkbench.sshConfigFile': zoo.sshConfig, 'kubeadmWorkbench.knownHostsFile': zoo.knownHosts, 'kubeadmWorkbench.kubeconfig': join(dirs.root, 'home/.kube/config') }, null, 2));
    installVsix(dirs);
    cs = await startCodeServer({ dirs });
    ({ context, page } = await launchBrowser(dirs, { width: 1500, height: 1000 }));
    page.setDefaultTimeout(30_000);
    await page.goto(workbenchUrl(cs, dirs.workspace), { timeout: 60_000 });
    await page.locator('.explorer-folders-view .monaco-list-row', { hasText: 'inventory.yaml' }).waitFor({ timeout: 60_000 });
    await page.locator('.part.activitybar a[aria-label^="Kubeadm"]').first().click();
    await page.locator('.part.sidebar .pane-body .monaco-list-row', { hasText: 'labs-k8s-w03' }).waitFor({ timeout: 60_000 });
  });

  after(async () => {
    if (scenario.failed && page) await shot('failure').catch(() => undefined);
    if (scenario.failed) for (const e of extensionHostErrors(dirs)) console.log(`extension host: ${e}`);
    await context?.close().catch(() => undefined);
    await cs?.stop();
    await zoo?.stop();
    if (!scenario.failed) removeRunDir(dirs);
    else console.log(`run folder kept: ${dirs.root}`);
  });


  step('Bring Up Cluster…: both unknown keys reviewed in one step, then refused with the table before any question', async () => {
    const t0 = Date.now();
    await runCommand('Kubeadm: Bring Up Cluster…');
    await quickTitle().filter({ hasText: 'Unknown host keys of 2 hosts' }).waitFor({ timeout: 60_000 });
    const rows = page.locator('.quick-input-list .monaco-list-row');
    for (const h of ['labs-k8s-m02', 'labs-k8s-w03']) assert.match(await rows.filter({ hasText: h }).innerText(), /\[127\.0\.0\.1\]:\d+ · ssh-ed25519\s+SHA256:\S{43}/);
    assert.equal(await page.locator('.quick-input-widget input.input').getAttribute('placeholder'), 'On each host\'s console: ssh-keygen -lf /etc/ssh/ssh_host_ed25519_key.pub — none is accepted unless ticked');
    assert.equal(await page.locator('.quick-input-list .monaco-list-row[aria-checked="true"]').count(), 0, 'nothing is ticked by default');
    await shot('host-key-review');
    await declineReview(2);
    const refusal = toast(/Bring Up refused before it asked anything: 5 of 7 hosts fail the preflight/);
    await refusal.waitFor();
    console.log(`      Bring Up refused ${Date.now() - t0} ms after the command (the review included)`);
    // The panel: a row per host with its state, each failure's cause and fix.
    await hostRow('labs-k8s-balancer').waitFor();
    const state = async (h: string) => hostRow(h).getAttribute('data-state');
    assert.deepEqual(await Promise.all(['balancer', 'm01', 'm02', 'm03', 'w01', 'w02', 'w03'].map((h) => state(`labs-k8s-${h}`))), ['ok', 'fail', 'fail', 'fail', 'warn', 'fail', 'fail']);
    const cause = (host: string, check: string) => panel().locator(`.cause[data-host="${host}"][data-check="${check}"]`);
    assert.match(await cause('labs-k8s-m01', 'reach').innerText(), /nothing listens on 127\.0\.0\.1 port \d+: the connection was refused[\s\S]*Fix: start sshd/);
    assert.match(await cause('labs-k8s-m02', 'host-key').innerText(), /host key ssh-ed25519 SHA256:\S+ .* is unknown[\s\S]*ssh-keygen -lf/);
    assert.match(await cause('labs-k8s-m03', 'login').innerText(), /did not accept the key offered[\s\S]*ssh-copy-id -i \S+\.pub -p \d+ root@127\.0\.0\.1/);
    assert.match(await cause('labs-k8s-w01', 'sudo').innerText(), /sudo asks \S+ for a password there[\s\S]*NOPASSWD/);
    assert.match(await cause('labs-k8s-w02', 'keys').innerText(), new RegExp(`${zoo!.missingKey.replace(/[.]/g, '\\.')} does not exist`));
    assert.equal(await page.locator('.quick-input-widget .quick-input-title', { hasText: /phases|Bring up the cluster/ }).isVisible(), false, 'no question was asked');
    assert.equal(await page.locator('.monaco-dialog-box', { hasText: /Run \d+ steps/ }).count(), 0);
    await shot('table');
    await shot('refused-port', cause('labs-k8s-m01', 'reach'));
    await shot('host-key-unknown', cause('labs-k8s-m02', 'host-key'));
    await shot('key-not-accepted', cause('labs-k8s-m03', 'login'));
    await shot('sudo-password', cause('labs-k8s-w01', 'sudo'));
    await shot('no-identity-file', cause('labs-k8s-w02', 'keys'));
    await shot('refusal-message', refusal);
    // The message's buttons: Run Preflight Again and Show Log; Show Log opens the log with the refusal in it.
    await refusal.locator('.monaco-button', { hasText: 'Run Preflight Again' }).waitFor();
    await refusal.locator('.monaco-button', { hasText: 'Show Log' }).click();
    // The log is a Monaco editor: its spaces are non-breaking (\s matches them).
    await page.locator('.part.panel', { hasText: /Bring\sUp\srefused\sbefore\sit\sasked\sanything/ }).waitFor();
  });

  step('Back Up etcd…, Replace… and Run Failure Drill…: refused before their first question', async () => {
    await clearToasts();
    await runCommand('Kubeadm: Back Up etcd…');
    await declineReview(1);
    await shown(page, toast(/Back Up etcd refused before it asked anything: none of its 3 hosts passes the preflight/), 'Back Up etcd\'s refusal'); // after the hosts' checks
    assert.equal(await page.locator('.quick-input-widget .quick-input-title', { hasText: /Folder for etcd backups/ }).isVisible(), false, 'the folder was not asked');
    await runCommand('Kubeadm: Replace…');
    await declineReview(2);
    await shown(page, toast(/^.*Replace refused: /), 'Replace\'s refusal'); // after the hosts' checks
    assert.equal(await quickTitle().filter({ hasText: /Node to replace/ }).isVisible(), false, 'the node was not asked');
    await clearToasts();
    await runCommand('Kubeadm: Run Failure Drill…');
    const drill = toast(/Cannot run the drill: no cluster connection \(.*no kubeconfig file found/);
    await shown(page, drill, 'the drill\'s refusal', 30_000);
    for (const b of ['Select Kubeconfig…', 'Bring Up…', 'Settings', 'Show Log']) await drill.locator('.monaco-button', { hasText: b }).waitFor();
    await shot('drill-refused', drill);
    assert.equal(await quickTitle().filter({ hasText: 'Run Failure Drill' }).isVisible(), false, 'the node was not asked');
    // Its button does what it says: the Settings editor on the kubeconfig setting.
    await drill.locator('.monaco-button', { hasText: /^Settings$/ }).click();
    const settings = page.locator('.settings-editor');
    await settings.waitFor();
    await settings.locator('.settings-header', { hasText: 'kubeadmWorkbench.kubeconfig' }).waitFor();
    await shot('drill-settings-opened');
    await page.keyboard.press('Escape');
  });

  step('the missing key file made, the keys accepted in the review: Run Again turns those hosts green', async () => {
    zoo!.fixIdentity();
    await clearToasts();
    await runCommand('Kubeadm: Run Preflight Checks');
    await quickTitle().filter({ hasText: 'Unknown host keys of 2 hosts' }).waitFor({ timeout: 60_000 });
    // Tick both (each row's checkbox), accept and remember.
    for (const h of ['labs-k8s-m02', 'labs-k8s-w03']) {
      const row = page.locator('.quick-input-list .monaco-list-row', { hasText: h });
      await row.click();
      assert.equal(await row.getAttribute('aria-checked'), 'true', `${h} ticked`);
    }
    await page.locator('.quick-input-widget .monaco-button', { hasText: /^OK$/ }).click();
    const modal = page.locator('.monaco-dialog-box', { hasText: 'Accept the host keys of labs-k8s-m02, labs-k8s-w03?' });
    await modal.waitFor();
    await modal.locator('.monaco-button', { hasText: 'Accept and Remember' }).click();
    await panel().locator('#hosts tr[data-host="labs-k8s-w02"][data-state="ok"]').waitFor({ timeout: 60_000 });
    for (const h of ['labs-k8s-m02', 'labs-k8s-w03', 'labs-k8s-w02']) assert.equal(await hostRow(h).getAttribute('data-state'), 'ok', h);
    assert.equal(await hostRow('labs-k8s-m01').getAttribute('data-state'), 'fail');
    await shot('after-fix');
    // Run Again in the panel: the remembered keys need no review; the table comes back the same.
    await panel().locator('#rerun').click();
    await panel().locator('#summary', { hasText: /checked in/ }).waitFor();
    await page.waitForTimeout(500);
    assert.equal(await quickTitle().filter({ hasText: 'Unknown host keys' }).isVisible(), false, 'remembered: not asked again');
    assert.equal(await hostRow('labs-k8s-m02').getAttribute('data-state'), 'ok');
  });
});
