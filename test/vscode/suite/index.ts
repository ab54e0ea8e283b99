/**
 * extensionTestsPath entry: the extension host calls run() and waits for its promise. Loads every *.test.js bundled
 * next to this file (test/vscode/run.ts bundles test/vscode/suite/*.ts into the installed extension's vscode-test/).
 */
import { readdirSync } from 'node:fs';
import { join } from 'node:path';
import Mocha from 'mocha';

export function run(): Promise<void> {
  // KW_VSCODE_GREP narrows the run to matching suites/tests (one area while developing; CI runs all).
  const grep = process.env.KW_VSCODE_GREP;
  const mocha = new Mocha({ ui: 'tdd', color: false, timeout: 30_000, reporter: 'spec', ...(grep ? { grep } : {}) });
  for (const f of readdirSync(__dirname).filter((f) => f.endsWith('.test.js')).sort()) mocha.addFile(join(__dirname, f));
  return new Promise((resolve, reject) => {
    try {
      let passed = 0;
      let failed = 0;
      let skipped = 0;
      const runner = mocha.run((failures) => {
        // Read by test/vscode/run.ts for the tier's summary.
        console.log(`KW_VSCODE_RESULT passed=${passed} failed=${failed} skipped=${skipped}`);
        if (failures > 0) reject(new Error(`${failures} extension-host test(s) failed.`));
        // A suite that loaded no test (a bundling or discovery fault) proves nothing: fail rather than pass empty.
        else if (passed + failed === 0) reject(new Error(`no extension-host test ran (${skipped} skipped).`));
        else resolve();
      });
      runner.on('pass', () => passed++);
      runner.on('fail', () => failed++);
      runner.on('pending', () => skipped++);
    } catch (e) {
      reject(e instanceof Error ? e : new Error(String(e)));
    }
  });
}
