/**
 * What a person does in the workbench, shared by the browser tests of the editor tiers (test/ui, test/lab): run a
 * command from the palette, find a notification, clear them, read the quick input's title; and steps that leave the
 * rest of a file alone once one has failed (their screenshots and run folder then show where it stopped).
 */
import { it } from 'node:test';
import type { Locator, Page } from 'playwright-core';

/**
 * F1, the command's title, Enter — as a person would, again until it works (for a minute). Three things made a single
 * try fail on a loaded machine: a key press lands nowhere while the focus is inside a webview's frame (the preflight
 * panel, a toast's button that just opened the log); a panel that opens a moment after the palette closes it under
 * the typing (the input vanished and `fill` waited 30 s); and a palette opened while the workbench was still learning
 * the extensions' contributions lists only "similar commands" and never updates (ui-timeline's first command).
 * Enter is pressed only once the focused row is the command: a list not yet filtered by the typing has another row
 * focused (the most recently used command), and Enter would run that one.
 */
export async function runPaletteCommand(page: Page, title: string, timeoutMs = 60_000): Promise<void> {
  const input = page.locator('.quick-input-widget input.input');
  const row = page.locator('.quick-input-list .monaco-list-row', { hasText: title }).first();
  let last: unknown;
  for (let i = 0, deadline = Date.now() + timeoutMs; Date.now() < deadline; i++) {
    try {
      if (!(await input.isVisible())) {
        await page.keyboard.press(i % 2 ? 'Control+Shift+P' : 'F1');
        await input.waitFor({ timeout: 3_000 });
      }
      await input.fill(`>${title}`, { timeout: 3_000 });
      await row.waitFor({ timeout: 10_000 });
      await page.locator('.quick-input-list .monaco-list-row.focused', { hasText: title }).waitFor({ timeout: 3_000 });
      await page.keyboard.press('Enter');
      return;
    } catch (e) {
      last = e;
      if (await input.isVisible()) await page.keyboard.press('Escape');
    }
  }
  throw new Error(`the command palette did not run "${title}" within ${timeoutMs / 1000} s: ${last instanceof Error ? last.message.split('\n')[0] : String(last)}`);
}

/**
 * Waits for `target`; when it does not come, fails naming what was awaited and what the workbench showed instead (the
 * quick input's title, the toasts): a CI summary keeps only the first line of an error.
 */
export async function shown(page: Page, target: Locator, what: string, timeoutMs = 60_000): Promise<void> {
  try {
    await target.waitFor({ timeout: timeoutMs });
  } catch {
    const title = await quickTitle(page).innerText({ timeout: 1_000 }).catch(() => '');
    const quick = (await page.locator('.quick-input-widget').isVisible().catch(() => false)) ? `quick input "${title.trim()}"` : 'no quick input';
    const toasts = await page.locator('.notifications-toasts .notification-toast .notification-list-item-message').allInnerTexts().catch(() => []);
    const dialog = await page.locator('.monaco-dialog-box').allInnerTexts().catch(() => []);
    throw new Error(`${what} did not show within ${timeoutMs / 1000} s; on screen: ${quick}; toasts: ${toasts.length ? toasts.map((x) => JSON.stringify(x.slice(0, 160))).join(', ') : 'none'}${dialog.length ? `; dialog: ${JSON.stringify(dialog[0]!.slice(0, 160))}` : ''}`);
  }
}

/** The notification toasts whose text matches. */
export const toast = (page: Page, text: RegExp | string): Locator => page.locator('.notifications-toasts .notification-toast').filter({ hasText: text });

/** Every notification cleared (VS Code's own command), so the next one a test waits for is the next one shown. */
export async function clearToasts(page: Page): Promise<void> {
  await runPaletteCommand(page, 'Notifications: Clear All Notifications');
  await page.locator('.notifications-toasts .notification-toast').first().waitFor({ state: 'detached' }).catch(() => undefined);
}

/** The title of the quick input (a pick or an input box) on screen. */
export const quickTitle = (page: Page): Locator => page.locator('.quick-input-widget .quick-input-title');

/**
 * Steps of one scenario in order: once one fails the later ones still run (node:test has no "stop here"), each first
 * pressing Escape twice so that a dialog or quick pick the failed one left open does not block it. `failed` tells the
 * file's `after` to keep the run folder and take a screenshot.
 */
export function scenarioSteps(page: () => Page | undefined): { step: (name: string, fn: () => Promise<void>) => void; readonly failed: boolean } {
  let failed = false;
  return {
    get failed() {
      return failed;
    },
    step(name, fn) {
      it(name, async () => {
        const p = page();
        if (failed && p) for (let i = 0; i < 2; i++) await p.keyboard.press('Escape');
        try {
          await fn();
        } catch (e) {
          failed = true;
          throw e;
        }
      });
    },
  };
}
