import { inject } from 'vitest';
import { createApp } from '../src/http/app.ts';
import type { Clock } from '../src/lib/clock.ts';
import { type PostgresDatabase, openPostgres } from '../src/storage/postgres/connection.ts';
import { Company } from '../src/company.ts';
import { PostgresEngine } from '../src/storage/postgres/engine.ts';
import { afterThisFile, afterThisTest } from './cleanups.ts';
import { ApiClient, testService } from './helpers.ts';
import { EMPTY_ROWS, REAL_SERVER_URL, createDatabase, pgliteDatabase, startPglite } from './storage/postgres/engines.ts';
import type { Hono } from 'hono';
import type { AppEnv } from '../src/http/env.ts';
import { releaseReadModels as readModels } from '../src/company.ts';

/**
 * The engine the behavioural suites run on: `TRADEBOOK_TEST_ENGINE` (set by the vitest project): SQLite by default,
 * `pglite` (PostgreSQL in WebAssembly, in-process), or `postgres` (the server TRADEBOOK_TEST_POSTGRES_URL names).
 */
export const TEST_ENGINE = (process.env.TRADEBOOK_TEST_ENGINE ?? 'sqlite') as 'sqlite' | 'pglite' | 'postgres';

export interface EngineService {
  tb: Company;
  app: Hono<AppEnv>;
  api: ApiClient;
  key: string;
}

/**
 * One PGlite instance a test file, or one database on the real server: a copy of the run's migrated template
 * (test/postgres-template.ts) where there is one, migrated by the first test otherwise.
 */
let shared: ReturnType<typeof openShared> | undefined;

function sharedDatabase() {
  if (shared) return shared;
  const opening = (shared = openShared());
  afterThisFile(async () => {
    shared = undefined;
    await (await opening).end();
  });
  return opening;
}

async function openShared(): Promise<{ database: () => PostgresDatabase; empty(): Promise<void>; end(): Promise<void> }> {
  if (TEST_ENGINE === 'pglite') {
    const pg = await startPglite();
    let migrated = false;
    return {
      database: () => pgliteDatabase(pg),
      empty: async () => {
        await pg.exec('ROLLBACK');
        if (migrated) await pg.exec(EMPTY_ROWS);
        migrated = true;
      },
      end: () => pg.close(),
    };
  }
  if (!REAL_SERVER_URL) throw new Error('TRADEBOOK_TEST_ENGINE=postgres needs TRADEBOOK_TEST_POSTGRES_URL');
  const admin = openPostgres(REAL_SERVER_URL, { poolSize: 1 });
  const template = inject('postgresTemplate');
  const created = await createDatabase(admin, template);
  const cleaner = openPostgres(created.url, { poolSize: 1 });
  let migrated = template !== undefined;
  return {
    database: () => openPostgres(created.url),
    empty: async () => {
      if (migrated) await cleaner.session.sql(EMPTY_ROWS);
      migrated = true;
    },
    end: async () => {
      await cleaner.close();
      await created.drop();
      await admin.close();
    },
  };
}

/** A tradebook on an empty database of the suite's engine, with one API key and a client holding it; closed after the test. */
export async function engineService(options: { clock?: Clock } = {}): Promise<EngineService> {
  if (TEST_ENGINE === 'sqlite') return testService(options);
  const { database, empty } = await sharedDatabase();
  await empty();
  const tb = await Company.over(await PostgresEngine.on(database(), readModels, { clock: options.clock }), { clock: options.clock });
  afterThisTest(() => tb.close());
  const { key } = await tb.keys.create({ name: 'test' });
  const app = createApp(tb);
  return { tb, app, api: new ApiClient(app, key), key };
}
