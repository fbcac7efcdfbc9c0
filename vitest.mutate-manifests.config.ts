import { defineConfig } from 'vitest/config';

/**
 * The tests StrykerJS runs for the manifests scope (`STRYKER_SCOPE=manifests npm run mutate`):
 * the manifests unit tests and the golden files, each rendering inside its own test.
 *
 * Why not the whole set of vitest.mutate.config.ts: several of those files render manifests while
 * they load (a snapshot built at the top of the file, Node files rendered in a `describe` body or
 * a `beforeAll`: test/controller/desired-state, test/plan/steps, test/plan/git-model,
 * test/pools/return-idle-plan, test/pools/assign, test/cluster/snapshot, test/cluster/node-manifests).
 * StrykerJS cannot tell which test covers code that runs outside a test, so each of the 450
 * manifests mutants they reach became "static" and ran all 929 tests (12 hours estimated on 2
 * cores). Here only the module-level constants are static, and they run these few files.
 * Other scopes keep vitest.mutate.config.ts; `npm test` runs everything.
 */
export default defineConfig({
  test: {
    include: [
      'test/manifests/**/*.test.ts',
      'src/manifests/**/*.test.ts',
      'test/golden/golden.test.ts',
      'test/scaling/set-replicas.test.ts',
    ],
    pool: 'forks',
    maxWorkers: 1,
  },
});
