import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['src/**/*.test.ts', 'test/**/*.test.ts'],
    testTimeout: 30_000,
    hookTimeout: 60_000,
    // Two cores on CI: integration tests start servers (PostgreSQL, Prometheus, the simulated cluster).
    pool: 'forks',
    maxWorkers: 2,
  },
});
