import path from 'node:path';
import { defineConfig } from 'vitest/config';
import { BaseSequencer, type TestSpecification } from 'vitest/node';

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
  'test/http/workbench-names.test.ts',
  'test/http/workbench-russian.test.ts',
  'test/http/access-trail.test.ts',
  'test/http/arbitrary-input.test.ts',
  'test/reliability/hostile-input.test.ts',
  'test/http/xml-text.test.ts',
  'test/http/document-search.test.ts',
  'test/http/history-pages.test.ts',
  'test/feed/changes.test.ts',
  'test/feed/webhooks.test.ts',
  'test/feed/hooks-page.test.ts',
];

/**
 * Made before any test: the bundles the tests' server and command-line processes run (test/bundles.ts), and the
 * migrated SQLite file test services copy (test/sqlite-template.ts).
 */
const globalSetup = ['test/bundles.ts', 'test/sqlite-template.ts'];

/**
 * The files that take longest (tens of seconds each on a loaded two-core machine: servers and command lines as
 * processes, tens of thousands of documents, a browser), longest first, as a whole run measured them with their
 * set-up (`beforeAll`: some import tens of thousands of lines before their first test). Where vitest has no
 * durations of its own yet, as in a fresh clone on CI, it starts the largest files first, and size says little of
 * time here; these start before any other, so that none is left running alone at the end of the run (or of a
 * project: the PostgreSQL pass starts once every file of the SQLite one has ended) while the other workers have
 * nothing to do.
 */
const slowest = [
  'test/reliability/postgres-servers.test.ts',
  'test/cli/postgres.test.ts',
  'test/http/workbench-browser.test.ts',
  'test/storage/postgres/copy.test.ts',
  'test/reliability/heavy-answers.test.ts',
  'test/reliability/statement-export.test.ts',
  'test/storage/sqlite/rebuild-process.test.ts',
  'test/cli/behaviour.test.ts',
  'test/http/document-search.test.ts',
  'test/reliability/hostile-input.test.ts',
  'test/reliability/import-beside-writers.test.ts',
  'test/projections/build-mode.test.ts',
  'test/feed/streams.test.ts',
  'test/bin/bundle.test.ts',
  'test/server.test.ts',
  'test/reliability/http-edge.test.ts',
  'test/feed/webhooks-postgres.test.ts',
  'test/http/documents.test.ts',
  'test/reliability/concurrency.test.ts',
  'test/storage/id-counts.test.ts',
  'test/tokens/key-cache.test.ts',
  'test/storage/sqlite/row-writer.test.ts',
];

class SlowestFirst extends BaseSequencer {
  override async sort(files: TestSpecification[]): Promise<TestSpecification[]> {
    const sorted = await super.sort(files);
    // Durations of a former run, where there are some, order the files better than this list.
    const ran = (file: TestSpecification) => this.ctx.cache.getFileTestResults(`${file.project.name}:${path.relative(this.ctx.config.root, file.moduleId)}`) !== undefined;
    const rank = (file: TestSpecification) => (ran(file) ? -1 : slowest.indexOf(path.relative(this.ctx.config.root, file.moduleId)));
    return [...sorted.filter((file) => rank(file) >= 0).sort((a, b) => rank(a) - rank(b)), ...sorted.filter((file) => rank(file) < 0)];
  }
}

const postgresPass = process.env.TRADEBOOK_TEST_POSTGRES_URL
  ? { name: 'postgres', env: { TRADEBOOK_TEST_ENGINE: 'postgres' }, globalSetup: [...globalSetup, 'test/postgres-template.ts'] }
  : { name: 'pglite', env: { TRADEBOOK_TEST_ENGINE: 'pglite' }, globalSetup };

export default defineConfig({
  test: {
    pool: 'forks',
    // Vitest's default on two cores is one worker; the suite mostly waits (on processes, servers, fsync, the
    // database), so three keep both cores busy. Three share two cores: a test's time limit allows for that.
    maxWorkers: 3,
    // A worker runs file after file in one process, its modules loaded once (a third of the suite's CPU went to
    // starting a process and loading the app for each file). What a file leaves to undo is undone by the hooks
    // test/setup.ts registers for every file. Workers are kept for the whole run (`minWorkers`): with fewer, vitest
    // 3.2.4 ended workers with isolation off in the middle of a file ("Terminating worker thread").
    isolate: false,
    minWorkers: 3,
    sequence: { sequencer: SlowestFirst },
    setupFiles: ['test/setup.ts'],
    testTimeout: 60_000,
    hookTimeout: 60_000,
    projects: [
      { extends: true, test: { name: 'sqlite', include: ['test/**/*.test.ts'], globalSetup } },
      { extends: true, test: { ...postgresPass, include: onPostgres } },
    ],
  },
});
