import { expect, test } from 'vitest';
import { openPostgres, type Sql } from '../../../src/storage/postgres/connection.ts';
import { migrate } from '../../../src/storage/postgres/migrate.ts';
import { Company } from '../../../src/company.ts';
import { PostgresEngine } from '../../../src/storage/postgres/engine.ts';
import { manualClock } from '../../helpers.ts';
import { OLD_CLOCK_START, POSTGRES_SCHEMA, expectServedAsBefore, insertsOf, oldRows } from '../e770409-schema.ts';
import { describeEngines } from './engines.ts';
import { releaseReadModels as readModels } from '../../../src/company.ts';

/** Every table's columns, every index, constraint and trigger of the current schema, but kysely's and the runner's bookkeeping. */
async function schemaOf(session: Sql): Promise<unknown[][]> {
  const own = `NOT IN ('kysely_migration', 'kysely_migration_lock', 'schema_migrations')`;
  return Promise.all([
    session.sql(`SELECT table_name, column_name, ordinal_position, data_type, collation_name, is_nullable, column_default
                 FROM information_schema.columns WHERE table_schema = current_schema() AND table_name ${own} ORDER BY 1, 3`),
    session.sql(`SELECT indexname, indexdef FROM pg_indexes WHERE schemaname = current_schema() AND tablename ${own} ORDER BY 1`),
    session.sql(`SELECT conrelid::regclass::text AS table, conname, pg_get_constraintdef(oid) AS definition FROM pg_constraint
                 WHERE connamespace = current_schema()::regnamespace AND conrelid::regclass::text ${own} ORDER BY 1, 2`),
    session.sql(`SELECT tgname, pg_get_triggerdef(oid) AS definition FROM pg_trigger WHERE NOT tgisinternal ORDER BY 1`),
    session.sql('SELECT * FROM chain_head'),
  ]);
}

/** kysely's records of the fixture's runner records: its foundation stands for the first three, at its time. */
const ADOPTED = [
  { name: '2026-11-22-01-foundation', timestamp: '2026-11-25T08:00:00.001Z' },
  { name: '2026-11-23-01-point-in-time', timestamp: '2026-11-25T08:00:00.001Z' },
  { name: '2026-11-23-02-access-token-hashes', timestamp: '2026-11-25T08:00:00.001Z' },
  { name: '2026-11-26-01-audit-sessions', timestamp: '2026-11-26T08:00:00.001Z' },
];

/** kysely's records hold the adopted ones as they were, then those of the migrations after the fixture's release. */
async function expectAdopted(session: Sql): Promise<void> {
  const records = await session.sql<{ name: string }>('SELECT name, timestamp FROM kysely_migration ORDER BY name');
  expect(records.slice(0, ADOPTED.length)).toEqual(ADOPTED);
  expect(records.slice(ADOPTED.length).map((row) => row.name)).toEqual(['2026-11-27-01-key-version', '2026-11-28-01-audit-session-indexes', '2026-11-28-02-webhooks']);
}

describeEngines('migrations', (database, real) => {
  test('a database the runner of the releases before migrated opens as it was: its records are adopted, no migration runs again, its schema is a new one’s, its rows serve as before', async () => {
    const { session } = database();
    await migrate(session);
    const fresh = await schemaOf(session);
    await session.sql('DROP SCHEMA public CASCADE');
    await session.sql('CREATE SCHEMA public');

    for (const statement of POSTGRES_SCHEMA) await session.sql(statement);
    const rows = oldRows();
    for (const [text, params] of insertsOf(rows, (n) => `$${n}`)) await session.sql(text, params);
    const [last] = rows.events as { seq: number; hash: string }[];
    await session.sql('UPDATE chain_head SET seq = $1, hash = $2', [last.seq, last.hash]);
    await migrate(session);
    await expectAdopted(session);
    expect((await schemaOf(session)).slice(0, 4)).toEqual(fresh.slice(0, 4));
    // Left as it was, for a server of the release before.
    expect(await session.sql('SELECT count(*)::int AS n FROM schema_migrations')).toEqual([{ n: 2 }]);

    const clock = manualClock(OLD_CLOCK_START);
    const company = await Company.over(await PostgresEngine.on(database(), readModels, { clock }), { clock });
    try {
      await expectServedAsBefore(company, (table) => session.sql(`SELECT * FROM ${table} ORDER BY 1`));
    } finally {
      await company.close();
    }
  });

  test('a database the runner left before the workbench’s sessions gets them and the key version, and only them', async () => {
    const { session } = database();
    // The fixture's last statement creates audit_sessions.
    for (const statement of POSTGRES_SCHEMA.slice(0, -1)) await session.sql(statement);
    await session.sql(`DELETE FROM schema_migrations WHERE name = '2026-11-26-01-audit-sessions'`);
    await migrate(session);
    expect((await session.sql<{ name: string }>('SELECT name FROM kysely_migration ORDER BY name')).map((row) => row.name)).toEqual([
      '2026-11-22-01-foundation',
      '2026-11-23-01-point-in-time',
      '2026-11-23-02-access-token-hashes',
      '2026-11-26-01-audit-sessions',
      '2026-11-27-01-key-version',
      '2026-11-28-01-audit-session-indexes',
      '2026-11-28-02-webhooks',
    ]);
    expect(await session.sql('SELECT * FROM audit_sessions')).toEqual([]);
    expect(await session.sql('SELECT * FROM key_version')).toEqual([]);
  });

  test.runIf(real)('servers migrating an empty database together each find it migrated once', async () => {
    const connections = Array.from({ length: 4 }, () => openPostgres(database().url!, { poolSize: 1 }));
    try {
      await Promise.all(connections.map((db) => migrate(db.session)));
    } finally {
      await Promise.all(connections.map((db) => db.close()));
    }
    expect(await database().session.sql('SELECT count(*)::int AS n FROM kysely_migration')).toEqual([{ n: 7 }]);
    expect(await database().session.sql('SELECT id, seq FROM chain_head')).toEqual([{ id: 1, seq: 0 }]);
  });

  test.runIf(real)('a server of the release before migrating meanwhile: the new one waits for its lock, then adopts what it recorded', async () => {
    const older = openPostgres(database().url!, { poolSize: 1 });
    const newer = openPostgres(database().url!, { poolSize: 1 });
    try {
      // The runner of the releases before: its transaction, under its advisory lock, left open for now.
      await older.session.sql('BEGIN');
      await older.session.sql('SELECT pg_advisory_xact_lock(7166707962)');
      for (const statement of POSTGRES_SCHEMA) await older.session.sql(statement);
      const migrating = migrate(newer.session);
      const waiting = () => database().session.sql('SELECT pid FROM pg_locks WHERE NOT granted');
      while ((await waiting()).length === 0) await new Promise((resolve) => setTimeout(resolve, 10));
      await older.session.sql('COMMIT');
      await migrating;
    } finally {
      await Promise.all([older.close(), newer.close()]);
    }
    await expectAdopted(database().session);
  });
});
