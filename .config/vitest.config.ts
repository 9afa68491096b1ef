import { defineConfig } from 'vitest/config';

// Three projects, each sized for the two cores of CI (bash .ci/run; `npm run test:slowest`
// prints where the time goes):
// - unit: pure code, no database.
// - integration: stages against PGlite and PostgreSQL, each file on its own database.
//   These two reuse one module graph per worker instead of importing everything again
//   for each file (65 s -> 42 s for integration alone); no test keeps state in a module.
// - e2e: real daemon processes and clients; a fresh module graph per file, because the
//   daemon helper registers its clean-up hook when it is imported.
export default defineConfig({
  test: {
    // End-to-end tests start real processes on PGlite (a few seconds each on two cores).
    testTimeout: 120_000,
    hookTimeout: 60_000,
    maxWorkers: 2,
    // Once per run, for every project: one migrated PGlite folder and PostgreSQL template
    // (test/helpers/db.ts copies them instead of migrating per test).
    globalSetup: ['test/helpers/global-setup.ts'],
    // In every test file, as at the process's entry points (src/main.ts, src/daemon.ts): the
    // error catalogue of every stage, registered before a stage under test throws one.
    setupFiles: ['src/catalogue.ts'],
    projects: [
      { extends: true, test: { name: 'unit', include: ['test/unit/**/*.test.ts'], isolate: false } },
      {
        extends: true,
        test: {
          name: 'integration',
          include: ['test/integration/**/*.test.ts'],
          isolate: false,
        },
      },
      { extends: true, test: { name: 'e2e', include: ['test/e2e/**/*.test.ts'] } },
    ],
  },
});
