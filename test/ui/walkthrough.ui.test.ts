/**
 * Tier 3: a newcomer's first minutes, in Chromium against the installed .vsix with workspace trust on. The folder is
 * opened untrusted (Restricted Mode): the status bar and the Inventory view say trust is what is missing. The
 * walkthrough is opened from the palette and every step is completed by its button, which runs its command (the
 * trust step trusts the folder in VS Code's own trust editor; commands that ask a question are answered Cancel; the
 * hosts are a closed port on loopback, so the certificate step ends with every host "not read" and no certificate
 * problem counted). Then completion in inventory.yaml, and a reload: the Inventory never says "No inventory.yaml" and
 * a closed file's finding is back in Problems within 2 s of the Inventory showing its hosts.
 * Screenshots: test-results/ui/walkthrough-*.png (0 restricted, 1 open, 2 steps done, 3 certificates not read),
 * completion-inventory.png.
 *
 * Run: npm run -s package:tests && node --import tsx --test test/ui/walkthrough.ui.test.ts
 */
import * as assert from 'node:assert/strict';
import { mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { cpus, loadavg } from 'node:os';
import { join } from 'node:path';
import { after, before, describe } from 'node:test';
import type { BrowserContext, Locator, Page } from 'playwright-core';
import { QUIET_SETTINGS, REPO, extensionHostErrors, launchBrowser, makeRunDirs, removeRunDir, startCodeServer, workbenchUrl, type CodeServer, type RunDirs } from '../vscode/harness/codeServer';
import { installVsix } from '../vscode/harness/vsix';
import { scenarioSteps } from '../vscode/harness/workbench';

const SHOTS = join(REPO, 'test-results/ui');
const WALKTHROUGH = 'kubeadm-workbench.kubeadm-workbench#gettingStarted';
/**
 * After the Inventory shows its hosts (the extension is active), a closed file's finding is in Problems within this:
 * the vscode tier's 2 s on an idle machine, times how oversubscribed the two cores are (the load average per core).
 */
const PROBLEMS_AFTER_HOSTS_MS = 2000 * Math.max(1, loadavg()[0]! / cpus().length);

describe('the walkthrough and the first minutes', { timeout: 420_000 }, () => {
  let dirs: RunDirs;
  let cs: CodeServer | undefined;
  let context: BrowserContext | undefined;
  let page: Page;
  const scenario = scenarioSteps(() => page);
  const test = scenario.step;

  const shot = (name: string, target?: Locator): Promise<Buffer> => (target ?? page).screenshot({ path: join(SHOTS, `${name}.png`) });
  const dialog = (): Locator => page.locator('.monaco-dialog-box');
  const quickInput = (): Locator => page.locator('.quick-input-widget');
  const inventoryPane = (): Locator => page.locator('.part.sidebar .pane').filter({ has: page.locator('.pane-header h3.title', { hasText: /^inventory$/i }) });
  const step = (id: string): Locator => page.locator(`button.getting-started-step[data-step-id="${WALKTHROUGH}#${id}"]`);
  /** The step's check mark, or undefined while the walkthrough is not on screen (another editor is in front). */
  const checkMark = (id: string): Promise<string | null | undefined> =>
    page.evaluate((sel) => document.querySelector(sel)?.getAttribute('aria-checked'), `[data-done-step-id="${WALKTHROUGH}#${id}"]`);
  const checked = async (id: string): Promise<boolean> => (await checkMark(id)) === 'true';
  const palette = async (text: string): Promise<void> => {
    await page.keyboard.press('F1');
    await quickInput().locator('input.input').fill(`>${text}`);
    await page.locator('.quick-input-list .monaco-list-row', { hasText: text }).first().waitFor();
    await page.keyboard.press('Enter');
  };
  /** The Kubeadm container in the side bar (clicking its icon while it shows would hide the side bar). */
  const showKubeadm = async (): Promise<void> => {
    if (!(await inventoryPane().isVisible())) await page.locator('.part.activitybar a[aria-label^="Kubeadm"]').first().click();
    await inventoryPane().waitFor();
  };
  /** Errors + warnings as the status bar's Problems item counts them ("⊗ 1 ⚠ 0"). */
  const problems = async (): Promise<number> => {
    const text = (await page.locator('#status\\.problems').innerText().catch(() => '')) ?? '';
    return [...text.matchAll(/\d+/g)].reduce((n, m) => n + Number(m[0]), 0);
  };

  before(async () => {
    mkdirSync(SHOTS, { recursive: true });
    dirs = makeRunDirs('ui-walkthrough');
    writeFileSync(join(dirs.userData, 'User', 'settings.json'), JSON.stringify({ ...QUIET_SETTINGS, 'security.workspace.trust.enabled': true, 'security.workspace.trust.startupPrompt': 'always' }, null, 2));
    // The example's addresses on loopback: what the commands dial directly (the certificate step's TLS handshakes with
    // the VIP and each node's 6443) reaches nothing outside this machine; SSH goes to a closed port (makeRunDirs).
    for (const f of readdirSync(dirs.workspace, { recursive: true, withFileTypes: true }).filter((e) => e.isFile())) {
      const path = join(f.parentPath, f.name);
      writeFileSync(path, readFileSync(path, 'utf8').replaceAll('10.3.60.', '127.0.60.'));
    }
    // A closed config file with an error of its own (its own config set): what a reload must bring back to Problems.
    const haproxy = readFileSync(join(dirs.workspace, 'haproxy.cfg'), 'utf8');
    const broken = haproxy.replace(/(frontend kubernetes-api\n(?:.*\n)*?\s+mode )tcp/, '$1http');
    assert.notEqual(broken, haproxy);
    mkdirSync(join(dirs.workspace, 'reload-check'));
    writeFileSync(join(dirs.workspace, 'reload-check', 'haproxy.cfg'), broken);
    installVsix(dirs);
    cs = await startCodeServer({ dirs, workspaceTrust: true });
    ({ context, page } = await launchBrowser(dirs, { width: 1500, height: 1000 }));
    page.setDefaultTimeout(20_000);
    await page.goto(workbenchUrl(cs, dirs.workspace), { timeout: 60_000 });
  });

  after(async () => {
    if (scenario.failed && page) await shot('walkthrough-failure').catch(() => undefined);
    if (scenario.failed) for (const e of extensionHostErrors(dirs)) console.log(`extension host: ${e}`);
    await context?.close().catch(() => undefined);
    await cs?.stop();
    if (!scenario.failed) removeRunDir(dirs);
    else console.log(`run folder kept: ${dirs.root}`);
  });


  test('opened untrusted: the status bar and the Inventory say trust is what is missing, not "no cluster"', async () => {
    await dialog().filter({ hasText: /trust the authors/i }).waitFor({ timeout: 90_000 });
    await dialog().locator('.monaco-button', { hasText: /No, I don.t trust/ }).first().click();
    const item = page.locator('.statusbar-item', { hasText: 'Kubeadm: trust the workspace to connect' });
    await item.waitFor({ timeout: 60_000 });
    assert.equal(await page.locator('.statusbar-item', { hasText: 'Kubeadm: no cluster' }).count(), 0);
    await page.locator('.part.activitybar a[aria-label^="Kubeadm"]').first().click();
    await inventoryPane().locator('.monaco-list-row', { hasText: 'labs-k8s-w02' }).waitFor({ timeout: 60_000 });
    await inventoryPane().getByText('Restricted Mode: only files are read. Trust the workspace to see the cluster live and to reach the hosts over SSH.').waitFor();
    await shot('walkthrough-0-restricted');
  });

  test('the walkthrough opens from the palette with its eight steps and their media', async () => {
    await palette('Welcome: Open Walkthrough...');
    await page.locator('.quick-input-list .monaco-list-row', { hasText: 'Get started with Kubeadm Workbench' }).first().click();
    await step('trust').waitFor();
    const titles = await page.locator('.step-list-container .step-title').allInnerTexts();
    assert.deepEqual(titles.map((t) => t.trim()), ['Trust the workspace', 'Create or open inventory.yaml', 'Run the preflight checks', 'Read the bring-up plan', 'Bring up the cluster', 'Connect the live views', 'Back up etcd', 'Inspect the certificates']);
    // The step's markdown media renders in a webview beside the steps.
    await page.frameLocator('iframe.webview.ready').frameLocator('iframe#active-frame').locator('h1', { hasText: 'Trust the workspace' }).waitFor({ timeout: 30_000 });
    await shot('walkthrough-1-open');
  });

  /** The walkthrough in front, its steps shown (an editor opened over it may send the Welcome page back to its start). */
  const showWalkthrough = async (): Promise<void> => {
    const tab = page.locator('.tabs-container .tab', { hasText: 'Welcome' }).first();
    if ((await tab.count()) && !/\bactive\b/.test((await tab.getAttribute('class')) ?? '')) await tab.click();
    if (await step('trust').isEnabled({ timeout: 1_000 }).catch(() => false)) return;
    await palette('Welcome: Open Walkthrough...');
    await page.locator('.quick-input-list .monaco-list-row', { hasText: 'Get started with Kubeadm Workbench' }).first().click();
    await page.waitForFunction((sel) => !(document.querySelector(sel) as HTMLButtonElement | null)?.disabled, `button.getting-started-step[data-step-id="${WALKTHROUGH}#trust"]`);
  };
  /**
   * Selects a step, clicks its button and waits for the step's check mark (VS Code sets it when the command starts),
   * then answers what the command asks until it has nothing more to ask for a second and `done` holds.
   */
  const complete = async (id: string, button: string, answer: () => Promise<void>, timeoutMs = 60_000, done: () => Promise<boolean> = async () => true): Promise<void> => {
    // The Welcome page renders its steps again when a context key changes (an editor opens, trust changes): a click
    // that meets a step being replaced is tried again on the new one.
    for (let attempt = 1; ; attempt++) {
      try {
        await showWalkthrough();
        await step(id).click({ timeout: 5_000 });
        await step(id).locator('.button-container .monaco-button', { hasText: button }).first().click({ timeout: 5_000 });
        break;
      } catch (e) {
        if (attempt === 4) throw e;
      }
    }
    const t0 = Date.now();
    while (!(await checked(id))) {
      const missing = page.locator('.notifications-toasts .notification-toast', { hasText: /command '[\w.]+' not found/ });
      if (await missing.count()) assert.fail(`step ${id}: ${(await missing.first().innerText()).split('\n')[0]} — its button names a command no extension registers`);
      if (Date.now() - t0 > timeoutMs) {
        await shot(`walkthrough-stuck-${id}`);
        assert.fail(`step ${id} was not completed by "${button}" within ${timeoutMs} ms (screenshot walkthrough-stuck-${id}.png)`);
      }
      await answer();
      // The command opened an editor over the walkthrough and asks nothing more: back to the walkthrough to read the mark.
      if ((await checkMark(id)) === undefined && !(await dialog().isVisible()) && !(await quickInput().isVisible())) await showWalkthrough();
      await page.waitForTimeout(250);
    }
    console.log(`  step ${id}: completed by "${button}" in ${Date.now() - t0} ms`);
    for (let quiet = 0; quiet < 4 || !(await done()); await page.waitForTimeout(250)) {
      if (Date.now() - t0 > timeoutMs) assert.fail(`the command of step ${id} did not settle within ${timeoutMs} ms`);
      const asking = (await dialog().isVisible()) || (await quickInput().isVisible());
      quiet = asking ? 0 : quiet + 1;
      if (asking) await answer();
    }
  };
  /** Dismisses a question: a modal by its Cancel button, a picker by Escape. */
  const cancel = async (): Promise<void> => {
    if (await dialog().isVisible()) {
      const c = dialog().locator('.monaco-button', { hasText: /^Cancel$/ });
      if (await c.count()) await c.first().click();
      else await page.keyboard.press('Escape');
    } else if (await quickInput().isVisible()) await page.keyboard.press('Escape');
  };
  const none = async (): Promise<void> => undefined;

  test('trust: Manage Workspace Trust opens the trust editor (the step is done); trusting there ends Restricted Mode', async () => {
    await complete('trust', 'Manage Workspace Trust', none);
    const trust = page.locator('.workspace-trust-editor .monaco-button', { hasText: /^Trust( Folder)?$/ }).first();
    await trust.click();
    await page.locator('.statusbar-item', { hasText: 'Kubeadm: trust the workspace to connect' }).waitFor({ state: 'detached', timeout: 20_000 });
    await page.locator('.statusbar-item', { hasText: 'Kubeadm: no cluster' }).waitFor();
    // The trust editor opens as a modal editor: close it.
    await page.locator('.monaco-modal-editor-block .action-label[aria-label^="Close Modal Editor"]').click();
    await page.locator('.monaco-modal-editor-block').waitFor({ state: 'detached' });
  });

  test('inventory, plan, bring-up, connect, backup and certificates: each completed by its button', async () => {
    await complete('inventory', 'Create Inventory', none);
    // The plan's phases are accepted; the plan opens and nothing runs.
    await complete('plan', 'Show Bring-up Plan…', async () => {
      if (await quickInput().locator('.quick-input-title', { hasText: 'Show bring-up plan' }).isVisible().catch(() => false)) await page.keyboard.press('Enter');
    });
    // Bring up: the phases accepted, then the question to run answered Cancel (or a refusal before it, with the preflight).
    await complete('bringUp', 'Bring Up Cluster…', async () => {
      if (await quickInput().locator('.quick-input-title', { hasText: /Bring up/i }).isVisible().catch(() => false)) await page.keyboard.press('Enter');
      else await cancel();
    }, 90_000);
    await complete('connect', 'Select Cluster Context', cancel);
    await complete('backup', 'Back Up etcd…', cancel, 90_000);
    const certToast = page.locator('.notifications-toasts .notification-toast', { hasText: /Certificates of labs-k8s/ }).first();
    await complete('certificates', 'Inspect Certificates', cancel, 90_000, () => certToast.isVisible());
    // Every host behind the closed port: "not read" with its cause, no certificate problem counted anywhere.
    const certs = page.locator('.part.sidebar .pane').filter({ has: page.locator('.pane-header h3.title', { hasText: /^certificates$/i }) });
    await certs.locator('.monaco-list-row', { hasText: /labs-k8s-m01.*not read: / }).first().waitFor();
    // Room for every row: fold the Inventory above it.
    await inventoryPane().locator('.pane-header').click();
    await certs.locator('.monaco-list-row', { hasText: /labs-k8s-w02.*not read: / }).first().waitFor();
    assert.match(await certs.innerText(), /inspected .* · 5 of 5 host\(s\) not read/);
    const rows = await certs.locator('.monaco-list-row').allInnerTexts();
    console.log(`  Certificates view: ${rows.map((r) => r.replace(/\s+/g, ' ')).join(' | ')}`);
    assert.equal(rows.filter((r) => /not read: /.test(r)).length, 5, 'the five Kubernetes hosts');
    assert.ok(rows.every((r) => !/sh -c|openssl|\/etc\/kubernetes/.test(r)), 'no command text in a row');
    assert.match(await certToast.innerText(), /no certificate was read on the nodes; 5 of 5 host\(s\) not read \(.*\); no TLS handshake with 4 of 4 API address\(es\)/s);
    assert.equal(await page.locator('.statusbar-item', { hasText: /certs:/ }).count(), 0, 'no certificate status-bar item');
    await shot('walkthrough-3-certificates-not-read');
    await inventoryPane().locator('.pane-header').click();
    await showWalkthrough();
    await shot('walkthrough-2-steps');
    for (const t of await page.locator('.notifications-toasts .notification-toast').all()) await t.locator('.codicon-notifications-clear').click().catch(() => undefined);
  });

  test('preflight: Run Preflight Checks (kubeadmWorkbench.runPreflight, the command the walkthrough\'s preflight step runs) completes its step', async () => {
    // A walkthrough button naming a command nobody registered does nothing at all: say so instead of waiting.
    await page.keyboard.press('F1');
    await quickInput().locator('input.input').fill('>Kubeadm: Run Preflight Checks');
    const found = await page.locator('.quick-input-list .monaco-list-row', { hasText: 'Kubeadm: Run Preflight Checks' }).first().waitFor({ timeout: 3_000 }).then(() => true, () => false);
    await page.keyboard.press('Escape');
    assert.ok(found, '"Kubeadm: Run Preflight Checks" (kubeadmWorkbench.runPreflight) is not in the palette: the walkthrough\'s preflight step runs it, so the extension must register it');
    await complete('preflight', 'Run Preflight Checks', cancel, 90_000);
    await showWalkthrough();
    await shot('walkthrough-2-done');
  });

  test('completion in inventory.yaml: the cluster fields it lacks, with their docs', async () => {
    await palette('Kubeadm: Open Inventory');
    await page.locator('.tabs-container .tab.active', { hasText: 'inventory.yaml' }).waitFor();
    // After `cni: flannel`: a new line in the cluster mapping, then Ctrl+Space.
    await page.locator('.editor-instance .view-line', { hasText: 'cni: flannel' }).first().click();
    await page.keyboard.press('End');
    await page.keyboard.press('Enter');
    await page.keyboard.press('Control+Space');
    const suggest = page.locator('.suggest-widget .monaco-list-row');
    await suggest.filter({ hasText: 'apiServerAuditLog' }).first().waitFor();
    const labels = await suggest.allInnerTexts();
    assert.ok(!labels.some((l) => /^cni\b/.test(l.trim())), 'cni is there already');
    await shot('completion-inventory', page.locator('.editor-instance').first());
    await page.keyboard.press('Escape');
    await page.keyboard.press('Control+Z');
    await page.keyboard.press('Control+S');
  });

  test('after a reload: a loading row, never "No inventory.yaml"; the closed file\'s finding back within 2 s of the hosts', async () => {
    await showKubeadm();
    await inventoryPane().locator('.monaco-list-row', { hasText: 'labs-k8s-w02' }).waitFor();
    for (const t0 = Date.now(); (await problems()) === 0; await page.waitForTimeout(200)) if (Date.now() - t0 > 30_000) assert.fail('no problem in Problems before the reload');
    const before = await problems();
    const t0 = Date.now();
    await page.reload();
    const seen: string[] = [];
    let hostsAt: number | undefined;
    let problemsAt: number | undefined;
    for (let last = ''; Date.now() - t0 < 60_000 && !(hostsAt && problemsAt); await page.waitForTimeout(50)) {
      const text = (await inventoryPane().innerText().catch(() => '')).replace(/\s+/g, ' ').trim();
      if (text !== last && text) seen.push(`${Date.now() - t0} ms: ${text.slice(0, 90)}`);
      last = text;
      if (!hostsAt && text.includes('labs-k8s-w02')) hostsAt = Date.now() - t0;
      if (!problemsAt && (await problems()) >= before && before > 0) problemsAt = Date.now() - t0;
    }
    console.log(`  after the reload (load ${loadavg()[0]!.toFixed(1)}):\n    ${seen.join('\n    ')}\n    problems (${before}) back at ${problemsAt} ms, hosts at ${hostsAt} ms`);
    assert.ok(hostsAt && problemsAt, 'the hosts and the finding came back');
    assert.ok(!seen.some((s) => /No inventory\.yaml in this workspace/.test(s)), 'never "No inventory.yaml" while it loads');
    assert.ok(problemsAt - hostsAt <= PROBLEMS_AFTER_HOSTS_MS, `the finding came ${problemsAt - hostsAt} ms after the hosts (bound ${Math.round(PROBLEMS_AFTER_HOSTS_MS)} ms at load ${loadavg()[0]!.toFixed(1)})`);
  });
});
