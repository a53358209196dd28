import type { DatabaseConnection, DatabaseIntrospector, Dialect, Driver, Kysely, QueryResult, TableMetadata, TransactionSettings } from 'kysely';
import { kysely, sql } from '../kysely.ts';
import type { Database } from '../schema.ts';
import type { Sql } from './connection.ts';

/**
 * kysely over one connection of ours (`session`: postgres.js on a server, PGlite in tests): PostgreSQL's query
 * compiler and adapter, with a driver that sends each compiled statement through `Sql`. Not kysely's
 * `PostgresDialect` (it drives a `pg` pool) nor a dialect package of postgres.js or PGlite: one driver serves
 * both through the abstraction the engine already has, and the session's lost-connection guard sees its
 * transactions.
 */
export function kyselyOn(session: Sql): Kysely<Database> {
  const dialect: Dialect = {
    createAdapter: () => new kysely.PostgresAdapter(),
    createDriver: () => new SessionDriver(session),
    createIntrospector: (db) => new CurrentSchemaIntrospector(db),
    createQueryCompiler: () => new kysely.PostgresQueryCompiler(),
  };
  return new kysely.Kysely<Database>({ dialect });
}

/** The session is one connection: kysely gets it for one piece of work at a time, the next waiting for its release. */
class SessionDriver implements Driver {
  private readonly connection: DatabaseConnection;
  private released: Promise<void> = Promise.resolve();
  private release = () => {};

  constructor(private readonly session: Sql) {
    this.connection = {
      executeQuery: async <R>(query: { sql: string; parameters: readonly unknown[] }): Promise<QueryResult<R>> => ({ rows: (await session.sql(query.sql, query.parameters)) as R[] }),
      streamQuery: () => {
        throw new Error('streaming is not supported on the session');
      },
    };
  }

  async init(): Promise<void> {}

  async acquireConnection(): Promise<DatabaseConnection> {
    const previous = this.released;
    this.released = new Promise((resolve) => (this.release = resolve));
    await previous;
    return this.connection;
  }

  async releaseConnection(): Promise<void> {
    this.release();
  }

  // Upper case: the session's guard (`connection.ts`) recognises BEGIN, COMMIT and ROLLBACK as written so.
  async beginTransaction(_connection: DatabaseConnection, settings: TransactionSettings): Promise<void> {
    const modes = [settings.isolationLevel && `ISOLATION LEVEL ${settings.isolationLevel.toUpperCase()}`, settings.accessMode?.toUpperCase()];
    await this.session.sql(['BEGIN', ...modes.filter(Boolean)].join(' '));
  }

  async commitTransaction(): Promise<void> {
    await this.session.sql('COMMIT');
  }

  async rollbackTransaction(): Promise<void> {
    await this.session.sql('ROLLBACK');
  }

  async destroy(): Promise<void> {}
}

/**
 * The tables of the current schema only, which unqualified names reach. kysely's `PostgresIntrospector` lists every
 * schema's: a `kysely_migration` table of another application's schema in the same database would be taken for ours.
 */
class CurrentSchemaIntrospector implements DatabaseIntrospector {
  constructor(private readonly db: Kysely<any>) {}

  getSchemas() {
    return new kysely.PostgresIntrospector(this.db).getSchemas();
  }

  async getTables(options = { withInternalKyselyTables: false }): Promise<TableMetadata[]> {
    const { rows } = await sql<{ table: string; column: string; type: string; not_null: boolean; has_default: boolean; is_view: boolean }>`
      SELECT c.relname AS table, a.attname AS column, format_type(a.atttypid, a.atttypmod) AS type,
             a.attnotnull AS not_null, a.atthasdef AS has_default, c.relkind = 'v' AS is_view
      FROM pg_class c JOIN pg_attribute a ON a.attrelid = c.oid AND a.attnum > 0 AND NOT a.attisdropped
      WHERE c.relnamespace = current_schema()::regnamespace AND c.relkind IN ('r', 'p', 'v')
      ORDER BY c.relname, a.attnum`.execute(this.db);
    const tables = new Map<string, TableMetadata>();
    for (const row of rows) {
      if (!options.withInternalKyselyTables && (row.table === kysely.DEFAULT_MIGRATION_TABLE || row.table === kysely.DEFAULT_MIGRATION_LOCK_TABLE)) continue;
      const table = tables.get(row.table) ?? { name: row.table, isView: row.is_view, columns: [] };
      tables.set(row.table, table);
      table.columns.push({ name: row.column, dataType: row.type, isNullable: !row.not_null, hasDefaultValue: row.has_default, isAutoIncrementing: false });
    }
    return [...tables.values()];
  }

  async getMetadata(options?: { withInternalKyselyTables: boolean }) {
    return { tables: await this.getTables(options) };
  }
}
