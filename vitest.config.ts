import { defineConfig } from 'vitest/config';

/**
 * The behavioural suites that reach storage (they open their service with `engineService`): on SQLite with
 * everything else, and once more on PostgreSQL: on the server TRADEBOOK_TEST_POSTGRES_URL names when it is set, on
 * PGlite otherwise (PGlite stands in for a server; with one there, a second pass on PGlite would run the same
 * code again). Suites that never reach storage (the protocol, JSON bodies) run once; openapi.test.ts runs its
 * Redocly and compiler checks on SQLite only, and its answers-parse-with-their-schemas check on both.
 */
const onPostgres = [
  'test/http/audit.test.ts',
  'test/http/categories-brands.test.ts',
  'test/http/contractors.test.ts',
  'test/http/documents.test.ts',
  'test/http/openapi.test.ts',
  'test/http/operability.test.ts',
  'test/http/product-pages.test.ts',
  'test/http/products.test.ts',
  'test/http/workbench.test.ts',
  'test/http/workbench-security.test.ts',
  'test/http/access-trail.test.ts',
  'test/http/arbitrary-input.test.ts',
  'test/reliability/hostile-input.test.ts',
  'test/http/xml-text.test.ts',
  'test/http/document-search.test.ts',
  'test/http/history-pages.test.ts',
];

/** The bundles the tests' server and command-line processes run, built before any test (see test/bundles.ts). */
const bundles = 'test/bundles.ts';

const postgresPass = process.env.TRADEBOOK_TEST_POSTGRES_URL
  ? { name: 'postgres', env: { TRADEBOOK_TEST_ENGINE: 'postgres' }, globalSetup: [bundles, 'test/postgres-template.ts'] }
  : { name: 'pglite', env: { TRADEBOOK_TEST_ENGINE: 'pglite' }, globalSetup: [bundles] };

export default defineConfig({
  test: {
    pool: 'forks',
    // Vitest's default on two cores is one worker; the suite mostly waits (on processes, servers, fsync, the
    // database), so three keep both cores busy. Three share two cores: a test's time limit allows for that.
    maxWorkers: 3,
    testTimeout: 60_000,
    hookTimeout: 60_000,
    projects: [
      { extends: true, test: { name: 'sqlite', include: ['test/**/*.test.ts'], globalSetup: [bundles] } },
      { extends: true, test: { ...postgresPass, include: onPostgres } },
    ],
  },
});
