// @ts-check
/**
 * Mutation testing of the pure core (`npm run mutate`, not part of CI): StrykerJS changes one
 * operator at a time in the files below and runs their unit tests; a mutant that survives is a
 * behaviour no test pins down. Target: a mutation score of at least 90 %.
 * @type {import('@stryker-mutator/api/core').PartialStrykerOptions}
 */
export default {
  testRunner: 'vitest',
  vitest: { configFile: 'vitest.mutate.config.ts', related: false },
  plugins: ['@stryker-mutator/vitest-runner'],
  checkers: [],
  mutate: [
    'src/spec/rules/**/*.ts',
    'src/pools/**/*.ts',
    'src/placement/**/*.ts',
    'src/scaling/**/*.ts',
    'src/manifests/**/*.ts',
    'src/gitops/branch-name.ts',
    'src/gitops/change-set.ts',
    'src/gitops/pr-body.ts',
    'src/gitops/git-errors.ts',
    '!**/*.test.ts',
    '!**/types.ts',
  ],
  coverageAnalysis: 'perTest',
  concurrency: 2,
  timeoutMS: 20000,
  thresholds: { high: 95, low: 90, break: 90 },
  reporters: ['clear-text', 'progress', 'html', 'json'],
  htmlReporter: { fileName: '.tmp/mutation/index.html' },
  jsonReporter: { fileName: '.tmp/mutation/report.json' },
  tempDirName: '.tmp/stryker',
  cleanTempDir: true,
};
