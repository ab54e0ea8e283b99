/**
 * Tier 3: two paths as a user takes them, clicked in real VS Code (code-server, the installed .vsix, Debian's Chromium):
 *  - the Diagnostics panel's Fix button, clicked inside the webview: the edit lands in the document and the finding
 *    goes from the panel;
 *  - Run Failure Drill… from the Inventory row's context menu (right-click on the worker's row), its questions answered
 *    in the quick picks and the modal, against a real kube-apiserver (test/integration/apiserver.ts) whose node
 *    lifecycle the test plays (the Node Unknown 12 s after the "hypervisor" powered it off, Ready once it powered it
 *    on; a controller-manager mirror pod declares a 20 s grace period, so the drill's NotReady bound is 10–21 s).
 * The tier-2 suite (test/vscode/suite/drill.test.ts) covers the drill's other cases and reads the report in full.
 * Run: npm run test:ui   (screenshots: test-results/ui/actions-*.png)
 */
import * as assert from 'node:assert/strict';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, describe } from 'node:test';
import type { BrowserContext, Page } from 'playwright-core';
import { REPO, extensionHostErrors, launchBrowser, makeRunDirs, removeRunDir, startCodeServer, workbenchUrl, type CodeServer, type RunDirs } from '../vscode/harness/codeServer';
import { installVsix } from '../vscode/harness/vsix';
import { runPaletteCommand, scenarioSteps } from '../vscode/harness/workbench';
import { createNode, setNodeReady, startTestCluster, type TestCluster } from '../integration/apiserver';

const SHOTS = join(REPO, 'test-results/ui');
const NODE = 'labs-k8s-w01';
/** When the played node-lifecycle controller turns the Node Unknown after the power-off. */
const NOT_READY_AFTER_MS = 12_000;

describe('paths as a user takes them: the panel\'s Fix button, the drill from the Inventory row\'s menu', { timeout: 300_000 }, () => {
  let dirs: RunDirs;
  let cs: CodeServer | undefined;
  let context: BrowserContext | undefined;
  let page: Page;
  let cluster: TestCluster | undefined;
  let controller: NodeJS.Timeout | undefined;
  const scenario = scenarioSteps(() => page);
  const step = scenario.step;
  let typoLine = -1;
  const marker = (what: 'off' | 'on') => join(dirs.root, `${what}-${NODE}`);
  const shot = (name: string) => page.screenshot({ path: join(SHOTS, `actions-${name}.png`) });

  const runCommand = (title: string): Promise<void> => runPaletteCommand(page, title);
  const pick = async (title: RegExp, row: RegExp): Promise<void> => {
    await page.locator('.quick-input-widget .quick-input-title', { hasText: title }).waitFor({ timeout: 30_000 });
    await page.locator('.quick-input-list .monaco-list-row', { hasText: row }).first().click();
  };

  before(async () => {
    mkdirSync(SHOTS, { recursive: true });
    cluster = await startTestCluster();
    await createNode(cluster, 'labs-k8s-m01', { controlPlane: true, address: '10.3.60.51' });
    await createNode(cluster, NODE, { address: '10.3.60.54' });
    await createNode(cluster, 'labs-k8s-w02', { address: '10.3.60.55' });
    const cm = await cluster.api('POST', '/api/v1/namespaces/kube-system/pods', {
      apiVersion: 'v1',
      kind: 'Pod',
      metadata: { name: 'kube-controller-manager-labs-k8s-m01', namespace: 'kube-system', labels: { component: 'kube-controller-manager', tier: 'control-plane' }, annotations: { 'kubernetes.io/config.mirror': 'x' } },
      spec: { nodeName: 'labs-k8s-m01', containers: [{ name: 'kube-controller-manager', image: 'registry.k8s.io/kube-controller-manager:v1.34.12', command: ['kube-controller-manager', '--node-monitor-grace-period=20s', '--node-monitor-period=1s'] }] },
    });
    assert.equal(cm.status, 201, JSON.stringify(cm.body));
    dirs = makeRunDirs('ui-actions');
    // A typo the linter fixes: `che1k` for `check` on m01's server line of the example's haproxy.cfg.
    const cfgPath = join(dirs.workspace, 'haproxy.cfg');
    const lines = readFileSync(cfgPath, 'utf8').split('\n');
    typoLine = lines.findIndex((l) => /^\s+server labs-k8s-m01 .* check\b/.test(l));
    assert.ok(typoLine >= 0, 'the example haproxy.cfg has a server line for m01');
    lines[typoLine] = lines[typoLine]!.replace(/ check\b/, ' che1k');
    writeFileSync(cfgPath, lines.join('\n'));
    // The "hypervisor": records what it was asked to do, when (machine settings: a workspace may not set them).
    const hypervisor = join(dirs.root, 'hypervisor.js');
    writeFileSync(hypervisor, "require('fs').writeFileSync(require('path').join(__dirname, process.argv[2] + '-' + process.argv[3]), String(Date.now()));\n");
    const machine = join(dirs.userData, 'Machine', 'settings.json');
    writeFileSync(machine, JSON.stringify({
      ...(JSON.parse(readFileSync(machine, 'utf8')) as Record<string, unknown>),
      'kubeadmWorkbench.drill.powerOffCommand': `"${process.execPath}" "${hypervisor}" off {host}`,
      'kubeadmWorkbench.drill.powerOnCommand': `"${process.execPath}" "${hypervisor}" on {host}`,
    }, null, 2));
    mkdirSync(join(dirs.workspace, '.vscode'), { recursive: true });
    writeFileSync(join(dirs.workspace, '.vscode', 'settings.json'), JSON.stringify({ 'kubeadmWorkbench.kubeconfig': cluster.kubeconfig }));
    // The node-lifecycle controller this cluster lacks: Unknown NOT_READY_AFTER_MS after the power-off, Ready after the power-on.
    let state: 'up' | 'down' = 'up';
    controller = setInterval(() => {
      const off = existsSync(marker('off'));
      const on = existsSync(marker('on'));
      const want = off && !on && Date.now() - Number(readFileSync(marker('off'), 'utf8')) >= NOT_READY_AFTER_MS ? 'down' : 'up';
      if (want !== state) {
        state = want;
        void setNodeReady(cluster!, NODE, want === 'up', '10.3.60.54').catch(() => undefined);
      }
    }, 100);
    installVsix(dirs);
    cs = await startCodeServer({ dirs });
    ({ context, page } = await launchBrowser(dirs, { width: 1600, height: 1000 }));
    page.setDefaultTimeout(20_000);
    await page.goto(workbenchUrl(cs, dirs.workspace));
    await page.locator('.explorer-folders-view .monaco-list-row', { hasText: 'inventory.yaml' }).waitFor({ timeout: 60_000 });
  });

  after(async () => {
    if (controller) clearInterval(controller);
    if (scenario.failed && page) await shot('failure').catch(() => undefined);
    if (scenario.failed && dirs) for (const e of extensionHostErrors(dirs)) console.log(`extension host: ${e}`);
    await context?.close().catch(() => undefined);
    await cs?.stop();
    await cluster?.stop();
    if (!scenario.failed && dirs) removeRunDir(dirs);
  });


  step('the Diagnostics panel\'s Fix button, clicked in the webview, fixes the line and the finding goes', async () => {
    await page.locator('.explorer-folders-view .monaco-list-row', { hasText: /^haproxy\.cfg$/ }).first().click();
    await page.locator('.tabs-container .tab', { hasText: 'haproxy.cfg' }).waitFor();
    // The editor's title bar offers the panel for a config file (what a user sees beside the tabs).
    const open = page.locator('.editor-actions .action-label[aria-label*="Show Config Diagnostics"]').first();
    await open.waitFor({ timeout: 30_000 });
    await open.click();
    const frame = page.frameLocator('iframe.webview.ready').frameLocator('#active-frame');
    const fix = frame.locator(`vscode-button.fix[aria-label*="(line ${typoLine + 1})"]`).first();
    await fix.waitFor({ state: 'attached', timeout: 60_000 });
    // The finding's row shows its actions under the pointer, as a tree's rows do.
    await frame.locator('vscode-tree-item', { has: fix }).last().hover();
    await fix.waitFor({ state: 'visible' });
    const label = await fix.getAttribute('aria-label');
    console.log(`the panel offers: ${label}`);
    assert.match(label ?? '', /^Quick fix: .*check/i, `the fix replaces the typo by "check": ${label}`);
    await shot('1-fix-offered');
    await fix.click();
    // The panel follows the document: that line's finding is gone once the edit is in.
    await frame.locator(`vscode-button.fix[aria-label*="(line ${typoLine + 1})"]`).waitFor({ state: 'detached', timeout: 30_000 });
    // The edit is in the document (unsaved, as a quick fix leaves it): saved from its tab, the file has the fixed line.
    await shot('2-fixed');
    await page.locator('.tabs-container .tab', { hasText: 'haproxy.cfg' }).first().click();
    await page.keyboard.press('Control+S');
    // (the save rewrites the file: read in the middle of it, it may be short, the line not there yet)
    const line = () => readFileSync(join(dirs.workspace, 'haproxy.cfg'), 'utf8').split('\n')[typoLine];
    for (const end = Date.now() + 15_000; (line() === undefined || /che1k/.test(line()!)) && Date.now() < end; ) await page.waitForTimeout(200);
    assert.match(line(), /^\s+server labs-k8s-m01 .* check\b/, `the line as saved: ${line()}`);
    await runCommand('View: Close All Editors');
  });

  step('Run Failure Drill… from the worker\'s Inventory row menu: picks, modal, power off, NotReady, power on, PASSED', async () => {
    await page.locator('.part.activitybar a[aria-label^="Kubeadm"]').first().click();
    const row = page.locator('.part.sidebar .pane-body .monaco-list-row', { hasText: NODE }).first();
    await row.waitFor({ timeout: 30_000 });
    await row.click({ button: 'right' });
    const item = page.locator('.context-view .monaco-menu .action-item', { hasText: 'Run Failure Drill…' }).first();
    await item.waitFor();
    await shot('3-row-menu');
    await item.click();
    await pick(new RegExp(`Failure drill on ${NODE}`), /^Power the node off/);
    await pick(new RegExp(`Failure drill on ${NODE}`), /^Do not wait for evictions/);
    const dialog = page.locator('.monaco-dialog-box').filter({ hasText: `Power off ${NODE} and measure how labs-k8s copes?` });
    await dialog.waitFor({ timeout: 60_000 });
    await page.locator('.tabs-container .tab', { hasText: `failure-drill-${NODE}-plan.md` }).waitFor();
    await shot('4-drill-approve');
    await dialog.locator('.monaco-button', { hasText: /^Run Drill$/ }).click();
    // The report opens when the drill ends (NotReady within its 10–21 s bound, then the power-on and Ready).
    // The report opens as its text and, beside it, in the Markdown preview (a second tab naming the same file).
    await page.getByRole('tab', { name: `failure-drill-${NODE}-report.md`, exact: true }).waitFor({ timeout: 120_000 });
    await page.locator('.notifications-toasts .notification-list-item, .notifications-center .notification-list-item', { hasText: `Failure drill on ${NODE} passed` }).first().waitFor({ timeout: 30_000 });
    const heading = await page.locator('.editor-group-container .view-lines', { hasText: /Failure.drill/ }).first().innerText();
    // (the editor beside the preview is narrow: the heading may wrap, and its spaces are no-break spaces)
    assert.match(heading.replace(/\s+/g, ' '), new RegExp(`# Failure drill: power-off ${NODE} \\(worker\\) — PASSED`), heading.slice(0, 400));
    await shot('5-drill-report');
    // The hypervisor was asked to power the node off, then on — after the played NotReady, not before.
    assert.ok(existsSync(marker('off')) && existsSync(marker('on')), 'powered off, then on again');
    const off = Number(readFileSync(marker('off'), 'utf8'));
    const on = Number(readFileSync(marker('on'), 'utf8'));
    console.log(`drill from the row menu: powered on ${((on - off) / 1000).toFixed(1)} s after the power-off`);
    assert.ok(on - off >= NOT_READY_AFTER_MS, `powered on ${on - off} ms after the power-off, before NotReady could be seen`);
  });
});
