import tseslint from 'typescript-eslint';
import { oneWayRule } from './scripts/layers.mjs';

const NO_ERROR_CAST = { selector: "TSAsExpression > TSTypeReference[typeName.name='Error']", message: 'Use errorMessage(e) or toError(e) from core/errors.ts instead of "as Error".' };

// VS Code's own dialogs, by the names a call (vscode.window.showQuickPick) or a destructuring would use.
const DIALOGS = '/^(show(Information|Warning|Error)Message|showQuickPick|showInputBox|createQuickPick|createInputBox)$/';
const DIALOG_MESSAGE = "Speak through editorUi(ctx.reports) (editor/vscodeUi.ts: message, pick, input, confirm, secret): one Ui for both front-ends, Show Log on every error, and the extension-host tests' scripted answers";
const NO_DIRECT_DIALOG = [
  { selector: `MemberExpression[property.name=${DIALOGS}]`, message: DIALOG_MESSAGE },
  { selector: `ObjectPattern > Property[key.name=${DIALOGS}]`, message: DIALOG_MESSAGE },
];

export default tseslint.config(
  { ignores: ['dist/**', 'out/**', 'node_modules/**', 'lab/cache/**', '**/*.js', '**/*.mjs'] },
  ...tseslint.configs.recommended,
  {
    rules: {
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', varsIgnorePattern: '^_' }],
      // A file reads in one sitting: past 500 lines it is two things (split it by what each part is).
      'max-lines': ['error', { max: 500, skipBlankLines: false, skipComments: false }],
    },
  },
  {
    // What a catch gets is unknown: core/errors.ts reads it (errorMessage, isCancel, toError) instead of a cast that
    // prints "undefined" for a thrown string or an ssh2 error object.
    files: ['src/**/*.ts'],
    rules: {
      'no-restricted-syntax': ['error', NO_ERROR_CAST],
    },
  },
  {
    // The editor layers say things and ask questions through the workflows' Ui as VS Code implements it
    // (editor/vscodeUi.ts, the one place that calls the dialogs), never through VS Code's dialogs directly.
    files: ['src/commands/**/*.ts', 'src/views/**/*.ts', 'src/webviews/**/*.ts', 'src/editor/**/*.ts', 'src/extension.ts'],
    ignores: [
      // The Ui itself.
      'src/editor/vscodeUi.ts',
      // A quick pick with a title button ("Generate into another folder…") and all items checked: not a Ui choice.
      'src/commands/generateClusterConfigs.ts',
      // A webview panel's message handler: it has no report documents for a Ui (one warning, no question).
      'src/webviews/diagnosticsPanel.ts',
      // Asked from inside the SSH handshake (unknown, changed and revoked host keys; key passphrases), by the session
      // pool's callbacks: they run below every command, where no command's Ui exists (the live views connect too).
      'src/editor/sshHostKeyPrompt.ts',
      'src/editor/sshSecrets.ts',
      // The kubeconfig picker: its items carry their actions (test/vscode/suite/newcomer.test.ts answers by them), which
      // a Ui pick would replace by values; next to move, with that test.
      'src/editor/contextPicker.ts',
    ],
    rules: {
      'no-restricted-syntax': ['error', NO_ERROR_CAST, ...NO_DIRECT_DIALOG],
    },
  },
  {
    // Layers go one way (core → adapters → engine → cli / editor layers) and only the editor layers import vscode.
    // The table is scripts/layers.mjs; test/unit/layers/ checks every import of src/ against it too.
    files: ['src/**/*.ts'],
    plugins: { layers: { rules: { 'one-way': oneWayRule } } },
    rules: { 'layers/one-way': 'error' },
  },
  {
    // core/ is parsers, rules, plans and models: the I/O lives in adapters/ (and engine/), so core runs the same in
    // the CLI, the extension host, a worker and a browser bundle, and its tests need no files or processes.
    files: ['src/core/**/*.ts'],
    rules: {
      'no-restricted-imports': ['error', {
        paths: ['fs', 'node:fs', 'fs/promises', 'node:fs/promises', 'child_process', 'node:child_process']
          .map((name) => ({ name, message: 'core/ does no file or process I/O: put it in adapters/ (or engine/) and pass the result in' })),
      }],
    },
  },
);
