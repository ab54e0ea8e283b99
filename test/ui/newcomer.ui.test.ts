/**
 * Tier 3: a newcomer's path through the Kubeadm views of the installed .vsix, driven in Chromium like a person would: the default layout
 * with no kubeconfig (Inventory tall, the live views collapsed, each with welcome buttons when opened), the context
 * picker, "Browse for a kubeconfig file…" to the kubeconfig of a real kube-apiserver (test/integration/apiserver.ts)
 * after which Control Plane and Leases fill, a broken inventory.yaml (stale hosts, the first-error row), the bring-up
 * plan webview, and haproxy.cfg highlighted as HAProxy. Screenshots: test-results/ui/newcomer-*.png.
 *
 * Run: npm run -s package:tests && node --import tsx --test test/ui/newcomer.ui.test.ts
 */
import * as assert from 'node:assert/strict';
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, describe } from 'node:test';
import type { BrowserContext, Locator, Page } from 'playwright-core';
import { createMirrorPod, createNode, putLeaderLease, putNodeLease, startTestCluster, type TestCluster } from '../integration/apiserver';
import { REPO, extensionHostErrors, launchBrowser, makeRunDirs, removeRunDir, startCodeServer, workbenchUrl, type CodeServer, type RunDirs } from '../vscode/harness/codeServer';
import { installVsix } from '../vscode/harness/vsix';
import { runPaletteCommand, scenarioSteps } from '../vscode/harness/workbench';

const SHOTS = join(REPO, 'test-results/ui');
const LIVE_TITLES = [/^control plane$/i, /^leases$/i, /^etcd members$/i];

describe('a newcomer in the Kubeadm views', { timeout: 300_000 }, () => {
  let dirs: RunDirs;
  let cs: CodeServer | undefined;
  let cluster: TestCluster | undefined;
  let context: BrowserContext | undefined;
  let page: Page;
  const scenario = scenarioSteps(() => page);
  const step = scenario.step;

  const shot = async (name: string, target?: Locator): Promise<void> => {
    await (target ?? page).screenshot({ path: join(SHOTS, `newcomer-${name}.png`) });
  };
  const pane = (title: RegExp): Locator => page.locator('.part.sidebar .pane').filter({ has: page.locator('.pane-header h3.title', { hasText: title }) });
  const header = (title: RegExp): Locator => pane(title).locator('.pane-header');
  const runCommand = (title: string): Promise<void> => runPaletteCommand(page, title);

  before(async () => {
    mkdirSync(SHOTS, { recursive: true });
    dirs = makeRunDirs('ui-newcomer');
    // No kubeconfig on this "machine": the setting points at a file that does not exist (HOME's may). It is a
    // machine-overridable setting, which a remote window (code-server) reads from the machine's settings.
    mkdirSync(join(dirs.userData, 'Machine'), { recursive: true });
    const machine = join(dirs.userData, 'Machine', 'settings.json');
    writeFileSync(machine, JSON.stringify({ ...JSON.parse(readFileSync(machine, 'utf8')), 'kubeadmWorkbench.kubeconfig': join(dirs.root, 'home/.kube/config') }, null, 2));
    cluster = await startTestCluster();
    const now = Date.now();
    for (const [i, n] of ['labs-k8s-m01', 'labs-k8s-m02', 'labs-k8s-m03'].entries()) {
      await createNode(cluster, n, { controlPlane: true, address: `10.3.60.5${i + 1}` });
      await putNodeLease(cluster, n, now);
      for (const comp of ['etcd', 'kube-apiserver', 'kube-controller-manager', 'kube-scheduler']) await createMirrorPod(cluster, comp, n);
    }
    await putLeaderLease(cluster, 'kube-scheduler', 'labs-k8s-m02_3a7d9e0b', 1, now);
    await putLeaderLease(cluster, 'kube-controller-manager', 'labs-k8s-m01_8f2e6c1a', 0, now);
    installVsix(dirs);
    cs = await startCodeServer({ dirs });
    ({ context, page } = await launchBrowser(dirs, { width: 1400, height: 1000 }));
    page.setDefaultTimeout(20_000);
    await page.goto(workbenchUrl(cs, dirs.workspace), { timeout: 60_000 });
    await page.locator('.explorer-folders-view .monaco-list-row', { hasText: 'inventory.yaml' }).waitFor({ timeout: 60_000 });
  });

  after(async () => {
    if (scenario.failed && page) await shot('failure').catch(() => undefined);
    if (scenario.failed) for (const e of extensionHostErrors(dirs)) console.log(`extension host: ${e}`);
    await context?.close().catch(() => undefined);
    await cs?.stop();
    await cluster?.stop();
    if (!scenario.failed) removeRunDir(dirs);
    else console.log(`run folder kept: ${dirs.root}`);
  });


  step('default layout: Inventory first and tallest, the three live views collapsed', async () => {
    await page.locator('.part.activitybar a[aria-label^="Kubeadm"]').first().click();
    await page.locator('.part.sidebar .pane-body .monaco-list-row', { hasText: 'labs-k8s-w02' }).waitFor();
    for (const title of LIVE_TITLES) assert.equal(await header(title).getAttribute('aria-expanded'), 'false', `${title} starts collapsed`);
    const inventory = await pane(/^inventory$/i).boundingBox();
    const bar = await page.locator('.part.sidebar').boundingBox();
    assert.ok(inventory && bar && inventory.height > bar.height * 0.6, `Inventory is ${inventory?.height} of ${bar?.height} px`);
    await shot('1-default-layout', page.locator('.part.sidebar'));
  });

  step('no kubeconfig: each live view, opened, shows the welcome with Select kubeconfig file…, Bring Up Cluster…, Open Settings', async () => {
    for (const [i, title] of LIVE_TITLES.entries()) {
      await header(title).click();
      const welcome = pane(title).locator('.welcome-view-content');
      await welcome.waitFor();
      for (const button of ['Select kubeconfig file…', 'Bring Up Cluster…', 'Open Settings']) await welcome.locator('.monaco-button', { hasText: button }).first().waitFor();
      assert.match(await welcome.innerText(), /No kubeconfig file was found/);
      await shot(`2-welcome-${['control-plane', 'leases', 'etcd-members'][i]}`, page.locator('.part.sidebar'));
      if (i < 2) await header(title).click(); // fold it again so the next one has room
    }
  });

  step('Select Cluster Context opens a picker even with no kubeconfig: where it looked and Browse for a kubeconfig file…', async () => {
    await runCommand('Kubeadm: Select Cluster Context');
    const widget = page.locator('.quick-input-widget');
    await widget.locator('.quick-input-title', { hasText: 'No kubeconfig file found' }).waitFor();
    await widget.locator('.monaco-list-row', { hasText: 'Browse for a kubeconfig file…' }).waitFor();
    await shot('3-context-picker');
  });

  step('Browse to the kubeconfig of a real kube-apiserver: Control Plane and Leases fill', async () => {
    await page.locator('.quick-input-widget .monaco-list-row', { hasText: 'Browse for a kubeconfig file…' }).click();
    // code-server's file dialog is a quick input with a path box.
    const input = page.locator('.quick-input-widget input.input');
    await page.locator('.quick-input-widget .quick-input-title', { hasText: 'Select a kubeconfig file' }).waitFor();
    // It fills its path box with the default folder once that is listed; typing before that is overwritten.
    for (let i = 0; i < 100 && !(await input.inputValue()).endsWith('/'); i++) await page.waitForTimeout(100);
    await page.locator('.quick-input-widget .monaco-list-row').first().waitFor();
    await input.fill(cluster!.kubeconfig);
    await page.waitForTimeout(500);
    await shot('4a-file-dialog');
    await page.locator('.quick-input-widget .monaco-button', { hasText: 'Use this kubeconfig' }).click();
    await page.locator('.quick-input-widget').waitFor({ state: 'hidden' });
    // A refusal would show as a notification: say it instead of timing out below.
    const toast = page.locator('.notifications-toasts .notification-toast').first();
    if (await toast.isVisible().catch(() => false)) console.log(`notification after Browse: ${await toast.innerText()}`);
    await page.locator('.statusbar', { hasText: /kw-it|kubernetes|admin|@/ }).first().waitFor({ timeout: 5_000 }).catch(async () => console.log(`status bar after Browse: ${await page.locator('.statusbar').innerText()}`));
    await header(/^etcd members$/i).click(); // fold etcd Members, open Control Plane and Leases
    for (const title of LIVE_TITLES.slice(0, 2)) if ((await header(title).getAttribute('aria-expanded')) === 'false') await header(title).click();
    await pane(/^control plane$/i).locator('.monaco-list-row', { hasText: 'labs-k8s-m01' }).first().waitFor({ timeout: 60_000 });
    await pane(/^control plane$/i).locator('.monaco-list-row', { hasText: 'kube-apiserver' }).first().waitFor();
    await pane(/^leases$/i).locator('.monaco-list-row', { hasText: /kube-scheduler|labs-k8s-m0/ }).first().waitFor({ timeout: 30_000 });
    await shot('4-connected', page.locator('.part.sidebar'));
  });

  step('a broken inventory.yaml: the hosts stay, marked stale, under a row that opens the first error', async () => {
    for (const title of LIVE_TITLES.slice(0, 2)) await header(title).click();
    const file = join(dirs.workspace, 'inventory.yaml');
    const good = readFileSync(file, 'utf8');
    writeFileSync(file, good.replace('roles: [worker] }', 'roles: worker] }'));
    try {
      const problem = pane(/^inventory$/i).locator('.monaco-list-row', { hasText: /inventory\.yaml has \d+ errors?/ });
      await problem.waitFor();
      await pane(/^inventory$/i).locator('.monaco-list-row', { hasText: 'labs-k8s-w02' }).filter({ hasText: 'stale' }).waitFor();
      await shot('5-broken-inventory', page.locator('.part.sidebar'));
      await problem.click();
      await page.locator('.tabs-container .tab.active', { hasText: 'inventory.yaml' }).waitFor();
      const ln = Number(/Ln (\d+)/.exec(await page.locator('#status\\.editor\\.selection').innerText())?.[1]);
      const described = Number(/first at line (\d+)/.exec(await problem.innerText())?.[1]);
      assert.equal(ln, described, 'the cursor is on the first error');
    } finally {
      writeFileSync(file, good);
    }
    // Fixed on disk: the error row goes and the hosts are no longer stale (the next step plans from this inventory).
    await pane(/^inventory$/i).locator('.monaco-list-row', { hasText: /inventory\.yaml has \d+ errors?/ }).waitFor({ state: 'detached', timeout: 20_000 });
    await pane(/^inventory$/i).locator('.monaco-list-row', { hasText: 'stale' }).first().waitFor({ state: 'detached' });
    await pane(/^inventory$/i).locator('.monaco-list-row', { hasText: 'Workers' }).waitFor();
  });

  step('Show Bring-up Plan… opens a readable plan: phases, hosts and steps with wrapped commands', async () => {
    await runCommand('Kubeadm: Show Bring-up Plan…');
    await page.locator('.quick-input-widget .quick-input-title', { hasText: 'Show bring-up plan' }).waitFor();
    await page.keyboard.press('Enter');
    await page.locator('.tabs-container .tab.active', { hasText: 'Bring-up plan' }).waitFor();
    const frame = page.frameLocator('iframe.webview.ready').frameLocator('iframe#active-frame');
    await frame.locator('details.phase summary', { hasText: 'Prepare hosts' }).first().waitFor({ timeout: 30_000 });
    const firstStep = frame.locator('details.step').first();
    await firstStep.locator('summary').click();
    await firstStep.locator('pre.cmd-run').waitFor();
    const widths = await frame.locator('pre').first().evaluate((el) => ({ scroll: el.scrollWidth, client: el.clientWidth }));
    assert.ok(widths.scroll <= widths.client + 1, `commands wrap: ${JSON.stringify(widths)}`);
    await shot('6-plan');
  });

  step('haproxy.cfg opens as HAProxy with its sections, keywords and addresses highlighted', async () => {
    await page.keyboard.press('Control+P');
    const input = page.locator('.quick-input-widget input.input');
    await input.waitFor();
    await input.fill('haproxy.cfg');
    await page.locator('.quick-input-list .monaco-list-row', { hasText: 'haproxy.cfg' }).first().waitFor();
    await page.keyboard.press('Enter');
    await page.locator('.tabs-container .tab.active', { hasText: 'haproxy.cfg' }).waitFor();
    await page.locator('#status\\.editor\\.mode', { hasText: 'HAProxy' }).waitFor();
    const lines = page.locator('.editor-instance .monaco-editor .view-lines');
    await lines.locator('span', { hasText: /^frontend$/ }).first().waitFor();
    const classOf = async (text: RegExp): Promise<string> => (await lines.locator('span > span', { hasText: text }).first().getAttribute('class')) ?? '';
    const section = await classOf(/^frontend$/);
    const name = await classOf(/kubernetes-api$/);
    const comment = await classOf(/^#/);
    const address = await classOf(/^10\.3\.60\.100$/);
    console.log(`token classes: section=${section} name=${name} comment=${comment} address=${address}`);
    assert.notEqual(section, comment);
    assert.notEqual(address, section);
    assert.notEqual(name, section);
    await shot('7-haproxy-highlighted');
  });
});
