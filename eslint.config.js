// @ts-check
import js from '@eslint/js';
import tseslint from 'typescript-eslint';

import { PURE_FILES, PURITY_RULES } from './eslint/purity.js';

export default tseslint.config(
  { ignores: ['node_modules/**', 'dist/**', 'coverage/**'] },
  js.configs.recommended,
  ...tseslint.configs.recommended,
  {
    rules: {
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', varsIgnorePattern: '^_' }],
    },
  },
  {
    // Pure modules: they take data and `now` and return data. No adapters, clock or environment.
    files: PURE_FILES,
    ignores: ['**/*.test.ts'],
    rules: PURITY_RULES,
  },
);
