import tseslint from 'typescript-eslint';
import { oneWayRule } from './scripts/layers.mjs';

export default tseslint.config(
  { ignores: ['dist/**', 'out/**', 'node_modules/**', 'lab/cache/**', '**/*.js', '**/*.mjs'] },
  ...tseslint.configs.recommended,
  {
    rules: {
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', varsIgnorePattern: '^_' }],
    },
  },
  {
    // Layers go one way (core → adapters → engine → cli / editor layers) and only the editor layers import vscode.
    // The table is scripts/layers.mjs; test/unit/layers/ checks every import of src/ against it too.
    files: ['src/**/*.ts'],
    plugins: { layers: { rules: { 'one-way': oneWayRule } } },
    rules: { 'layers/one-way': 'error' },
  },
);
