import path from 'node:path';
import Database from 'better-sqlite3';
import { bareWritesPerSecond } from './ceilings.ts';
import { DATA_DIR } from './dataset.ts';
import { writesOf } from './floors.ts';
import type { CpuReading } from './processes.ts';
import type { Engine, LockHold, ScenarioResult } from './report.ts';
import { BUSIEST_CONTRACTOR_YEAR, type WorkbenchSubject } from './scenarios.ts';
import { spread } from './stats.ts';

/**
 * A database the servers under load serve, as the bench reads it beside them: what the scenarios need from it
 * (skus, the workbench's subject), where the write scenarios' runs start and end, and the bare writes of what
 * they appended. Each engine reads it its own way.
 */
export interface EngineUnderTest {
  engine: Engine;
  /** `TRADEBOOK_DB` of the servers and commands run on it. */
  setting: string;
  lastEventSeq(): Promise<number>;
  skus(): Promise<string[]>;
  busiest(): Promise<WorkbenchSubject['busiest']>;
  /**
   * The write ceiling and floor on the rows a scenario's run appended (at most `limit`), `runs` runs each: the
   * event rows alone, and with the read-model rows they left, written by a bare client of the same engine.
   */
  bareWrites(run: { from: number; to: number }, limit: number, runs: number): Promise<Pick<ScenarioResult, 'bareInsertRowsPerSecond' | 'readModelFloorRowsPerSecond'>>;
  /** The database server's processes' CPU, when they are processes of their own (not SQLite's, inside the server). */
  databaseCpu?: () => Promise<CpuReading>;
  /** The write lock's holds, sampled until `done` settles, where the engine shows them. */
  sampleLock?: (done: Promise<unknown>) => Promise<LockHold>;
  close(): Promise<void>;
}


/** A SQLite file, opened read-only for each read so that the server's writes are never held up. */
export function sqliteUnderTest(file: string): EngineUnderTest {
  const read = <T>(query: (db: Database.Database) => T): T => {
    const db = new Database(file, { readonly: true });
    try {
      return query(db);
    } finally {
      db.close();
    }
  };
  return {
    engine: 'sqlite',
    setting: file,
    lastEventSeq: async () => read((db) => db.prepare('SELECT coalesce(max(seq), 0) FROM events').pluck().get() as number),
    skus: async () => read((db) => db.prepare('SELECT sku FROM products ORDER BY id').pluck().all() as string[]),
    busiest: async () => read((db) => db.prepare(BUSIEST_CONTRACTOR_YEAR).get() as WorkbenchSubject['busiest']),
    bareWrites: async (run, limit, runs) => {
      const writes = read((db) => writesOf(db, run, limit));
      const measure = (withReadModel: boolean) => spread(Array.from({ length: runs }, () => bareWritesPerSecond(writes, path.join(DATA_DIR, 'ceiling.db'), withReadModel)));
      return { bareInsertRowsPerSecond: measure(false), readModelFloorRowsPerSecond: measure(true) };
    },
    close: async () => {},
  };
}
