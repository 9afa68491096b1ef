import js from '@eslint/js';
import tseslint from 'typescript-eslint';

export default tseslint.config(
  { ignores: ['node_modules/', 'data/', 'var/', 'src/db/migrations/'] },
  js.configs.recommended,
  ...tseslint.configs.recommended,
  {
    rules: {
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', varsIgnorePattern: '^_' }],
      '@typescript-eslint/consistent-type-imports': 'error',
      // process.env is read only in src/config/ (DESIGN.md §6).
      'no-restricted-properties': ['error', { object: 'process', property: 'env', message: 'Read configuration through src/config/.' }],
    },
  },
  {
    files: ['src/config/**', 'test/**', '*.config.ts', '*.config.js'],
    rules: { 'no-restricted-properties': 'off' },
  },
);
