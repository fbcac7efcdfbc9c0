import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['src/**/*.test.ts', 'test/**/*.test.ts'],
    // Tests that start `node bin/gpuops.js` run dist/: rebuilt first when src/ is newer.
    // and every test runs with a private TMPDIR that must be empty at the end (no temp folder left).
    globalSetup: ['test/support/build-dist.ts', 'test/support/temp-check.ts'],
    testTimeout: 30_000,
    hookTimeout: 60_000,
    // Two cores on CI: integration tests start servers (PostgreSQL, Prometheus, the simulated cluster).
    pool: 'forks',
    maxWorkers: 2,
  },
});
