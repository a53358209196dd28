import postgres from 'postgres';

/**
 * All the PostgreSQL engine asks of a connection: a statement with parameters, answered with its rows. On a
 * `session` (one connection, never shared) BEGIN, SAVEPOINT and COMMIT are plain statements, so the writer's
 * transaction and savepoints are its own; the same shape is served by postgres.js here and by PGlite in tests.
 */
export interface Sql {
  sql<Row extends object = Record<string, unknown>>(text: string, params?: readonly unknown[]): Promise<Row[]>;
  /** The rows as arrays of their columns' values; the statement is prepared once a connection (read models repeat theirs). */
  values<Row extends unknown[] = unknown[]>(text: string, params?: readonly unknown[]): Promise<Row[]>;
}

export interface PostgresDatabase {
  /** One connection for the writer alone: its transactions are sent as statements on it. */
  readonly session: Sql;
  /** Pooled connections for reads: they see committed work only, never the writer's open transaction. */
  readonly pool: Sql;
  close(): Promise<void>;
}

const INT8 = 20;

/** Connects to the database a `postgres://` URL names. Connections open on first use. */
export function openPostgres(url: string, poolSize = 4): PostgresDatabase {
  const options = {
    // Notices (a ROLLBACK with no transaction, IF NOT EXISTS) are not problems.
    onnotice: () => {},
    // Ids, money and positions are bigint; tradebook keeps them as JS numbers, as SQLite hands them over.
    types: { int8: { to: INT8, from: [INT8], serialize: String, parse: Number } },
  };
  // A pool of one connection: postgres.js lets BEGIN be sent as a statement only there.
  const session = postgres(url, { ...options, max: 1 });
  const pool = postgres(url, { ...options, max: poolSize });
  const over = (client: typeof session): Sql => ({
    sql: <Row extends object>(text: string, params: readonly unknown[] = []) => client.unsafe(text, params as never[]) as unknown as Promise<Row[]>,
    values: <Row extends unknown[]>(text: string, params: readonly unknown[] = []) =>
      client.unsafe(text, params as never[], { prepare: true }).values() as unknown as Promise<Row[]>,
  });
  return {
    session: over(session),
    pool: over(pool),
    close: async () => {
      await Promise.all([session.end(), pool.end()]);
    },
  };
}
