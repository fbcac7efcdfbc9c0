// @ts-check
import js from '@eslint/js';
import tseslint from 'typescript-eslint';

import { PURE_FILES, PURITY_RULES } from './eslint/purity.js';

export default tseslint.config(
  { ignores: ['node_modules/**', 'dist/**', 'coverage/**', '.tmp/**'] },
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
  {
    // The pass and the controller receive their adapters and settings; only cli/ composes them
    // (DESIGN.md). After the purity block: its typescript-eslint rule stays, and this core rule adds
    // the layer ban (type-only imports too) to every file of the pass, the plan and the controller,
    // pure or not.
    files: ['src/controller/**/*.ts', 'src/pass/**/*.ts', 'src/plan/**/*.ts'],
    rules: {
      'no-restricted-imports': [
        'error',
        {
          patterns: [
            {
              group: ['**/cli/**', '**/cli'],
              message:
                'controller/, pass/ and plan/ never import cli/: settings live in config/, adapters are passed in.',
            },
          ],
        },
      ],
    },
  },
);
