import type { Statement } from 'better-sqlite3';
import type { Sqlite } from '../db/open.ts';
import type { StoredEvent } from '../events/store.ts';
import { brandsProjector } from './brands.ts';
import { categoriesProjector } from './categories.ts';
import { contractorsProjector } from './contractors.ts';
import { documentMonthsProjector } from './document-months.ts';
import { documentsProjector } from './documents.ts';
import type { EventHandler, Projector } from './projector.ts';
import { productsProjector } from './products.ts';

/** Every read model, in the order events are applied to them (products render brand and group names, documents their contractor). */
export const projectors: Projector[] = [brandsProjector, categoriesProjector, productsProjector, contractorsProjector, documentsProjector, documentMonthsProjector];

/**
 * The projectors bound to one connection. `apply` runs inside the appending transaction and moves every
 * checkpoint with it, so read tables and log commit together.
 */
export class Projections {
  private readonly handlers: EventHandler[];
  private readonly checkpoint;
  private checkpointToEnd: Statement | undefined;
  /** Events were applied whose checkpoint is not saved yet (a rolled-back write may leave it set: saving then is harmless). */
  private unsaved = false;

  constructor(
    private readonly db: Sqlite,
    readonly list: Projector[] = projectors,
  ) {
    this.handlers = list.map((p) => p.bind(db));
    this.checkpoint = db.prepare('UPDATE projection_checkpoints SET last_seq = ? WHERE last_seq < ?');
  }

  /**
   * Applies appended events and flushes the deferred work. The checkpoints move once per write transaction
   * (`saveCheckpoint`), not per appended record.
   */
  apply(events: StoredEvent[]): void {
    if (events.length === 0) return;
    try {
      this.handle(events);
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
    // Prepared on first use: a rebuild's scratch database binds projections but has no log.
    this.checkpointToEnd ??= this.db.prepare('UPDATE projection_checkpoints SET last_seq = (SELECT max(seq) FROM events) WHERE last_seq < (SELECT max(seq) FROM events)');
    this.checkpointToEnd.run();
    this.unsaved = false;
  }

  /** Applies `events` and moves the checkpoints, leaving the handlers' deferred work to `flush` (a rebuild flushes once, at its end). */
  replay(events: StoredEvent[]): void {
    if (events.length === 0) return;
    this.handle(events);
    const last = events[events.length - 1].seq;
    this.checkpoint.run(last, last);
  }

  private handle(events: StoredEvent[]): void {
    for (const event of events) for (const handle of this.handlers) handle(event);
  }

  flush(): void {
    for (const handle of this.handlers) handle.flush?.();
  }
}

/** Creates every projector's tables and a checkpoint row at `lastSeq` for it. */
export function createProjectionTables(db: Sqlite, list: Projector[], lastSeq: number): void {
  const setCheckpoint = db.prepare(
    `INSERT INTO projection_checkpoints (name, version, last_seq) VALUES (?, ?, ?)
     ON CONFLICT (name) DO UPDATE SET version = excluded.version, last_seq = excluded.last_seq`,
  );
  for (const p of list) {
    // Qualified: with a scratch database attached, an unqualified name could drop the scratch copy.
    for (const table of p.tables) db.exec(`DROP TABLE IF EXISTS main."${table}"`);
    for (const statement of p.schema) db.exec(statement);
    setCheckpoint.run(p.name, p.version, lastSeq);
  }
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
