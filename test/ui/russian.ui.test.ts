/**
 * Tier 3: the installed .vsix in Russian. code-server is started with `--locale ru` and a Russian language pack
 * installed (test/vscode/harness/displayLanguage.ts: VS Code needs one to switch; the fixture pack translates nothing
 * of VS Code itself, so VS Code's own texts stay English), with a copy of examples/labs-k8s whose haproxy.cfg has the
 * API frontend in `mode http`. What a Russian-speaking administrator sees of the extension is then read in Chromium:
 * the Kubeadm side bar's view names and the Inventory's groups, the cluster status-bar item, every command of ours in
 * the palette, the haproxy.cfg finding in Problems, the Get Started walkthrough's steps and page, the preflight's table with
 * the core's check names, causes and fixes (every host is a closed port on loopback here, as the harness maps them),
 * and the bring-up plan's phases and steps as the core writes them. The expected texts come from package.nls.ru.json and
 * l10n/bundle.l10n.ru.json, so a file that is not packaged, a key the code stops using or a language VS Code does not
 * pass on (English in the extension host) fails here.
 * Screenshots: test-results/ui/ru-1-side-bar.png, ru-2-palette.png, ru-3-problems.png, ru-4-walkthrough.png,
 * ru-5-preflight.png, ru-6-plan.png.
 *
 * Run: npm run -s package:tests && node --import tsx --test test/ui/russian.ui.test.ts
 */
import * as assert from 'node:assert/strict';
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, describe } from 'node:test';
import type { BrowserContext, FrameLocator, Locator, Page } from 'playwright-core';
import { REPO, extensionHostErrors, launchBrowser, makeRunDirs, removeRunDir, startCodeServer, workbenchUrl, type CodeServer, type RunDirs } from '../vscode/harness/codeServer';
import { installDisplayLanguage } from '../vscode/harness/displayLanguage';
import { installVsix } from '../vscode/harness/vsix';
import { runPaletteCommand, scenarioSteps } from '../vscode/harness/workbench';

const SHOTS = join(REPO, 'test-results/ui');
const readJson = <T>(file: string): T => JSON.parse(readFileSync(join(REPO, file), 'utf8')) as T;
const manifest = readJson<{
  contributes: {
    commands: { command: string; title: string; category?: string }[];
    views: Record<string, { id: string; name: string }[]>;
    menus: { commandPalette?: { command: string; when?: string }[] };
    walkthroughs: { title: string; steps: { title: string }[] }[];
  };
}>('package.json');
const nlsEn = readJson<Record<string, string>>('package.nls.json');
const nlsRu = readJson<Record<string, string>>('package.nls.ru.json');
const bundleRu = readJson<Record<string, string>>('l10n/bundle.l10n.ru.json');

/** The English and Russian texts of a manifest `%key%`. */
function manifestText(value: string): { en: string; ru: string } {
  const key = /^%(.+)%$/.exec(value)?.[1];
  assert.ok(key, `${value} is not a %key% of package.nls.json`);
  const [en, ru] = [nlsEn[key], nlsRu[key]];
  assert.ok(en && ru, `package.nls.json or package.nls.ru.json has no ${key}`);
  return { en, ru };
}

/** The Russian text of a manifest `%key%`, checked to differ from the English one (else the check would prove nothing). */
function manifestRu(value: string): string {
  const { en, ru } = manifestText(value);
  assert.notEqual(ru, en, `the Russian of ${value} is the English text`);
  return ru;
}

/** The Russian text of an editor string, its `{n}` filled as vscode.l10n.t fills them. */
function l10nRu(english: string, ...args: string[]): string {
  const ru = bundleRu[english];
  assert.ok(ru, `l10n/bundle.l10n.ru.json has no entry for "${english}"`);
  assert.notEqual(ru, english, `the Russian of "${english}" is the English text`);
  return ru.replace(/\{(\d+)\}/g, (_, i: string) => args[Number(i)] ?? '');
}

/** Palette labels ("Kubeadm: Открыть инвентарь") of the commands the palette lists in this workspace (it has an inventory). */
const hiddenFromPalette = new Set((manifest.contributes.menus.commandPalette ?? []).filter((e) => e.when === 'false').map((e) => e.command));
const PALETTE = manifest.contributes.commands
  .filter((c) => !hiddenFromPalette.has(c.command))
  .map((c) => {
    // The category ("Kubeadm") is the same word in both languages; the title is not.
    const category = c.category ? manifestText(c.category) : undefined;
    const title = manifestText(c.title);
    assert.notEqual(title.ru, title.en, `the Russian title of ${c.command} is the English one`);
    return { command: c.command, ru: category ? `${category.ru}: ${title.ru}` : title.ru, en: category ? `${category.en}: ${title.en}` : title.en };
  });

describe('kubeadm-workbench in Russian (code-server --locale ru)', { timeout: 180_000 }, () => {
  let dirs: RunDirs;
  let cs: CodeServer | undefined;
  let context: BrowserContext | undefined;
  let page: Page;
  const scenario = scenarioSteps(() => page);
  const step = scenario.step;

  const shot = (name: string): Promise<Buffer> => page.screenshot({ path: join(SHOTS, `${name}.png`) });
  /** The shown container's view titles (the Explorer's stay in the page, hidden). */
  const sideBarTitles = async (): Promise<string[]> =>
    (await page.locator('.part.sidebar .pane-header h3.title').filter({ visible: true }).allTextContents()).map((t) => t.trim());
  /** The webview shown in the editor area (one at a time here). */
  const webview = (): FrameLocator => page.frameLocator('iframe.webview.ready').frameLocator('iframe#active-frame');
  const pane = (title: string): Locator => page.locator('.part.sidebar .pane').filter({ has: page.locator('.pane-header h3.title', { hasText: title }) });

  before(async () => {
    mkdirSync(SHOTS, { recursive: true });
    dirs = makeRunDirs('ui-ru');
    // The finding to read in Problems: the API frontend in mode http (haproxy/frontend-mode-tcp).
    const haproxy = join(dirs.workspace, 'haproxy.cfg');
    const text = readFileSync(haproxy, 'utf8');
    const broken = text.replace(/(frontend kubernetes-api\n(?:.*\n)*?\s+mode )tcp/, '$1http');
    assert.notEqual(broken, text);
    writeFileSync(haproxy, broken);
    // No kubeconfig on this "machine": the preflight checks the hosts only (they are a closed port on loopback).
    const machine = join(dirs.userData, 'Machine', 'settings.json');
    writeFileSync(machine, JSON.stringify({ ...JSON.parse(readFileSync(machine, 'utf8')), 'kubeadmWorkbench.kubeconfig': join(dirs.root, 'home/.kube/config') }, null, 2));
    installVsix(dirs);
    const ru = await installDisplayLanguage(dirs, 'ru');
    // Whether the upstream bug (microsoft/vscode#237663) still needs the helper's record; timings are the vscode tier's.
    console.log(`the Russian language pack recorded by --install-extension itself: ${ru.recordedByInstall}`);
    cs = await startCodeServer({ dirs, extraArgs: ['--locale', 'ru'] });
    ({ context, page } = await launchBrowser(dirs));
    page.setDefaultTimeout(20_000);
    await page.goto(workbenchUrl(cs, dirs.workspace), { timeout: 60_000 });
    await page.locator('.explorer-folders-view .monaco-list-row', { hasText: 'inventory.yaml' }).waitFor({ timeout: 60_000 });
  });

  after(async () => {
    if (scenario.failed && page) await shot('ru-failure').catch(() => undefined);
    if (scenario.failed) for (const e of extensionHostErrors(dirs)) console.log(`extension host: ${e}`);
    await context?.close().catch(() => undefined);
    await cs?.stop();
    if (!scenario.failed) removeRunDir(dirs);
    else console.log(`run folder kept: ${dirs.root}`);
  });


  step('the Kubeadm side bar: every view named in Russian, the Inventory groups in Russian, the status bar in Russian', async () => {
    await page.locator('.part.activitybar a[aria-label^="Kubeadm"]').first().click();
    const views = manifest.contributes.views.kubeadm!.map((v) => manifestRu(v.name));
    // The hosts in whatever language the views came up in, then their names: an English side bar fails at once.
    await page.locator('.part.sidebar .monaco-list-row', { hasText: 'labs-k8s-w02' }).waitFor({ timeout: 60_000 });
    const inventory = pane(views[0]!);
    const titles = await sideBarTitles();
    console.log(`  views: ${titles.join(' | ')}`);
    assert.deepEqual(titles, views);

    const english = ['Load balancers', 'Control plane', 'Workers'];
    const groups = english.map((g) => l10nRu(g));
    const names = await inventory.locator('.monaco-list-row .label-name').evaluateAll((els) => els.map((e) => e.textContent?.trim() ?? ''));
    console.log(`  Inventory rows: ${names.join(' | ')}`);
    // The group rows among the hosts (and the VIP's row when the balancers answer), in Russian and in order.
    assert.deepEqual(names.filter((n) => groups.includes(n) || english.includes(n)), groups);

    const noCluster = l10nRu('Kubeadm: no cluster');
    await page.locator('.statusbar-item', { hasText: noCluster }).waitFor();
    assert.equal(await page.locator('.statusbar-item', { hasText: 'Kubeadm: no cluster' }).count(), 0, 'no English status-bar item');
    await shot('ru-1-side-bar');
  });

  step(`the palette lists our ${PALETTE.length} commands by their Russian titles`, async () => {
    await page.keyboard.press('F1');
    const input = page.locator('.quick-input-widget input.input');
    await input.waitFor();
    // A row's label (not its detail line, where VS Code may show a command's English alias in another language).
    const labelShown = (label: string, timeout = 5_000): Promise<boolean> =>
      page
        .waitForFunction(
          (l) => [...document.querySelectorAll('.quick-input-list .monaco-list-row .label-name')].some((e) => !e.closest('.quick-input-list-label-meta') && e.textContent?.trim() === l),
          label,
          { timeout },
        )
        .then(() => true, () => false);
    const missing: string[] = [];
    for (const c of PALETTE) {
      await input.fill(`>${c.ru}`);
      if (!(await labelShown(c.ru))) missing.push(`${c.command} "${c.ru}"`);
      if (missing.length === 3) break; // an untranslated palette: enough to say so, without 5 s for each command
    }
    assert.deepEqual(missing, [], 'commands the palette does not list by their Russian title');
    // And not by the English one (which VS Code may show as the command's alias below the Russian title).
    const open = PALETTE.find((c) => c.command === 'kubeadm.openInventory')!;
    await input.fill(`>${open.en}`);
    assert.equal(await labelShown(open.en, 1_500), false, `the palette still lists "${open.en}"`);
    await input.fill('>Kubeadm: ');
    await page.locator('.quick-input-list .monaco-list-row').first().waitFor();
    await shot('ru-2-palette');
    await page.keyboard.press('Escape');
  });

  step('Problems: the haproxy.cfg finding in Russian', async () => {
    const expected = l10nRu("{0} '{1}' serves the Kubernetes API in mode {2}{3}; it must be mode tcp.", 'frontend', 'kubernetes-api', 'http', '');
    await page.locator('#status\\.problems').click();
    const panel = page.locator('.part.panel .markers-panel');
    await panel.waitFor();
    const row = panel.locator('.monaco-list-row', { hasText: expected });
    await row.first().waitFor({ timeout: 30_000 }).catch(async () => {
      assert.fail(`no "${expected}" in Problems: ${(await panel.innerText()).replace(/\s+/g, ' ').slice(0, 400)}`);
    });
    console.log(`  Problems: ${(await row.first().innerText()).replace(/\s+/g, ' ')}`);
    await shot('ru-3-problems');
  });

  step('the Get Started walkthrough: its title, its eight steps and the first step\'s page in Russian', async () => {
    const walkthrough = manifest.contributes.walkthroughs[0]!;
    const title = manifestRu(walkthrough.title);
    // VS Code's own command, in English: the fixture language pack translates nothing of VS Code.
    await page.keyboard.press('F1');
    await page.locator('.quick-input-widget input.input').fill('>Welcome: Open Walkthrough...');
    await page.locator('.quick-input-list .monaco-list-row', { hasText: 'Welcome: Open Walkthrough...' }).first().waitFor();
    await page.keyboard.press('Enter');
    await page.locator('.quick-input-list .monaco-list-row', { hasText: title }).first().click();
    await page.locator('.step-list-container .step-title').first().waitFor();
    const titles = (await page.locator('.step-list-container .step-title').allTextContents()).map((t) => t.trim());
    assert.deepEqual(titles, walkthrough.steps.map((s) => manifestRu(s.title)));
    // The first step's page in Russian: VS Code shows media/walkthrough/trust.nls.ru.md beside the English page.
    await page.locator('.step-list-container .step-title', { hasText: titles[0]! }).first().click();
    const heading = /^# (.+)$/m.exec(readFileSync(join(REPO, 'media/walkthrough/trust.nls.ru.md'), 'utf8'))![1]!;
    await webview().locator('h1', { hasText: heading }).waitFor({ timeout: 30_000 });
    await shot('ru-4-walkthrough');
  });

  step('the preflight in Russian: the core\'s check names, each host\'s cause and fix, the verdict', async () => {
    await runPaletteCommand(page, `Kubeadm: ${manifestRu('%command.runPreflight.title%')}`);
    const frame = webview();
    const titles = ['SSH settings', 'name', 'port', 'keys', 'host key', 'login', 'sudo'].map((t) => bundleRu[t]!);
    await frame.locator('#hosts thead th', { hasText: titles[0]! }).waitFor({ timeout: 60_000 });
    const head = (await frame.locator('#hosts thead th').allTextContents()).map((t) => t.trim());
    assert.deepEqual(head.slice(2, 9), titles);
    // Every host is loopback, where nothing listens: refused, said in Russian with the fix.
    const refused = new RegExp(l10nRu('nothing listens on {0} port {1}: the connection was refused', '127\\.0\\.0\\.1', '\\d+'));
    await frame.locator('.cause', { hasText: refused }).first().waitFor();
    await frame.locator('.cause', { hasText: l10nRu('start sshd on the host (systemctl start ssh) or set the port it listens on (ssh: { port: … } in inventory.yaml)') }).first().waitFor();
    const hosts = await frame.locator('#hosts tbody tr').count();
    const verdict = (await frame.locator('#verdict').innerText()).trim();
    console.log(`  verdict: ${verdict.slice(0, 160)}`);
    assert.ok(verdict.startsWith(l10nRu('{0} of {1} hosts fail the preflight', String(hosts), String(hosts))), verdict);
    const text = await frame.locator('body').innerText();
    for (const english of ['SSH settings', 'nothing listens on', 'fail the preflight', 'host key']) assert.ok(!text.includes(english), `"${english}" in the Russian preflight`);
    await shot('ru-5-preflight');
  });

  step('the bring-up plan in Russian: the core\'s phase and step titles in the plan webview', async () => {
    await runPaletteCommand(page, 'View: Close All Editors');
    await runPaletteCommand(page, `Kubeadm: ${manifestRu('%command.showBringUpPlan.title%')}`);
    await page.locator('.quick-input-widget .quick-input-title', { hasText: l10nRu('Show bring-up plan') }).waitFor();
    await page.keyboard.press('Enter');
    await page.locator('.tabs-container .tab.active', { hasText: l10nRu('Bring-up plan: {0}', 'labs-k8s') }).waitFor();
    const frame = webview();
    await frame.locator('details.phase summary', { hasText: l10nRu('Prepare hosts') }).first().waitFor({ timeout: 30_000 });
    const phases = (await frame.locator('details.phase > summary').allTextContents()).map((t) => t.trim().replace(/\s+/g, ' '));
    console.log(`  phases: ${phases.map((p) => p.slice(0, 60)).join(' | ')}`);
    for (const english of ['Prepare hosts', 'Load balancer (HAProxy + Keepalived VIP)', 'Initialise the first control-plane node', 'Join the workers in parallel']) {
      assert.ok(!phases.some((p) => p.includes(english)), `the phase "${english}" is English`);
    }
    const firstStep = frame.locator('details.step').first();
    await firstStep.locator('summary').click();
    const first = await firstStep.innerText();
    assert.ok(first.includes(l10nRu('Install marker (tells a later run that this host is the one it prepared)')), `the first step, the install marker, in Russian: ${first.slice(0, 120)}`);
    await shot('ru-6-plan');
  });
});
