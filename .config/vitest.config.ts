import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['test/unit/**/*.test.ts', 'test/integration/**/*.test.ts', 'test/e2e/**/*.test.ts'],
    // End-to-end tests start real processes on PGlite (a few seconds each on two cores).
    testTimeout: 120_000,
    hookTimeout: 60_000,
    // Two cores: database-backed files each start PGlite and may create a PostgreSQL database.
    maxWorkers: 2,
  },
});
