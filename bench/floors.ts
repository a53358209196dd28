import Database from 'better-sqlite3';
import { projectors } from '../src/projections/registry.ts';
import { sqliteDialect } from '../src/storage/sqlite/dialect.ts';
import type { BareRecord, BareWrites, RowWrite, SqliteBareWrites } from './ceilings.ts';

/**
 * Floors: what SQLite alone costs for the bytes tradebook must store, with none of its code. They are not targets;
 * they show how much of a target's budget the data itself takes (a write stores its event and the read-model rows
 * with each record's response JSON kept ready, which the read targets need).
 */

type Row = Record<string, unknown>;

/** The read-model tables the write scenarios' events leave rows in: their DDL is copied for the floor. */
const READ_MODEL_TABLES = ['contractors', 'contractor_phones', 'products'];

/** The read-model rows of the records of a run as they are now, looked up by each engine's own reads. */
export interface ReadModelRows {
  contractor(id: number): Row;
  phones(contractorId: number): Row[];
  product(id: number): Row;
}

/** The aggregate an event's stream names (`contractor-12`: a contractor, id 12). */
const streamOf = (event: Row) => {
  const [kind, id] = String(event.stream).split('-');
  return { kind, id: Number(id) };
};

/** The contractors and products whose read-model rows `events` left, for an engine to fetch them together. */
export function readModelKeys(events: Row[]): { contractors: number[]; products: number[] } {
  const of = (kind: string) => [...new Set(events.map(streamOf).filter((s) => s.kind === kind).map((s) => s.id))];
  return { contractors: of('contractor'), products: of('product') };
}

/**
 * Each event row with the read-model rows it left: a new contractor's row and phones inserted; a product's record
 * and views updated (the products rows present before the clock starts, as the prefill).
 */
export function recordsOf(events: Row[], rows: ReadModelRows): BareWrites {
  const prefill = new Map<number, RowWrite>();
  const records = events.map((event): BareRecord => {
    const { kind, id } = streamOf(event);
    if (kind === 'contractor') {
      return { event, readModel: [{ table: 'contractors', row: rows.contractor(id) }, ...rows.phones(id).map((row) => ({ table: 'contractor_phones', row }))] };
    }
    if (kind === 'product') {
      const row = rows.product(id);
      prefill.set(id, { table: 'products', row });
      return { event, readModel: [{ table: 'products', row: { record: row.record, list_json: row.list_json, full_json: row.full_json, id: row.id }, key: ['id'] }] };
    }
    throw new Error(`no read-model rows known for stream ${event.stream}`);
  });
  return { tables: ['events', ...READ_MODEL_TABLES], prefill: [...prefill.values()], records };
}

/**
 * The event rows appended between `from` and `to` (at most `limit`) of a SQLite database, each with the read-model
 * rows it left, and the DDL of their tables.
 */
export function writesOf(db: Database.Database, run: { from: number; to: number }, limit: number): SqliteBareWrites {
  const ddlOf = db.prepare("SELECT sql FROM sqlite_master WHERE tbl_name = ? AND type IN ('table', 'index') AND sql IS NOT NULL ORDER BY type DESC").pluck();
  const events = db.prepare('SELECT * FROM events WHERE seq > ? AND seq <= ? ORDER BY seq LIMIT ?').all(run.from, run.to, limit) as Row[];
  const contractor = db.prepare('SELECT * FROM contractors WHERE id = ?');
  const phones = db.prepare('SELECT * FROM contractor_phones WHERE contractor_id = ?');
  const product = db.prepare('SELECT * FROM products WHERE id = ?');
  const writes = recordsOf(events, { contractor: (id) => contractor.get(id) as Row, phones: (id) => phones.all(id) as Row[], product: (id) => product.get(id) as Row });
  return { ...writes, ddl: writes.tables.flatMap((table) => ddlOf.all(table) as string[]) };
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
