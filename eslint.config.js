// Typed lint: the rules that catch real bugs in async, database-heavy code, plus the layer rules.
import js from '@eslint/js';
import tseslint from 'typescript-eslint';
import { layerRules } from './eslint.layers.js';

export default tseslint.config(
  {
    ignores: [
      'node_modules/**',
      'dist/**',
      '.data/**',
      'data/**',
      'test/fixtures/**',
      'bench/.work/**',
      'scratch/**',
    ],
  },
  js.configs.recommended,
  ...tseslint.configs.recommended,
  {
    languageOptions: { parserOptions: { projectService: true, tsconfigRootDir: import.meta.dirname } },
    rules: {
      '@typescript-eslint/no-floating-promises': 'error',
      '@typescript-eslint/switch-exhaustiveness-check': 'error',
      '@typescript-eslint/no-misused-promises': 'error',
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', varsIgnorePattern: '^_' }],
    },
  },
  ...layerRules,
  {
    files: ['**/*.js'],
    extends: [tseslint.configs.disableTypeChecked],
    // tsc checks bin/ and scripts/ (checkJs), names included, as typescript-eslint advises.
    rules: { 'no-undef': 'off' },
  },
);
