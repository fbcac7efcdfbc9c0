// @ts-check
import js from '@eslint/js';
import tseslint from 'typescript-eslint';

/** Modules that may not be imported from pure code: adapters, I/O and process state. */
const ADAPTER_IMPORTS = [
  'fs',
  'node:fs',
  'fs/promises',
  'node:fs/promises',
  'child_process',
  'node:child_process',
  'http',
  'node:http',
  'https',
  'node:https',
  'net',
  'node:net',
  'os',
  'node:os',
  'process',
  'node:process',
  '@kubernetes/client-node',
  'simple-git',
  'octokit',
  'pg',
  'better-sqlite3',
  'pino',
  'prom-client',
];
const ADAPTER_PATTERNS = [
  '**/cluster/client*',
  '**/cluster/kube*',
  '**/store/*',
  '**/gitops/*',
  '**/sim/*',
  '**/cli/*',
  '**/controller/*',
  '**/metrics/prometheus*',
  '**/metrics/dcgm-scrape*',
  '**/benchmark/runner*',
];

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
    files: [
      'src/spec/rules/**/*.ts',
      'src/pools/**/*.ts',
      'src/placement/**/*.ts',
      'src/scaling/**/*.ts',
      'src/manifests/**/*.ts',
    ],
    ignores: ['**/*.test.ts'],
    rules: {
      'no-restricted-imports': ['error', { paths: ADAPTER_IMPORTS, patterns: ADAPTER_PATTERNS }],
      'no-restricted-globals': [
        'error',
        { name: 'process', message: 'Pure modules take settings as arguments.' },
      ],
      'no-restricted-syntax': [
        'error',
        {
          selector: "NewExpression[callee.name='Date'][arguments.length=0]",
          message: 'Pure modules take `now` as an argument.',
        },
        {
          selector: "MemberExpression[object.name='Date'][property.name='now']",
          message: 'Pure modules take `now` as an argument.',
        },
        {
          selector: "MemberExpression[object.name='performance'][property.name='now']",
          message: 'Pure modules take `now` as an argument.',
        },
        {
          selector: "MemberExpression[object.name='Math'][property.name='random']",
          message: 'Pure modules are deterministic.',
        },
      ],
    },
  },
);
