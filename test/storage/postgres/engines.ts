import { randomBytes } from 'node:crypto';
import { PGlite, types } from '@electric-sql/pglite';
import { afterAll, afterEach, beforeAll, beforeEach, describe } from 'vitest';
import { type PostgresDatabase, type Sql, openPostgres } from '../../../src/storage/postgres/connection.ts';

/**
 * The PostgreSQL engine's tests run on PGlite (PostgreSQL in WebAssembly, in-process) always, and on the server
 * TRADEBOOK_TEST_POSTGRES_URL names when it is set. PGlite is one connection: its `session` and `pool` are the
 * same. On a server every test gets a database of its own, dropped after it, and its `url` to connect again.
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

/** A new database of a random name on the real server (through `admin`): its URL, and how to drop it. */
export async function createDatabase(admin: PostgresDatabase): Promise<{ url: string; drop(): Promise<void> }> {
  const name = `tradebook_test_${randomBytes(6).toString('hex')}`;
  await admin.session.sql(`CREATE DATABASE ${name}`);
  return {
    url: withDatabase(REAL_SERVER_URL!, name),
    // FORCE: connections a failed test left open do not keep the database.
    drop: async () => void (await admin.session.sql(`DROP DATABASE ${name} WITH (FORCE)`)),
  };
}

/** Runs `suite` on each engine; `database()` is the current test's empty database. */
export function describeEngines(title: string, suite: (database: () => TestDatabase, real: boolean) => void): void {
  describe.each(REAL_SERVER_URL ? ['PGlite', 'PostgreSQL'] : ['PGlite'])(`${title} (%s)`, (engine) => {
    let current: TestDatabase | undefined;
    const database = () => current ?? raise('no database outside a test');
    if (engine === 'PGlite') {
      // One instance a file (it takes seconds to start), emptied before every test.
      let pg: PGlite;
      beforeAll(async () => {
        pg = await PGlite.create({ parsers: { [types.INT8]: Number } });
      });
      afterAll(() => pg.close());
      beforeEach(async () => {
        await pg.exec('ROLLBACK; DROP SCHEMA public CASCADE; CREATE SCHEMA public');
        current = pgliteDatabase(pg);
      });
    } else {
      let admin: PostgresDatabase;
      let drop: () => Promise<void>;
      beforeAll(() => {
        admin = openPostgres(REAL_SERVER_URL!, { poolSize: 1 });
      });
      afterAll(() => admin.close());
      beforeEach(async () => {
        const created = await createDatabase(admin);
        drop = created.drop;
        current = { ...openPostgres(created.url), url: created.url };
      });
      afterEach(async () => {
        await current?.close();
        current = undefined;
        await drop();
      });
    }
    suite(database, engine !== 'PGlite');
  });
}

function raise(message: string): never {
  throw new Error(message);
}
