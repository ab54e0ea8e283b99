/**
 * Tier 3: UI tests. Debian's Chromium (playwright-core) drives real VS Code (code-server) with the extension installed
 * from the packaged .vsix (as `npm start` does) and a temporary copy of examples/labs-k8s open, and does what a person would: open the
 * Kubeadm container, read the Inventory rows, run a command from the palette, open a file, click a host.
 * Screenshots go to test-results/ui/*.png.
 *
 * Run: npm run test:ui   (packages the .vsix, then node --import tsx --test test/ui/*.test.ts)
 */
import * as assert from 'node:assert/strict';
import { mkdirSync, readFileSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, describe } from 'node:test';
import type { BrowserContext, Page } from 'playwright-core';
import {
  REPO,
  launchBrowser,
  makeRunDirs,
  extensionHostErrors,
  removeRunDir,
  startCodeServer,
  workbenchUrl,
  type CodeServer,
  type RunDirs,
} from '../vscode/harness/codeServer';
import { installVsix } from '../vscode/harness/vsix';
import { runPaletteCommand, scenarioSteps } from '../vscode/harness/workbench';

const SHOTS = join(REPO, 'test-results/ui');
const SEED_HOSTS: [string, string][] = [
  ['labs-k8s-balancer', '10.3.60.50'],
  ['labs-k8s-m01', '10.3.60.51'],
  ['labs-k8s-m02', '10.3.60.52'],
  ['labs-k8s-m03', '10.3.60.53'],
  ['labs-k8s-w01', '10.3.60.54'],
  ['labs-k8s-w02', '10.3.60.55'],
];

describe('kubeadm-workbench in VS Code through Chromium', { timeout: 240_000 }, () => {
  let dirs: RunDirs;
  let cs: CodeServer | undefined;
  let context: BrowserContext | undefined;
  let page: Page;
  const scenario = scenarioSteps(() => page);
  const step = scenario.step;

  const shot = async (name: string): Promise<void> => {
    await page.screenshot({ path: join(SHOTS, `${name}.png`) });
  };

  const runCommand = async (title: string): Promise<void> => {
    await runPaletteCommand(page, title);
    await page.locator('.quick-input-widget').waitFor({ state: 'hidden' });
  };

  const activeEditorLine = async (): Promise<number> => {
    // Status bar "Ln 17, Col 5".
    const text = await page.locator('#status\\.editor\\.selection').innerText();
    const m = /Ln (\d+)/.exec(text);
    assert.ok(m, `no cursor position in the status bar: ${text}`);
    return Number(m[1]);
  };

  before(async () => {
    rmSync(SHOTS, { recursive: true, force: true });
    mkdirSync(SHOTS, { recursive: true });
    dirs = makeRunDirs('ui');
    const installed = installVsix(dirs);
    console.log(`extension under test: ${installed.vsix} installed into code-server in ${installed.ms} ms`);
    const t0 = Date.now();
    cs = await startCodeServer({ dirs });
    ({ context, page } = await launchBrowser(dirs));
    page.setDefaultTimeout(20_000);
    await page.goto(workbenchUrl(cs, dirs.workspace));
    await page.locator('.explorer-folders-view .monaco-list-row', { hasText: 'inventory.yaml' }).waitFor({ timeout: 60_000 });
    console.log(`code-server start-to-usable: ${Date.now() - t0} ms (listening after ${cs.listeningMs} ms)`);
  });

  after(async () => {
    if (scenario.failed && page) await shot('failure').catch(() => undefined);
    if (scenario.failed) for (const e of extensionHostErrors(dirs)) console.log(`extension host: ${e}`);
    await context?.close().catch(() => undefined);
    await cs?.stop();
    if (!scenario.failed) removeRunDir(dirs);
    else console.log(`run folder kept: ${dirs.root}`);
  });


  step('the Kubeadm container shows the Inventory with the six seed hosts', async () => {
    await page.locator('.part.activitybar a[aria-label^="Kubeadm"]').first().click();
    await page.locator('.part.sidebar .composite.title', { hasText: /kubeadm/i }).first().waitFor();
    // Give the Inventory the whole side bar: collapse the three views that wait for a live cluster, and widen it
    // so that the host rows show address and role in full.
    for (const title of [/^control plane$/i, /^leases$/i, /^etcd members$/i]) {
      const header = page.locator('.part.sidebar .pane-header[aria-expanded="true"]').filter({ has: page.locator('h3.title', { hasText: title }) });
      if (await header.count()) await header.first().click();
    }
    const bar = await page.locator('.part.sidebar').boundingBox();
    if (bar && bar.width < 460) {
      const x = bar.x + bar.width + 1;
      const y = bar.y + bar.height / 2;
      await page.mouse.move(x, y);
      await page.mouse.down();
      await page.mouse.move(x + 460 - bar.width, y, { steps: 5 });
      await page.mouse.up();
    }
    const rows = page.locator('.part.sidebar .pane-body .monaco-list-row');
    await rows.filter({ hasText: 'labs-k8s-w02' }).waitFor();
    const texts = await rows.evaluateAll((els) =>
      els.map((e) => ({
        name: e.querySelector('.label-name')?.textContent?.trim() ?? '',
        description: e.querySelector('.label-description')?.textContent?.trim() ?? '',
      })),
    );
    console.log('Inventory rows:', texts.map((t) => `${t.name} ${t.description}`.trim()).join(' | '));
    const names = texts.map((t) => t.name);
    for (const group of ['Load balancers', 'Control plane', 'Workers']) assert.ok(names.includes(group), `group ${group} missing: ${names.join(', ')}`);
    for (const [host, address] of SEED_HOSTS) {
      const row = texts.find((t) => t.name === host);
      assert.ok(row, `host row ${host} missing`);
      assert.ok(row.description.startsWith(`${address} · `), `${host}: description "${row.description}"`);
    }
    await shot('1-inventory');
  });

  step('"Kubeadm: Open Inventory" from the palette opens inventory.yaml', async () => {
    await runCommand('Kubeadm: Open Inventory');
    await page.locator('.tabs-container .tab.active', { hasText: 'inventory.yaml' }).waitFor();
    await page.locator('.editor-instance .monaco-editor .view-lines', { hasText: 'controlPlaneEndpoint' }).waitFor();
    await shot('2-open-inventory');
  });

  step('Quick Open opens haproxy.cfg', async () => {
    await page.keyboard.press('Control+P');
    const input = page.locator('.quick-input-widget input.input');
    await input.waitFor();
    await input.fill('haproxy.cfg');
    await page.locator('.quick-input-list .monaco-list-row', { hasText: 'haproxy.cfg' }).first().waitFor();
    await page.keyboard.press('Enter');
    await page.locator('.tabs-container .tab.active', { hasText: 'haproxy.cfg' }).waitFor();
    await page.locator('.editor-instance .monaco-editor .view-lines', { hasText: '10.3.60.51' }).waitFor();
    await shot('3-open-file');
  });

  step('clicking a host row reveals its line in inventory.yaml', async () => {
    const text = readFileSync(join(dirs.workspace, 'inventory.yaml'), 'utf8').split('\n');
    const expected = text.findIndex((l) => l.includes('name: labs-k8s-w01')) + 1;
    assert.ok(expected > 0);
    await page.locator('.part.sidebar .pane-body .monaco-list-row', { hasText: 'labs-k8s-w01' }).click();
    await page.locator('.tabs-container .tab.active', { hasText: 'inventory.yaml' }).waitFor();
    await page.waitForFunction(
      (line) => /Ln (\d+)/.exec(document.querySelector('#status\\.editor\\.selection')?.textContent ?? '')?.[1] === String(line),
      expected,
      { timeout: 10_000 },
    ).catch(() => undefined);
    assert.equal(await activeEditorLine(), expected, 'cursor on the host line');
    await shot('4-reveal-host');
  });
});
