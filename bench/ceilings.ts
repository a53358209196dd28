import fs from 'node:fs';
import Database, { type Statement } from 'better-sqlite3';

/** Rows a transaction, as the write scenarios send them: one batch of 100 records, one commit. */
const ROWS_PER_TRANSACTION = 100;

type Row = Record<string, unknown>;

/** One record as bare SQLite writes it: its event row, and the statements writing the read-model rows it left (the floor only). */
export interface BareRecord {
  event: Row;
  readModel: { sql: string; row: Row }[];
}

/** The tables to create, rows present before the clock starts, and the records to write. */
export interface BareWrites {
  ddl: string[];
  prefill: { sql: string; row: Row }[];
  records: BareRecord[];
}

/**
 * Bare better-sqlite3 writing `records` into a fresh `file`, WAL and synchronous=FULL like tradebook's (see
 * `writeBare`). Returns records/s.
 */
export function bareWritesPerSecond(writes: BareWrites, file: string, withReadModel: boolean): number {
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
 * of 100: each record's event row (the write ceiling), and with `withReadModel` its read-model rows too (the floor:
 * the bytes a write must store, with no tradebook code), after the prefill. Returns the seconds the records took.
 */
export function writeBare(db: Database.Database, writes: BareWrites, withReadModel: boolean): number {
  for (const statement of writes.ddl) db.exec(statement);
  const prepared = new Map<string, Statement>();
  const run = ({ sql, row }: { sql: string; row: Row }) => {
    if (!prepared.has(sql)) prepared.set(sql, db.prepare(sql));
    prepared.get(sql)!.run(row);
  };
  if (withReadModel) db.transaction(() => writes.prefill.forEach(run))();
  const columns = Object.keys(writes.records[0].event);
  const insertEvent = `INSERT INTO events (${columns.join(', ')}) VALUES (${columns.map((c) => `@${c}`).join(', ')})`;
  const writeBatch = db.transaction((batch: BareRecord[]) => {
    for (const record of batch) {
      run({ sql: insertEvent, row: record.event });
      if (withReadModel) record.readModel.forEach(run);
    }
  });
  const started = performance.now();
  for (let i = 0; i < writes.records.length; i += ROWS_PER_TRANSACTION) writeBatch(writes.records.slice(i, i + ROWS_PER_TRANSACTION));
  return (performance.now() - started) / 1000;
}
