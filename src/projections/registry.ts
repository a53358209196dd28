import type { EventReader } from '../storage/read-tables.ts';
import type { SqlSession } from '../storage/sql.ts';
import type { StoredEvent } from '../events/rows.ts';
import { brandsProjector } from './brands.ts';
import { categoriesProjector } from './categories.ts';
import { inDependencyOrder } from './dependency-order.ts';
import { contractorsProjector } from './contractors/projector.ts';
import { documentMonthsProjector } from './documents/months.ts';
import { documentsProjector } from './documents/projector.ts';
import { type EventHandler, type Projector, type TableNames, servedNames } from './projector.ts';
import { countIds } from './id-counts.ts';
import { productsProjector } from './products/projector.ts';
import { type WriteStrategy, liveWrites } from './write-strategies.ts';

/** Every read model, in the order events are applied to them: each after the ones it declares (`after`). */
export const projectors: Projector[] = inDependencyOrder([
  brandsProjector,
  categoriesProjector,
  productsProjector,
  contractorsProjector,
  documentsProjector,
  documentMonthsProjector,
]);

/** The read models' names and versions as one string: two processes keep the same read models when theirs are equal. */
export const readModelVersions = (list: Projector[]) => list.map((p) => `${p.name}@${p.version}`).join(' ');

/**
 * The projectors writing through one session. `apply` runs inside the appending transaction and moves every
 * checkpoint with it, so read tables and log commit together.
 */
export class Projections {
  private readonly handlers: EventHandler[];
  private readonly checkpoint: string;
  private readonly checkpointToEnd: string;
  /** Events were applied whose checkpoint is not saved yet (a rolled-back write may leave it set: saving then is harmless). */
  private unsaved = false;

  constructor(
    private readonly session: SqlSession,
    readonly list: Projector[],
    private readonly names: TableNames = servedNames,
    strategy: WriteStrategy = liveWrites,
  ) {
    this.handlers = list.map((p) => p.bind(session, names, strategy));
    const checkpoints = names('projection_checkpoints');
    this.checkpoint = `UPDATE ${checkpoints} SET last_seq = ? WHERE last_seq < ?`;
    this.checkpointToEnd = `UPDATE ${checkpoints} SET last_seq = (SELECT max(seq) FROM events) WHERE last_seq < (SELECT max(seq) FROM events)`;
  }

  /**
   * Applies appended events and flushes the deferred work. The checkpoints move once per write transaction
   * (`saveCheckpoint`), not per appended record.
   */
  async apply(events: StoredEvent[]): Promise<void> {
    if (events.length === 0) return;
    try {
      for (const handle of this.handlers) {
        const reading = handle.prepare?.(events);
        if (reading !== undefined) await reading;
      }
      for (const event of events) {
        const pending = this.handle(event);
        if (pending !== undefined) await pending;
      }
      await this.persist();
      await this.flush();
    } catch (error) {
      for (const handle of this.handlers) handle.discard?.();
      throw error;
    }
    this.unsaved = true;
  }

  /** Moves every checkpoint to the end of the log when events were applied since the last save. */
  async saveCheckpoint(): Promise<void> {
    if (!this.unsaved) return;
    await this.session.run(this.checkpointToEnd);
    this.unsaved = false;
  }

  /**
   * Applies `events` and moves the checkpoints, leaving the handlers' deferred work to `flush` (a rebuild flushes
   * once, at its end). Events read synchronously (SQLite's log) are handled without a promise for each: most of a
   * long log is events no handler does I/O for.
   */
  async replay(events: Iterable<StoredEvent> | AsyncIterable<StoredEvent> | EventReader): Promise<void> {
    const reader = 'next' in events ? events : Symbol.iterator in events ? events[Symbol.iterator]() : events[Symbol.asyncIterator]();
    let last: number | undefined;
    for (;;) {
      const read = reader.next();
      const next = read instanceof Promise ? await read : read;
      if (next.done) break;
      const pending = this.handle(next.value);
      if (pending !== undefined) await pending;
      last = next.value.seq;
    }
    await this.persist();
    if (last !== undefined) await this.session.run(this.checkpoint, [last, last]);
  }

  /** Writes the rows the handlers keep back. */
  private async persist(): Promise<void> {
    for (const handle of this.handlers) {
      const writing = handle.persist?.();
      if (writing !== undefined) await writing;
    }
  }

  /** One event through every handler, from the `from`th on; a promise only when a handler made one. */
  private handle(event: StoredEvent, from = 0): Promise<void> | undefined {
    for (let i = from; i < this.handlers.length; i++) {
      const pending = this.handlers[i](event);
      if (pending !== undefined) return pending.then(() => this.handle(event, i + 1));
    }
    return undefined;
  }

  /** The end of a build (`buildWrites`), once every event is applied and flushed: the ids of the loaded rows counted. */
  async finish(): Promise<void> {
    const n = this.names;
    for (const p of this.list) for (const { rows, counts, partition } of p.countedIds ?? []) await countIds(this.session, { rows: n(rows), counts: n(counts), partition });
  }

  /** Does the handlers' deferred work, at most `limit` items of it; true when none is left. */
  async flush(limit = Infinity): Promise<boolean> {
    const budget = { left: limit };
    for (const handle of this.handlers) if (handle.flush && !(await handle.flush(budget))) return false;
    return true;
  }
}

/**
 * Creates every projector's tables (named through `names`, the checkpoints too) and a checkpoint row at `lastSeq`
 * for it; the read indexes too unless `readIndexes` is false (a build creates them after loading).
 */
export async function createProjectionTables(session: SqlSession, list: Projector[], lastSeq: number, names: TableNames = servedNames, readIndexes = true): Promise<void> {
  const { types: t } = session.dialect;
  await session.run(
    `CREATE TABLE IF NOT EXISTS ${names('projection_checkpoints')} (name ${t.text} PRIMARY KEY, version ${t.integer} NOT NULL, last_seq ${t.integer} NOT NULL)`,
  );
  for (const p of list) {
    for (const table of p.tables) await session.run(`DROP TABLE IF EXISTS ${session.dialect.ownTable(names(table))}`);
    for (const statement of p.schema(names, session.dialect)) await session.run(statement);
  }
  if (readIndexes) await createReadIndexes(session, list, names);
  await setCheckpoints(session, list, lastSeq, names);
}

export async function createReadIndexes(session: SqlSession, list: Projector[], names: TableNames = servedNames): Promise<void> {
  for (const p of list) for (const statement of p.readIndexes(names)) await session.run(statement);
}

/** Records that `list`'s tables are built by the code's versions and current up to `lastSeq`. */
export async function setCheckpoints(session: SqlSession, list: Projector[], lastSeq: number, names: TableNames = servedNames): Promise<void> {
  const setCheckpoint = `INSERT INTO ${names('projection_checkpoints')} (name, version, last_seq) VALUES (?, ?, ?)
     ON CONFLICT (name) DO UPDATE SET version = excluded.version, last_seq = excluded.last_seq`;
  for (const p of list) await session.run(setCheckpoint, [p.name, p.version, lastSeq]);
}

export interface CheckpointRow {
  name: string;
  version: number;
  last_seq: number;
}

export async function readCheckpoints(session: SqlSession): Promise<Map<string, CheckpointRow>> {
  const rows = await session.objects<CheckpointRow>('SELECT name, version, last_seq FROM projection_checkpoints');
  return new Map(rows.map((r) => [r.name, r]));
}

/** The seq of the log's last event (0 when it is empty). */
export async function logEnd(session: SqlSession): Promise<number> {
  return (await session.value<number>('SELECT coalesce(max(seq), 0) FROM events'))!;
}

/** The projections whose tables are not current: missing, built by another version of their projector, or behind the log. */
export async function staleProjections(session: SqlSession, list: Projector[]): Promise<string[]> {
  const checkpoints = await readCheckpoints(session);
  const end = await logEnd(session);
  return list
    .filter((p) => {
      const checkpoint = checkpoints.get(p.name);
      return checkpoint === undefined || checkpoint.version !== p.version || checkpoint.last_seq < end;
    })
    .map((p) => p.name);
}
