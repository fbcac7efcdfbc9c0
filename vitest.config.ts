import { configDefaults, defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    // Tests that start `node bin/gpuops.js` run dist/: rebuilt first when src/ is newer.
    // and every test runs with a private TMPDIR that must be empty at the end (no temp folder left).
    globalSetup: ['test/support/build-dist.ts', 'test/support/temp-check.ts'],
    testTimeout: 30_000,
    hookTimeout: 60_000,
    // Two cores on CI: integration tests start servers (PostgreSQL, Prometheus, the simulated cluster).
    pool: 'forks',
    maxWorkers: 2,
    projects: [
      {
        extends: true,
        test: {
          name: 'unit',
          // The root's global setup runs once for every project.
          globalSetup: [],
          include: ['src/**/*.test.ts', 'test/**/*.test.ts'],
          exclude: [...configDefaults.exclude, 'test/real-cluster/**'],
        },
      },
      {
        // The real control plane (scripts/k8s/build.sh builds it): one file at a time, each starts
        // its own cluster; `npm run test:real` runs it alone.
        extends: true,
        test: {
          name: 'real-cluster',
          globalSetup: [],
          include: ['test/real-cluster/**/*.test.ts'],
          fileParallelism: false,
          testTimeout: 300_000,
          hookTimeout: 300_000,
        },
      },
    ],
  },
});
