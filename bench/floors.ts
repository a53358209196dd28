import Database from 'better-sqlite3';
import { projectors } from '../src/projections/registry.ts';
import { sqliteDialect } from '../src/storage/sqlite/dialect.ts';
import type { BareRecord, BareWrites } from './ceilings.ts';

/**
 * Floors: what SQLite alone costs for the bytes tradebook must store, with none of its code. They are not targets;
 * they show how much of a target's budget the data itself takes (a write stores its event and the read-model rows
 * with each record's response JSON kept ready, which the read targets need).
 */

type Row = Record<string, unknown>;

/** The read-model tables the write scenarios' events leave rows in: their DDL is copied for the floor. */
const READ_MODEL_TABLES = ['contractors', 'contractor_phones', 'products'];

/**
 * The event rows appended between `from` and `to` (at most `limit`), each with the read-model rows it left as they
 * are now: a new contractor's row and phones inserted; a product's record and views updated (the products rows
 * present before the clock starts).
 */
export function writesOf(db: Database.Database, run: { from: number; to: number }, limit: number): BareWrites {
  const ddlOf = db.prepare("SELECT sql FROM sqlite_master WHERE tbl_name = ? AND type IN ('table', 'index') AND sql IS NOT NULL ORDER BY type DESC").pluck();
  const ddl = ['events', ...READ_MODEL_TABLES].flatMap((table) => ddlOf.all(table) as string[]);
  const events = db.prepare('SELECT * FROM events WHERE seq > ? AND seq <= ? ORDER BY seq LIMIT ?').all(run.from, run.to, limit) as Row[];
  const contractor = db.prepare('SELECT * FROM contractors WHERE id = ?');
  const phones = db.prepare('SELECT * FROM contractor_phones WHERE contractor_id = ?');
  const product = db.prepare('SELECT * FROM products WHERE id = ?');
  const insert = (table: string, row: Row) => ({ sql: `INSERT INTO ${table} (${Object.keys(row).join(', ')}) VALUES (${Object.keys(row).map((c) => `@${c}`).join(', ')})`, row });
  const prefill = new Map<number, { sql: string; row: Row }>();
  const records = events.map((event): BareRecord => {
    const [kind, id] = String(event.stream).split('-');
    if (kind === 'contractor') {
      return { event, readModel: [insert('contractors', contractor.get(Number(id)) as Row), ...(phones.all(Number(id)) as Row[]).map((p) => insert('contractor_phones', p))] };
    }
    if (kind === 'product') {
      const row = product.get(Number(id)) as Row;
      prefill.set(Number(id), insert('products', row));
      return { event, readModel: [{ sql: 'UPDATE products SET record = @record, list_json = @list_json, full_json = @full_json WHERE id = @id', row: { id: row.id, record: row.record, list_json: row.list_json, full_json: row.full_json } }] };
    }
    throw new Error(`no read-model rows known for stream ${event.stream}`);
  });
  return { ddl, prefill: [...prefill.values()], records };
}

export interface RebuildFloor {
  /** Reading every event of the log and parsing its data. */
  readSeconds: number;
  /** SQLite copying the rebuilt read tables (with the indexes a build keeps up to date) into fresh ones, checkpointed. */
  writeSeconds: number;
  /** events / (read + write): one thread doing only those two. */
  eventsPerSecond: number;
}

/**
 * The rebuild's floor on a database whose read tables are current: the log read and parsed, and the read tables'
 * rows written once by SQLite itself (`INSERT … SELECT`, no JavaScript), under the build's settings (WAL,
 * synchronous=NORMAL, checkpoints every 20,000 pages) and checkpointed. The copies are dropped afterwards.
 */
export function rebuildFloor(file: string): RebuildFloor {
  const db = new Database(file);
  const floorName = (name: string) => `floor_${name}`;
  const tables = projectors.flatMap((p) => p.tables);
  const drop = () => db.transaction(() => tables.forEach((t) => db.exec(`DROP TABLE IF EXISTS ${floorName(t)}`)))();
  try {
    db.pragma('journal_mode = WAL');
    db.pragma('synchronous = NORMAL');
    db.pragma('wal_autocheckpoint = 20000');
    drop();
    db.pragma('wal_checkpoint(TRUNCATE)');
    let started = performance.now();
    let events = 0;
    for (const [data] of db.prepare('SELECT data FROM events').raw().iterate() as Iterable<[string]>) {
      JSON.parse(data);
      events++;
    }
    const readSeconds = (performance.now() - started) / 1000;
    started = performance.now();
    db.transaction(() => {
      for (const p of projectors) for (const statement of p.schema(floorName, sqliteDialect)) db.exec(statement);
    })();
    for (const table of tables) db.transaction(() => db.exec(`INSERT INTO ${floorName(table)} SELECT * FROM ${table}`))();
    db.pragma('wal_checkpoint(PASSIVE)');
    const writeSeconds = (performance.now() - started) / 1000;
    return { readSeconds, writeSeconds, eventsPerSecond: events / (readSeconds + writeSeconds) };
  } finally {
    drop();
    db.pragma('wal_checkpoint(TRUNCATE)');
    db.close();
  }
}
