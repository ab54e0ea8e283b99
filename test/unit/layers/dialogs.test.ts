// The editor layers speak through the workflows' Ui (editor/vscodeUi.ts): the ESLint rule of eslint.config.mjs refuses
// a direct VS Code dialog anywhere else in them. Run here on a planted call, so a rule that stops matching (a renamed
// selector, a files pattern that no longer reaches commands/) fails this tier, not only the lint step.
import { strict as assert } from 'node:assert';
import { join } from 'node:path';
import { test } from 'node:test';
import { ESLint } from 'eslint';

const root = join(__dirname, '..', '..', '..');
const eslint = new ESLint({ cwd: root });

const PLANTED = `import * as vscode from 'vscode';
export async function planted(): Promise<void> {
  await vscode.window.showErrorMessage('Cannot do it.');
  const { showQuickPick } = vscode.window;
  await showQuickPick(['a']);
  await vscode.window.showInputBox({ title: 'Name' });
}
`;

/** The lines where the dialog rule fired on `text` as if it were the file `rel`. */
async function dialogLines(rel: string, text: string): Promise<number[]> {
  const [result] = await eslint.lintText(text, { filePath: join(root, rel) });
  return result!.messages.filter((m) => m.ruleId === 'no-restricted-syntax' && /editorUi/.test(m.message)).map((m) => m.line);
}

test('a direct dialog in a command, a view, a webview or the editor layer is refused, each call and destructuring', async () => {
  for (const rel of ['src/commands/planted.ts', 'src/views/planted.ts', 'src/webviews/planted.ts', 'src/editor/planted.ts']) {
    assert.deepEqual(await dialogLines(rel, PLANTED), [3, 4, 6], rel);
  }
});

test('the Ui itself calls the dialogs; saying it through editorUi() passes', async () => {
  assert.deepEqual(await dialogLines('src/editor/vscodeUi.ts', PLANTED), []);
  const through = `import { editorUi } from '../editor/vscodeUi';
import type { ReportDocuments } from '../editor/reportDocuments';
export async function said(reports: ReportDocuments): Promise<void> {
  await editorUi(reports).message('error', 'Cannot do it.', { actions: ['Retry'] });
}
`;
  assert.deepEqual(await dialogLines('src/commands/planted.ts', through), []);
});
