// @ts-check
import process from 'node:process';
/**
 * Mutation testing of the pure core (`npm run mutate`, not part of CI): StrykerJS changes one
 * operator at a time in the files below and runs their unit tests; a mutant that survives is a
 * behaviour no test pins down. Target: a mutation score of at least 90 %.
 *
 * `npm run mutate` covers every scope at once. On a shared machine run one scope at a time:
 * `STRYKER_SCOPE=pools npm run mutate` (scopes: the keys of SCOPES below). Each scope keeps its
 * own incremental file in `.tmp/mutation/` (not committed: a first run on a fresh clone tests
 * every mutant), so a later run on the same machine re-tests only the mutants whose code or
 * covering tests changed; its reports go to `.tmp/mutation/<scope>/`.
 */

/** The pure core, by scope (globs of source files to mutate). */
const SCOPES = {
  rules: ['src/definitions/rules/**/*.ts'],
  pools: ['src/pools/**/*.ts'],
  placement: ['src/placement/**/*.ts'],
  scaling: ['src/scaling/**/*.ts'],
  manifests: ['src/manifests/**/*.ts'],
  gitops: [
    'src/change-sets/branch-name.ts',
    'src/change-sets/change-set.ts',
    'src/working-copy/git-errors.ts',
    'src/git-hosts/ensure-pull-request.ts',
  ],
  'pr-body': ['src/change-sets/pr-body.ts'],
  /** The pass's pure step functions (`planDesiredState`'s parts). */
  plan: ['src/plan/**/*.ts'],
};

const scope = process.env.STRYKER_SCOPE ?? 'all';
if (scope !== 'all' && !(scope in SCOPES)) {
  throw new Error(`STRYKER_SCOPE=${scope}: expected one of ${Object.keys(SCOPES).join(', ')}, all`);
}
const files =
  scope === 'all' ? Object.values(SCOPES).flat() : SCOPES[/** @type {keyof typeof SCOPES} */ (scope)];

/** @type {import('@stryker-mutator/api/core').PartialStrykerOptions} */
export default {
  testRunner: 'vitest',
  // The manifests scope runs its own tests only (vitest.mutate-manifests.config.ts says why).
  vitest: {
    configFile: scope === 'manifests' ? 'vitest.mutate-manifests.config.ts' : 'vitest.mutate.config.ts',
    related: false,
  },
  plugins: ['@stryker-mutator/vitest-runner'],
  checkers: [],
  mutate: [...files, '!**/*.test.ts', '!**/types.ts'],
  coverageAnalysis: 'perTest',
  // Static mutants (module-level constants: regexes, tables, label names) are covered by no test
  // in particular, so Stryker would run the whole set for each; they are left out of the score
  // (reported as Ignored); the figures in docs/performance.md were measured so.
  // Set-up that tests run at load time or in a file-level beforeAll counts as static too: compute
  // it in beforeEach or inside the test, or its mutants are ignored instead of tested.
  ignoreStatic: true,
  concurrency: 2,
  timeoutMS: 20000,
  incremental: true,
  incrementalFile: `.tmp/mutation/stryker-incremental-${scope}.json`,
  thresholds: { high: 95, low: 90, break: 90 },
  reporters: ['clear-text', 'progress', 'html', 'json'],
  htmlReporter: { fileName: `.tmp/mutation/${scope}/index.html` },
  jsonReporter: { fileName: `.tmp/mutation/${scope}/report.json` },
  // Sandboxes copy the worktree: leave out other scopes' sandboxes and the reports.
  ignorePatterns: ['/.tmp', '/coverage'],
  tempDirName: `.tmp/stryker-${scope}`,
  cleanTempDir: true,
};
