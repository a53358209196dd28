import { defineConfig } from 'vitest/config';

/**
 * The behavioural suites that run on every engine (they open their service with `engineService`): on SQLite with
 * everything else, and again on PostgreSQL: on PGlite always, and on the server TRADEBOOK_TEST_POSTGRES_URL names
 * when it is set.
 */
const everyEngine = [
  'test/http/audit.test.ts',
  'test/http/categories-brands.test.ts',
  'test/http/contractors.test.ts',
  'test/http/documents.test.ts',
  'test/http/openapi.test.ts',
  'test/http/operability.test.ts',
  'test/http/product-pages.test.ts',
  'test/http/products.test.ts',
  'test/http/protocol.test.ts',
  'test/http/workbench.test.ts',
  'test/http/workbench-security.test.ts',
  'test/http/access-trail.test.ts',
  'test/reliability/hostile-input.test.ts',
  'test/reliability/json-body.test.ts',
];

const onPostgres = (name: string, engine: string) => ({
  extends: true as const,
  test: { name, include: everyEngine, env: { TRADEBOOK_TEST_ENGINE: engine } },
});

export default defineConfig({
  test: {
    pool: 'forks',
    testTimeout: 30_000,
    hookTimeout: 60_000,
    projects: [
      { extends: true, test: { name: 'sqlite', include: ['test/**/*.test.ts'] } },
      onPostgres('pglite', 'pglite'),
      ...(process.env.TRADEBOOK_TEST_POSTGRES_URL ? [onPostgres('postgres', 'postgres')] : []),
    ],
  },
});
