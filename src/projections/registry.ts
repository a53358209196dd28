import { sqliteDialect } from '../storage/sqlite/dialect.ts';
import type { Sqlite, Statement } from '../storage/sqlite/open.ts';
import { type StoredEvent, lastSeq } from '../events/store.ts';
import { brandsProjector } from './brands.ts';
import { categoriesProjector } from './categories.ts';
import { inDependencyOrder } from './dependency-order.ts';
import { contractorsProjector } from './contractors/projector.ts';
import { documentMonthsProjector } from './documents/months.ts';
import { documentsProjector } from './documents/projector.ts';
import { type EventHandler, type Projector, type TableNames, servedNames } from './projector.ts';
import { productsProjector } from './products/projector.ts';

/** Every read model, in the order events are applied to them: each after the ones it declares (`after`). */
export const projectors: Projector[] = inDependencyOrder([
  brandsProjector,
  categoriesProjector,
  productsProjector,
  contractorsProjector,
  documentsProjector,
  documentMonthsProjector,
]);

/**
 * The projectors bound to one connection. `apply` runs inside the appending transaction and moves every
 * checkpoint with it, so read tables and log commit together.
 */
export class Projections {
  private readonly handlers: EventHandler[];
  private readonly checkpoint;
  private checkpointToEnd: Statement | undefined;
  private readonly checkpoints: string;
  /** Events were applied whose checkpoint is not saved yet (a rolled-back write may leave it set: saving then is harmless). */
  private unsaved = false;

  constructor(
    private readonly db: Sqlite,
    readonly list: Projector[] = projectors,
    names: TableNames = servedNames,
  ) {
    this.handlers = list.map((p) => p.bind(db, names));
    this.checkpoints = names('projection_checkpoints');
    this.checkpoint = db.prepare(`UPDATE ${this.checkpoints} SET last_seq = ? WHERE last_seq < ?`);
  }

  /**
   * Applies appended events and flushes the deferred work. The checkpoints move once per write transaction
   * (`saveCheckpoint`), not per appended record.
   */
  apply(events: StoredEvent[]): void {
    if (events.length === 0) return;
    try {
      for (const event of events) this.handle(event);
      this.persist();
      this.flush();
    } catch (error) {
      for (const handle of this.handlers) handle.discard?.();
      throw error;
    }
    this.unsaved = true;
  }

  /** Moves every checkpoint to the end of the log when events were applied since the last save. */
  saveCheckpoint(): void {
    if (!this.unsaved) return;
    // Prepared on first use: `verify` builds projections in a scratch database that has no log.
    this.checkpointToEnd ??= this.db.prepare(
      `UPDATE ${this.checkpoints} SET last_seq = (SELECT max(seq) FROM events) WHERE last_seq < (SELECT max(seq) FROM events)`,
    );
    this.checkpointToEnd.run();
    this.unsaved = false;
  }

  /** Applies `events` and moves the checkpoints, leaving the handlers' deferred work to `flush` (a rebuild flushes once, at its end). */
  replay(events: Iterable<StoredEvent>): void {
    let last: number | undefined;
    for (const event of events) {
      this.handle(event);
      last = event.seq;
    }
    this.persist();
    if (last !== undefined) this.checkpoint.run(last, last);
  }

  /** Writes the rows the handlers keep back. */
  private persist(): void {
    for (const handle of this.handlers) handle.persist?.();
  }

  private handle(event: StoredEvent): void {
    for (const handle of this.handlers) handle(event);
  }

  /** Does the handlers' deferred work, at most `limit` items of it; true when none is left. */
  flush(limit = Infinity): boolean {
    const budget = { left: limit };
    return this.handlers.every((handle) => handle.flush?.(budget) ?? true);
  }
}

/**
 * Creates every projector's tables (named through `names`, the checkpoints too) and a checkpoint row at `lastSeq`
 * for it; the read indexes too unless `readIndexes` is false (a build creates them after loading).
 */
export function createProjectionTables(db: Sqlite, list: Projector[], lastSeq: number, names: TableNames = servedNames, readIndexes = true): void {
  db.exec(`CREATE TABLE IF NOT EXISTS ${names('projection_checkpoints')} (name TEXT PRIMARY KEY, version INTEGER NOT NULL, last_seq INTEGER NOT NULL)`);
  for (const p of list) {
    // Qualified: with a scratch database attached, an unqualified name could drop the scratch copy.
    for (const table of p.tables) db.exec(`DROP TABLE IF EXISTS main."${names(table)}"`);
    for (const statement of p.schema(names, sqliteDialect)) db.exec(statement);
  }
  if (readIndexes) createReadIndexes(db, list, names);
  setCheckpoints(db, list, lastSeq, names);
}

export function createReadIndexes(db: Sqlite, list: Projector[], names: TableNames = servedNames): void {
  for (const p of list) for (const statement of p.readIndexes(names)) db.exec(statement);
}

/** Records that `list`'s tables are built by the code's versions and current up to `lastSeq`. */
export function setCheckpoints(db: Sqlite, list: Projector[], lastSeq: number, names: TableNames = servedNames): void {
  const setCheckpoint = db.prepare(
    `INSERT INTO ${names('projection_checkpoints')} (name, version, last_seq) VALUES (?, ?, ?)
     ON CONFLICT (name) DO UPDATE SET version = excluded.version, last_seq = excluded.last_seq`,
  );
  for (const p of list) setCheckpoint.run(p.name, p.version, lastSeq);
}

export interface CheckpointRow {
  name: string;
  version: number;
  last_seq: number;
}

export function readCheckpoints(db: Sqlite): Map<string, CheckpointRow> {
  const rows = db.prepare('SELECT name, version, last_seq FROM projection_checkpoints').all() as CheckpointRow[];
  return new Map(rows.map((r) => [r.name, r]));
}

/** The projections whose tables are not current: missing, built by another version of their projector, or behind the log. */
export function staleProjections(db: Sqlite): string[] {
  const checkpoints = readCheckpoints(db);
  const end = lastSeq(db);
  return projectors
    .filter((p) => {
      const checkpoint = checkpoints.get(p.name);
      return checkpoint === undefined || checkpoint.version !== p.version || checkpoint.last_seq < end;
    })
    .map((p) => p.name);
}
