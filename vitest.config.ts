import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['src/**/*.test.ts', 'test/**/*.test.ts'],
    // Tests that start `node bin/gpuops.js` run dist/: rebuilt first when src/ is newer.
    globalSetup: ['test/support/build-dist.ts'],
    testTimeout: 30_000,
    hookTimeout: 60_000,
    // Two cores on CI: integration tests start servers (PostgreSQL, Prometheus, the simulated cluster).
    pool: 'forks',
    maxWorkers: 2,
  },
});
