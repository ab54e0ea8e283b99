import tseslint from 'typescript-eslint';

export default tseslint.config(
  { ignores: ['dist/**', 'out/**', 'node_modules/**', 'lab/cache/**', '**/*.js', '**/*.mjs'] },
  ...tseslint.configs.recommended,
  {
    rules: {
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', varsIgnorePattern: '^_' }],
    },
  },
  {
    // The core is shared with the command-line tool and unit-tested in plain Node: no editor imports.
    files: ['src/core/**/*.ts'],
    rules: {
      'no-restricted-imports': ['error', {
        paths: [{ name: 'vscode', message: 'src/core must not depend on the editor; put editor code in src/views, src/commands or src/editor.' }],
        patterns: [{ group: ['**/views/**', '**/commands/**', '**/editor/**', '**/webviews/**', '**/extension'], message: 'src/core must not import editor layers.' }],
      }],
    },
  },
);
