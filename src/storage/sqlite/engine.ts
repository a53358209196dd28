import { GroupCommit } from './group-commit.ts';
import { kyselyOf, migrate } from './migrate.ts';
import { sqliteSession } from './session.ts';
import { type Sqlite, openSqlite } from './open.ts';
import { pointInTimeOf } from './maintenance.ts';
import { SqliteKeyStore, SqliteSessionStore, SqliteTokenStore } from './keys-and-tokens.ts';
import { SqliteKeyChanges } from './key-changes.ts';
import { SqliteLogChanges } from './log-changes.ts';
import { Checkpointer } from './checkpointer.ts';
import { storageFaultOf } from '../storage-fault.ts';
import { FaultLog } from '../errors.ts';
import type { Engine, EngineOptions } from '../engine.ts';
import { EventStore } from './event-log.ts';
import { type Clock, systemClock } from '../../lib/clock.ts';
import type { AppendedToReadTables, LiveReadModels, ReadTableStore } from '../read-tables.ts';
import { sqliteReadTables } from './read-tables.ts';

/** One company's trade records in a SQLite file: the embedded engine, a writer and a reader connection. */
export class SqliteEngine implements Engine {
  /** The log: appends through the writer, and the reads rebuilds and tools make of it. */
  readonly log: EventStore;
  /** The one writer: concurrent requests, imports and seeds share its commits (one fsync a group). */
  readonly writer: GroupCommit;
  readonly projections: LiveReadModels;
  readonly decideOn;
  readonly readOn;
  readonly keys;
  readonly tokens;
  readonly sessions;
  readonly pointInTime: number | undefined;
  readonly readTables: ReadTableStore;
  readonly storageErrorOf = storageFaultOf;

  private constructor(
    readonly db: Sqlite,
    private readonly reader: Sqlite,
    appended: AppendedToReadTables,
    clock: Clock,
    onStorageFault: ((line: string) => void) | undefined,
  ) {
    this.log = new EventStore(db, clock);
    const writes = sqliteSession(db);
    const projections = (this.projections = appended.live(writes));
    this.log.onAppend((events) => projections.apply(events));
    this.writer = new GroupCommit(db, () => projections.saveCheckpoint(), onStorageFault && new FaultLog('writes', onStorageFault));
    // Commands decide inside the write transaction, on the writer's connection: an import line sees the lines
    // before it in the same group. The endpoints read on a connection of their own, so a read never sees another
    // request's uncommitted work.
    this.decideOn = writes;
    this.readOn = sqliteSession(reader);
    this.keys = new SqliteKeyStore(db);
    this.tokens = new SqliteTokenStore(db);
    this.sessions = new SqliteSessionStore(db);
    this.pointInTime = pointInTimeOf(db);
    this.readTables = sqliteReadTables(db);
  }

  /** Opens (and creates when missing) the database and migrates it; its read tables are brought up above (`read-models/`). */
  static async open(file: string, appended: AppendedToReadTables, options: EngineOptions = {}): Promise<SqliteEngine> {
    const db = openSqlite(file, { trace: options.trace });
    try {
      await migrate(kyselyOf(db));
    } catch (error) {
      db.close();
      throw error;
    }
    const reader = openSqlite(file, { readonly: true, trace: options.trace });
    return new SqliteEngine(db, reader, appended, options.clock ?? systemClock, options.onStorageFault);
  }

  /** Another process's change is seen through the reader, which never writes. */
  keyChanges(everyMs: number): SqliteKeyChanges {
    return new SqliteKeyChanges(this.reader, everyMs);
  }

  /** Seen through the reader, as key changes are. */
  logChanges(everyMs: number): SqliteLogChanges {
    return new SqliteLogChanges(this.reader, everyMs);
  }

  serve(log: (line: string) => void): { stop(): Promise<void> } {
    this.writer.waitForLocksAsynchronously();
    // Commits only append to the WAL and fsync it; copying it into the database file happens on another thread.
    const checkpointer = Checkpointer.start(this.db, 200, new FaultLog('background checkpoints', log));
    return { stop: () => checkpointer.stop() };
  }

  async close(): Promise<void> {
    this.writer.close();
    if (this.reader.open) this.reader.close();
    if (this.db.open) this.db.close();
  }
}
