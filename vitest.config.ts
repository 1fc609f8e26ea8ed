import { defineConfig } from 'vitest/config';

/**
 * Two projects. `sqlite` runs every suite on the embedded SQLite store. `postgres` runs the
 * store, server and replica suites again on PostgreSQL (test/helpers/backend.ts gives each test
 * env a schema of its own); it exists when MPAY_TEST_DATABASE_URL names a server
 * (scripts/pg-test-server.sh starts a throw-away one). CI must run both, so there a missing URL
 * is an error rather than a silently smaller run.
 */
const pgUrl = process.env.MPAY_TEST_DATABASE_URL;
if (process.env.CI && !pgUrl) {
  throw new Error('CI runs the store and server suites on PostgreSQL too: set MPAY_TEST_DATABASE_URL (see scripts/pg-test-server.sh)');
}

export default defineConfig({
  test: {
    pool: 'forks',
    testTimeout: 30_000,
    hookTimeout: 60_000,
    projects: [
      {
        extends: true,
        test: {
          name: 'sqlite',
          include: ['test/**/*.test.ts'],
          exclude: ['test/e2e/**', '**/node_modules/**'],
          env: { MPAY_TEST_BACKEND: 'sqlite' },
        },
      },
      ...(pgUrl
        ? [
            {
              extends: true,
              test: {
                name: 'postgres',
                include: ['test/store/**/*.test.ts', 'test/server/**/*.test.ts', 'test/e2e/**/*.test.ts'],
                env: { MPAY_TEST_BACKEND: 'postgres' },
              },
            },
          ]
        : []),
    ],
  },
});
