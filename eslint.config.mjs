import tseslint from 'typescript-eslint';
import { oneWayRule } from './scripts/layers.mjs';

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
