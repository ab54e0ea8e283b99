/**
 * Real VS Code (code-server, the packaged .vsix installed as users install it, driven by Debian's Chromium) on a
 * workspace holding the lab's inventory, pointed at the lab's running cluster: the lab tests that work from the
 * palette and read the Kubeadm views use it. Default settings apart from what `scripts/start.sh --lab` sets (the
 * lab's kubeconfig, SSH config and known_hosts, as machine settings) and what a test adds.
 */
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { copyFileSync, existsSync, mkdirSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import type { BrowserContext, Locator, Page } from 'playwright-core';
import type { LedgerData } from '../../src/core/plan/ledger';
import { REPO, extensionHostErrors, launchBrowser, makeRunDirs, removeRunDir, startCodeServer, workbenchUrl, type CodeServer, type RunDirs } from '../vscode/harness/codeServer';
import { installVsix } from '../vscode/harness/vsix';
import { tempDir } from '../tempDir';

export const SHOTS = join(REPO, 'test-results/ui');

/** `lab env`, its $PATH expanded. */
export function labEnv(): Record<string, string> {
  const out = execFileSync('bash', [join(REPO, 'lab/lab.sh'), 'env'], { encoding: 'utf8' });
  return Object.fromEntries([...out.matchAll(/^export (\w+)="(.*)"$/gm)].map((m) => [m[1]!, m[2]!.replace('$PATH', process.env.PATH ?? '')]));
}

export interface LabEditor {
  env: Record<string, string>;
  dirs: RunDirs;
  page: Page;
  shot(name: string): Promise<void>;
  /** Stops code-server and the browser; the run folder is kept when the test failed. */
  close(ok: boolean): Promise<void>;
}

/** `inventory`: what the workspace's inventory.yaml is made of the lab's (a test's starting point, as a user saved it). */
export async function openLabEditor(name: string, settings: Record<string, unknown> = {}, inventory?: (lab: string) => string): Promise<LabEditor> {
  const env = labEnv();
  mkdirSync(SHOTS, { recursive: true });
  const staging = tempDir(`kw-${name}-ws-`);
  for (const f of ['inventory.yaml', 'kube-flannel.yml', 'kubeadm-extra.yaml']) copyFileSync(join(dirname(env.LAB_INVENTORY!), f), join(staging, f));
  if (inventory) writeFileSync(join(staging, 'inventory.yaml'), inventory(readFileSync(join(staging, 'inventory.yaml'), 'utf8')));
  const dirs = makeRunDirs(name, staging);
  rmSync(staging, { recursive: true, force: true });
  writeFileSync(join(dirs.userData, 'Machine', 'settings.json'), JSON.stringify({
    'kubeadmWorkbench.kubeconfig': env.KUBECONFIG,
    'kubeadmWorkbench.sshConfigFile': env.LAB_SSH_CONFIG,
    'kubeadmWorkbench.knownHostsFile': env.LAB_KNOWN_HOSTS,
    // The DOM renderer: the run terminal's text is readable by the test.
    'terminal.integrated.gpuAcceleration': 'off',
    ...settings,
  }, null, 2));
  installVsix(dirs);
  let cs: CodeServer | undefined;
  let context: BrowserContext | undefined;
  try {
    cs = await startCodeServer({ dirs });
    ({ context } = await launchBrowser(dirs, { width: 1600, height: 1000 }));
    const page = context.pages()[0]!;
    page.setDefaultTimeout(30_000);
    // The first load fetches the whole workbench: slow on a loaded machine, longer than a click may take.
    await page.goto(workbenchUrl(cs, dirs.workspace), { timeout: 120_000 });
    await page.locator('.explorer-folders-view .monaco-list-row', { hasText: 'inventory.yaml' }).waitFor({ timeout: 90_000 });
    const shot = (n: string) => page.screenshot({ path: join(SHOTS, `${n}.png`) }).then(() => undefined);
    return {
      env, dirs, page, shot,
      async close(ok) {
        if (!ok) {
          await shot(`${name}-failure`).catch(() => undefined);
          for (const e of extensionHostErrors(dirs)) console.log(`extension host: ${e}`);
        }
        await context?.close().catch(() => undefined);
        await cs?.stop();
        if (ok) removeRunDir(dirs);
        else console.log(`run folder kept: ${dirs.root}`);
      },
    };
  } catch (e) {
    await context?.close().catch(() => undefined);
    await cs?.stop();
    throw e;
  }
}

const exactly = (title: string) => new RegExp(`^${title.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}$`, 'i');

/** F1, the command's title, Enter: the editor tiers' one way (test/vscode/harness/workbench.ts). */
export { runPaletteCommand } from '../vscode/harness/workbench';

/**
 * The plan-run's modal ("Run N steps on M hosts of labs-k8s?") once its plan is open beside it (the tab `planTab`):
 * its message, and a click on one of its buttons that waits until it is gone.
 */
export async function planApproval(page: Page, planTab: string, timeoutMs = 3 * 60_000): Promise<{ message: string; click: (button: 'Run' | 'Cancel') => Promise<void> }> {
  const dialog = page.locator('.monaco-dialog-box').filter({ hasText: /Run \d+ steps on \d+ hosts of / });
  await dialog.waitFor({ timeout: timeoutMs });
  await page.locator('.tabs-container .tab', { hasText: planTab }).waitFor();
  const message = (await dialog.locator('.dialog-message-text').innerText()).trim();
  return {
    message,
    click: async (button) => {
      await dialog.locator('.monaco-button', { hasText: new RegExp(`^${button}$`) }).first().click();
      await dialog.waitFor({ state: 'hidden' });
    },
  };
}

/**
 * A multi-select quick pick (canPickMany): each label typed into the filter and its row's checkbox clicked, as a person
 * ticks it, then Enter. The workbench renders each row as `role="checkbox"` with a toggle of the same role inside (not
 * an <input>), and typing a space only filters: the toggle is found by its role and name, and a tick counts once the
 * row says `aria-checked="true"`. Before Enter the "N Selected" badge must count exactly these rows.
 */
export async function pickManyInQuickPick(page: Page, labels: readonly string[]): Promise<void> {
  const input = page.locator('.quick-input-widget input.input');
  await input.waitFor();
  for (const label of labels) {
    await input.fill(label);
    const row = page.locator('.quick-input-list .monaco-list-row[role="checkbox"]').filter({ has: page.locator('.label-name', { hasText: exactly(label) }) }).first();
    await row.waitFor();
    if ((await row.getAttribute('aria-checked')) !== 'true') await row.getByRole('checkbox', { name: label, exact: true }).click();
    await page.locator(`.quick-input-list .monaco-list-row[role="checkbox"][aria-checked="true"]`).filter({ has: page.locator('.label-name', { hasText: exactly(label) }) }).first().waitFor({ timeout: 5000 });
  }
  await input.fill('');
  await page.locator('.quick-input-widget .quick-input-count', { hasText: new RegExp(`^\\s*${labels.length} Selected\\s*$`) }).waitFor({ timeout: 5000 });
  await page.keyboard.press('Enter');
}

/** The Kubeadm container in the side bar, widened so that the rows' descriptions show in full. */
export async function openKubeadmContainer(page: Page): Promise<void> {
  await page.locator('.part.activitybar a[aria-label^="Kubeadm"]').first().click();
  await page.locator('.part.sidebar .composite.title', { hasText: /kubeadm/i }).first().waitFor();
  const bar = await page.locator('.part.sidebar').boundingBox();
  if (bar && bar.width < 760) {
    const x = bar.x + bar.width + 1;
    const y = bar.y + bar.height / 2;
    await page.mouse.move(x, y);
    await page.mouse.down();
    await page.mouse.move(x + 760 - bar.width, y, { steps: 5 });
    await page.mouse.up();
  }
}

function pane(page: Page, title: string): Locator {
  return page.locator('.part.sidebar .pane').filter({ has: page.locator('.pane-header h3.title', { hasText: exactly(title) }) });
}

/** Only this view of the container expanded: its rows get the side bar's height for a screenshot. */
export async function showOnlyView(page: Page, title: string): Promise<void> {
  const headers = page.locator('.part.sidebar .pane-header');
  for (let i = 0; i < (await headers.count()); i++) {
    const h = headers.nth(i);
    const name = (await h.locator('h3.title').innerText()).trim();
    const open = (await h.getAttribute('aria-expanded')) === 'true';
    if (exactly(title).test(name) !== open) await h.click();
  }
  await pane(page, title).locator('.pane-body').waitFor();
}

export interface Row {
  name: string;
  description: string;
}

/** The visible rows of a view: label and description, as a person reads them. */
export async function viewRows(page: Page, title: string): Promise<Row[]> {
  return pane(page, title).locator('.pane-body .monaco-list-row').evaluateAll((els) =>
    els.map((e) => ({
      name: e.querySelector('.label-name')?.textContent?.trim() ?? '',
      description: e.querySelector('.label-description')?.textContent?.trim() ?? '',
    })),
  );
}

/** Polls a view until `pick` finds what it waits for in its rows; the rows seen last in the failure message. */
export async function waitForRows<T>(page: Page, title: string, what: string, timeoutMs: number, pick: (rows: Row[]) => T | undefined, everyMs = 200): Promise<T> {
  const end = Date.now() + timeoutMs;
  let rows: Row[] = [];
  for (;;) {
    rows = await viewRows(page, title).catch(() => []);
    const v = pick(rows);
    if (v !== undefined) return v;
    if (Date.now() > end) assert.fail(`${title}: no ${what} within ${timeoutMs / 1000} s; rows:\n${rows.map((r) => `${r.name} ${r.description}`).join('\n')}`);
    await page.waitForTimeout(everyMs);
  }
}

/**
 * Expands (or collapses) the first row whose label matches — a host under Certificates, "Local backups": the list
 * renders only the rows in sight, so a test keeps long branches closed while it reads others.
 */
export async function setRowExpanded(page: Page, title: string, label: string | RegExp, expanded = true): Promise<void> {
  const row = pane(page, title).locator(`.pane-body .monaco-list-row[aria-expanded="${!expanded}"]`).filter({ has: page.locator('.label-name', { hasText: label }) }).first();
  if (await row.count()) await row.locator('.monaco-tl-twistie').click();
}

/**
 * Waits for a run started from the palette to end well, by its ledger in the workspace's runs folder (the newest
 * `*-<command>.json`), and returns that ledger; fails at a failed or cancelled step, at a dialog on the way (the run
 * asked something the test did not expect), or after `minutes`. `what` names the run in the failure.
 */
export async function waitForLedger(page: Page, runs: string, command: string, what: string, minutes: number, everyMs = 1000): Promise<LedgerData> {
  for (const deadline = Date.now() + minutes * 60_000; ;) {
    const file = (existsSync(runs) ? readdirSync(runs) : []).filter((f) => f.endsWith(`-${command}.json`)).sort().at(-1);
    const l = file ? (JSON.parse(readFileSync(join(runs, file), 'utf8')) as LedgerData) : undefined;
    if (l?.completedAt) return l;
    const stopped = Object.entries(l?.steps ?? {}).find(([, e]) => e.state === 'failed' || e.state === 'cancelled');
    if (stopped) assert.fail(`the ${what} stopped at ${stopped[0]}: ${stopped[1].error ?? stopped[1].state}`);
    if (await page.locator('.monaco-dialog-box').isVisible()) assert.fail(`the run stopped at a dialog: ${(await page.locator('.monaco-dialog-box').innerText()).replace(/\s+/g, ' ')}`);
    if (Date.now() > deadline) assert.fail(`the ${what} did not finish within ${minutes} minutes`);
    await page.waitForTimeout(everyMs);
  }
}
