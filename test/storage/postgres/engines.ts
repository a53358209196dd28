import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { PGlite, types } from '@electric-sql/pglite';
import { afterAll, afterEach, beforeAll, beforeEach, describe } from 'vitest';
import { type PostgresDatabase, type Sql, openPostgres } from '../../../src/storage/postgres/connection.ts';

/**
 * The PostgreSQL engine's tests run on PGlite (PostgreSQL in WebAssembly, in-process) always, and on the server
 * TRADEBOOK_TEST_POSTGRES_URL names when it is set. PGlite is one connection: its `session` and `pool` are the
 * same. On a server a suite gets a database of its own, emptied before each test, and its `url` to connect again.
 */
export const REAL_SERVER_URL = process.env.TRADEBOOK_TEST_POSTGRES_URL;

export interface TestDatabase extends PostgresDatabase {
  /** Set on a real server only: the test's database, for further connections of its own. */
  readonly url?: string;
}

export function pgliteDatabase(pg: PGlite): TestDatabase {
  // The instance outlives this handle (it is the file's): a closed handle refuses statements as a closed pool does.
  let closed = false;
  const open = () => {
    if (closed) throw Object.assign(new Error('write CONNECTION_ENDED'), { code: 'CONNECTION_ENDED' });
  };
  const sql: Sql = {
    sql: async <Row extends object>(text: string, params: readonly unknown[] = []) => (open(), (await pg.query<Row>(text, params as unknown[])).rows),
    values: async <Row extends unknown[]>(text: string, params: readonly unknown[] = []) =>
      (open(), (await pg.query<Row>(text, params as unknown[], { rowMode: 'array' })).rows),
    // PGlite parses every value; the text a server would send is its string form.
    buffers: async (text: string, params: readonly unknown[] = []) =>
      (open(), (await pg.query<unknown[]>(text, params as unknown[], { rowMode: 'array' })).rows.map((row) => row.map((value) => (value === null ? null : Buffer.from(String(value)))))),
    run: async (text: string, params: readonly unknown[] = []) => void (open(), await pg.query(text, params as unknown[])),
  };
  return {
    session: sql,
    pool: sql,
    close: async () => {
      closed = true;
    },
  };
}

/** `url` with its database replaced by `database`. */
function withDatabase(url: string, database: string): string {
  const parsed = new URL(url);
  parsed.pathname = `/${database}`;
  return parsed.toString();
}

/**
 * A new database of a random name on the real server (through `admin`), a copy of `template` (PostgreSQL's own
 * empty one unless told): its URL, and how to drop it.
 */
export async function createDatabase(admin: PostgresDatabase, template?: string): Promise<{ url: string; drop(): Promise<void> }> {
  const name = `tradebook_test_${randomBytes(6).toString('hex')}`;
  await admin.session.sql(`CREATE DATABASE ${name}${template ? ` TEMPLATE ${template}` : ''}`);
  return {
    url: withDatabase(REAL_SERVER_URL!, name),
    // FORCE: connections a failed test left open do not keep the database.
    drop: async () => void (await admin.session.sql(`DROP DATABASE ${name} WITH (FORCE)`)),
  };
}

/**
 * For a suite on the real server: a new database for each test, dropped after it once the test's own clean-ups
 * (`afterward`, last first) have run; `admin` is a connection to the server, `url` the test's database.
 */
export function databaseEachTest() {
  let admin: PostgresDatabase;
  let database: { url: string; drop(): Promise<void> };
  const cleanups: (() => Promise<unknown>)[] = [];
  beforeAll(() => {
    admin = openPostgres(REAL_SERVER_URL!, { poolSize: 1 });
  });
  afterAll(() => admin.close());
  beforeEach(async () => {
    database = await createDatabase(admin);
  });
  afterEach(async () => {
    for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
    await database.drop();
  });
  return {
    admin: () => admin,
    url: () => database.url,
    /** Ends the server connections of the test's database whose application_name is `application`: how many were ended. */
    terminate: async (application: string) =>
      admin.session.sql<{ ended: boolean }>('SELECT pg_terminate_backend(pid) AS ended FROM pg_stat_activity WHERE application_name = $1 AND datname = $2', [
        application,
        new URL(database.url).pathname.slice(1),
      ]),
    afterward: (cleanup: () => Promise<unknown>) => void cleanups.push(cleanup),
  };
}

const PGLITE_VERSION: string = JSON.parse(fs.readFileSync(path.resolve(import.meta.dirname, '../../../node_modules/@electric-sql/pglite/package.json'), 'utf8')).version;
/** A PGlite cluster as `initdb` leaves it, kept once for every run (it depends on PGlite's version alone). */
const PGLITE_CLUSTER = path.resolve(import.meta.dirname, `../../../node_modules/.cache/tradebook-tests/pglite-${PGLITE_VERSION}.tar`);
const PGLITE_OPTIONS = { parsers: { [types.INT8]: Number } };

/**
 * A new PGlite instance on an empty cluster. `initdb` takes most of a fresh instance's start (seconds, more than
 * most test files take): it runs once, and its data directory is kept as a tar file that every later instance
 * starts from. The first worker to need it makes it under a lock (a directory: creating one is atomic); the others
 * wait for the file.
 */
export async function startPglite(): Promise<PGlite> {
  if (!fs.existsSync(PGLITE_CLUSTER)) await makePgliteCluster();
  return PGlite.create({ ...PGLITE_OPTIONS, loadDataDir: new Blob([fs.readFileSync(PGLITE_CLUSTER)]) });
}

async function makePgliteCluster(): Promise<void> {
  const lock = `${PGLITE_CLUSTER}.lock`;
  fs.mkdirSync(path.dirname(PGLITE_CLUSTER), { recursive: true });
  for (const deadline = Date.now() + 120_000; !fs.existsSync(PGLITE_CLUSTER); await new Promise((resolve) => setTimeout(resolve, 50))) {
    try {
      fs.mkdirSync(lock);
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
      // A worker that died holding the lock leaves it behind: after two minutes it is taken over.
      if (Date.now() > deadline) fs.rmSync(lock, { recursive: true, force: true });
      continue;
    }
    try {
      if (fs.existsSync(PGLITE_CLUSTER)) return;
      const pg = await PGlite.create(PGLITE_OPTIONS);
      const dump = Buffer.from(await (await pg.dumpDataDir('none')).arrayBuffer());
      await pg.close();
      const partial = `${PGLITE_CLUSTER}.${process.pid}.partial`;
      fs.writeFileSync(partial, dump);
      fs.renameSync(partial, PGLITE_CLUSTER);
    } finally {
      fs.rmSync(lock, { recursive: true, force: true });
    }
  }
}

/** Ends every other connection to `db`'s database (processes a test started may still hold some), so it can be emptied. */
async function endOtherConnections(db: PostgresDatabase): Promise<void> {
  await db.session.sql('SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE datname = current_database() AND pid <> pg_backend_pid()');
}

const EMPTY_SCHEMA = 'DROP SCHEMA public CASCADE; CREATE SCHEMA public';

/**
 * Empties a migrated database as a fresh one would be: every row of the log, keys, tokens and read tables goes (the
 * log's refusal of DELETE is a trigger, which replica mode does not fire), the sequences start again, the chain head
 * and the read models' checkpoints are set back to an empty log. The tables stay, so opening an engine on it
 * migrates and builds nothing: that is most of what a fresh database costs.
 */
export const EMPTY_ROWS = `DO $$ BEGIN
  SET LOCAL session_replication_role = replica;
  EXECUTE (SELECT string_agg('DELETE FROM ' || quote_ident(tablename), '; ') FROM pg_tables
    WHERE schemaname = 'public' AND tablename NOT IN ('kysely_migration', 'kysely_migration_lock', 'chain_head', 'projection_checkpoints'));
  EXECUTE coalesce((SELECT string_agg('ALTER SEQUENCE ' || quote_ident(sequencename) || ' RESTART', '; ') FROM pg_sequences
    WHERE schemaname = 'public'), 'SELECT 1');
  UPDATE chain_head SET seq = 0, hash = repeat('0', 64);
  UPDATE projection_checkpoints SET last_seq = 0;
END $$`;

/**
 * Runs `suite` on each engine; `database()` is the current test's empty database (no schema: the test migrates
 * it). One PGlite instance, or one database on the server, serves the suite, its schema dropped before each test:
 * much quicker than a database made for each. With `migrate`, a suite whose tests all begin by migrating has it
 * done once, before its first test, and each test gets the migrated database emptied of rows (EMPTY_ROWS) instead.
 */
export function describeEngines(
  title: string,
  suite: (database: () => TestDatabase, real: boolean) => void,
  options: { migrate?: (database: TestDatabase) => Promise<void> } = {},
): void {
  describe.each(REAL_SERVER_URL ? ['PGlite', 'PostgreSQL'] : ['PGlite'])(`${title} (%s)`, (engine) => {
    let current: TestDatabase | undefined;
    const database = () => current ?? raise('no database outside a test');
    if (engine === 'PGlite') {
      let pg: PGlite;
      beforeAll(async () => {
        pg = await startPglite();
        if (options.migrate) await options.migrate(pgliteDatabase(pg));
      });
      afterAll(() => pg.close());
      beforeEach(async () => {
        await pg.exec(`ROLLBACK; ${options.migrate ? EMPTY_ROWS : EMPTY_SCHEMA}`);
        current = pgliteDatabase(pg);
      });
    } else {
      let admin: PostgresDatabase;
      let suiteDatabase: { url: string; drop(): Promise<void> };
      let cleaner: PostgresDatabase;
      beforeAll(async () => {
        admin = openPostgres(REAL_SERVER_URL!, { poolSize: 1 });
        suiteDatabase = await createDatabase(admin);
        cleaner = openPostgres(suiteDatabase.url, { poolSize: 1 });
        if (options.migrate) await options.migrate({ ...openPostgres(suiteDatabase.url), url: suiteDatabase.url });
      });
      afterAll(async () => {
        await cleaner.close();
        await suiteDatabase.drop();
        await admin.close();
      });
      beforeEach(async () => {
        await endOtherConnections(cleaner);
        await cleaner.session.sql(options.migrate ? EMPTY_ROWS : EMPTY_SCHEMA);
        current = { ...openPostgres(suiteDatabase.url), url: suiteDatabase.url };
      });
      afterEach(async () => {
        await current?.close();
        current = undefined;
      });
    }
    suite(database, engine !== 'PGlite');
  });
}

function raise(message: string): never {
  throw new Error(message);
}
