import fs from 'node:fs';
import Database, { type Statement } from 'better-sqlite3';
import type postgres from 'postgres';

/** Rows a transaction, as the write scenarios send them: one batch of 100 records, one commit. */
const ROWS_PER_TRANSACTION = 100;

type Row = Record<string, unknown>;

/** A row written bare: inserted into `table`, or, with `key`, updated there by those columns. */
export interface RowWrite {
  table: string;
  row: Row;
  key?: string[];
}

/** One record as a bare client writes it: its event row, and the read-model rows it left (the floor only). */
export interface BareRecord {
  event: Row;
  readModel: RowWrite[];
}

/** The tables to make (copies of the measured database's own), rows present before the clock starts, and the records to write. */
export interface BareWrites {
  tables: string[];
  prefill: RowWrite[];
  records: BareRecord[];
}

/** On SQLite the tables are made by the measured database's own DDL. */
export interface SqliteBareWrites extends BareWrites {
  ddl: string[];
}

/** The statement of `write` for better-sqlite3, its parameters named after the row's columns. */
function statementOf({ table, row, key }: RowWrite): string {
  const named = (c: string) => `${c} = @${c}`;
  if (key) return `UPDATE ${table} SET ${Object.keys(row).filter((c) => !key.includes(c)).map(named).join(', ')} WHERE ${key.map(named).join(' AND ')}`;
  return `INSERT INTO ${table} (${Object.keys(row).join(', ')}) VALUES (${Object.keys(row).map((c) => `@${c}`).join(', ')})`;
}

/** Every write of one transaction: the records' event rows, and with `withReadModel` their read-model rows. */
const writesOfBatch = (batch: BareRecord[], withReadModel: boolean): RowWrite[] =>
  batch.flatMap((record) => [{ table: 'events', row: record.event }, ...(withReadModel ? record.readModel : [])]);

/**
 * Bare better-sqlite3 writing `records` into a fresh `file`, WAL and synchronous=FULL like tradebook's (see
 * `writeBare`). Returns records/s.
 */
export function bareWritesPerSecond(writes: SqliteBareWrites, file: string, withReadModel: boolean): number {
  for (const suffix of ['', '-wal', '-shm']) fs.rmSync(file + suffix, { force: true });
  const db = new Database(file);
  try {
    db.pragma('journal_mode = WAL');
    db.pragma('synchronous = FULL');
    return writes.records.length / writeBare(db, writes, withReadModel);
  } finally {
    db.close();
    for (const suffix of ['', '-wal', '-shm']) fs.rmSync(file + suffix, { force: true });
  }
}

/**
 * Creates the tables of `writes` (made by the measured database's own DDL) and writes its records in transactions
 * of 100, one prepared statement a row: each record's event row (the write ceiling), and with `withReadModel` its
 * read-model rows too (the floor: the bytes a write must store, with no tradebook code), after the prefill.
 * Returns the seconds the records took.
 */
export function writeBare(db: Database.Database, writes: SqliteBareWrites, withReadModel: boolean): number {
  for (const statement of writes.ddl) db.exec(statement);
  const prepared = new Map<string, Statement>();
  const run = (write: RowWrite) => {
    const sql = statementOf(write);
    if (!prepared.has(sql)) prepared.set(sql, db.prepare(sql));
    prepared.get(sql)!.run(write.row);
  };
  if (withReadModel) db.transaction(() => writes.prefill.forEach(run))();
  const writeBatch = db.transaction((batch: BareRecord[]) => writesOfBatch(batch, withReadModel).forEach(run));
  const started = performance.now();
  for (let i = 0; i < writes.records.length; i += ROWS_PER_TRANSACTION) writeBatch(writes.records.slice(i, i + ROWS_PER_TRANSACTION));
  return (performance.now() - started) / 1000;
}

/** Parameters a PostgreSQL statement may take. */
const MAX_PARAMETERS = 65_535;

/**
 * The same on PostgreSQL: in a schema of its own (`schema`, dropped before and after) of the measured database,
 * tables made `LIKE` its own (columns, keys, indexes), the records written in transactions of 100 at the server's
 * settings. There a statement costs a round trip and the server's planning, not a row, so a bare client writes a
 * transaction's rows of one table and shape with one multi-row statement (`INSERT … VALUES (…), (…)`, `UPDATE …
 * FROM (VALUES …)`), as tradebook does. Returns records/s.
 */
export async function bareWritesPerSecondOnPostgres(sql: postgres.Sql<any>, writes: BareWrites, schema: string, withReadModel: boolean): Promise<number> {
  const types = new Map<string, string>();
  for (const { table, column, type } of await sql<{ table: string; column: string; type: string }[]>`
    SELECT c.relname AS table, a.attname AS column, format_type(a.atttypid, a.atttypmod) AS type
    FROM pg_attribute a JOIN pg_class c ON c.oid = a.attrelid
    WHERE c.relnamespace = 'public'::regnamespace AND c.relname IN ${sql(writes.tables)} AND a.attnum > 0 AND NOT a.attisdropped`) {
    types.set(`${table}.${column}`, type);
  }
  /** The rows of `all`, a statement for each table and shape (and each 65,535 parameters). */
  const statements = (all: RowWrite[]) => {
    const shapes = new Map<string, RowWrite[]>();
    for (const w of all) {
      const shape = `${w.table} ${Object.keys(w.row).join(',')} ${w.key?.join(',') ?? ''}`;
      if (!shapes.has(shape)) shapes.set(shape, []);
      shapes.get(shape)!.push(w);
    }
    return [...shapes.values()].flatMap((rows) => {
      const { table, row, key } = rows[0];
      const columns = Object.keys(row);
      const perStatement = Math.floor(MAX_PARAMETERS / columns.length);
      return Array.from({ length: Math.ceil(rows.length / perStatement) }, (_, n) => {
        const chunk = rows.slice(n * perStatement, (n + 1) * perStatement);
        // VALUES of an UPDATE's FROM have no target column to take their types from: the first row says them.
        const values = chunk.map((_, r) => `(${columns.map((c, i) => `$${r * columns.length + i + 1}${key && r === 0 ? `::${types.get(`${table}.${c}`)}` : ''}`).join(', ')})`).join(', ');
        const params = chunk.flatMap((w) => columns.map((c) => w.row[c])) as postgres.ParameterOrJSON<never>[];
        if (!key) return { text: `INSERT INTO ${schema}.${table} (${columns.join(', ')}) VALUES ${values}`, params };
        const set = columns.filter((c) => !key.includes(c)).map((c) => `${c} = v.${c}`);
        return { text: `UPDATE ${schema}.${table} AS t SET ${set.join(', ')} FROM (VALUES ${values}) AS v (${columns.join(', ')}) WHERE ${key.map((c) => `t.${c} = v.${c}`).join(' AND ')}`, params };
      });
    });
  };
  const run = (tx: postgres.TransactionSql<any>, all: RowWrite[]) => Promise.all(statements(all).map(({ text, params }) => tx.unsafe(text, params)));
  await sql.unsafe(`DROP SCHEMA IF EXISTS ${schema} CASCADE`);
  try {
    await sql.begin(async (tx) => {
      await tx.unsafe(`CREATE SCHEMA ${schema}`);
      for (const table of writes.tables) await tx.unsafe(`CREATE TABLE ${schema}.${table} (LIKE public.${table} INCLUDING ALL)`);
      if (withReadModel) await run(tx, writes.prefill);
    });
    const started = performance.now();
    for (let i = 0; i < writes.records.length; i += ROWS_PER_TRANSACTION) {
      const batch = writes.records.slice(i, i + ROWS_PER_TRANSACTION);
      await sql.begin((tx) => run(tx, writesOfBatch(batch, withReadModel)));
    }
    return writes.records.length / ((performance.now() - started) / 1000);
  } finally {
    await sql.unsafe(`DROP SCHEMA IF EXISTS ${schema} CASCADE`);
  }
}
