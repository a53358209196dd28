import { GroupCommit } from './storage/sqlite/group-commit.ts';
import { kyselyOf, migrate } from './storage/sqlite/migrate.ts';
import { sqliteSession } from './storage/sqlite/session.ts';
import { type Sqlite, openSqlite } from './storage/sqlite/open.ts';
import { everyRowOf, pointInTimeOf } from './storage/sqlite/maintenance.ts';
import { SqliteKeyStore, SqliteSessionStore, SqliteTokenStore } from './storage/sqlite/keys-and-tokens.ts';
import { FaultLog } from './storage/errors.ts';
import { storageFaultOf } from './storage/sqlite/storage-fault.ts';
import { EventStore } from './storage/sqlite/event-log.ts';
import { type Clock, systemClock } from './lib/clock.ts';
import { Company } from './company.ts';
import { auditReads } from './audit/reads.ts';
import { type RebuildProgress, ensureProjections, rebuild } from './projections/rebuild.ts';
import { Projections, projectors, staleProjections } from './projections/registry.ts';
import { KeyCache, type KeyCacheSettings } from './tokens/key-cache.ts';
import { SqliteKeyChanges } from './storage/sqlite/key-changes.ts';

export interface OpenTradebookOptions {
  clock?: Clock;
  /** Called with the names of projections rebuilt at open because their version changed. */
  onRebuilt?: (names: string[]) => void;
  /** Called with every statement the database executes. */
  trace?: (sql: string) => void;
  /** Told once when the server's writes start failing for a storage fault (disk full, read-only), once when they succeed again. */
  onStorageFault?: (line: string) => void;
  /** Keys kept in memory, changes by other processes heard within `boundMs` (none: every key read each time). */
  keyCache?: KeyCacheSettings;
}

/** One company's trade records in a SQLite file: the embedded engine, a writer and a reader connection. */
export class Tradebook extends Company {
  /** The log: appends through the writer, and the reads rebuilds and tools make of it. */
  declare readonly log: EventStore;
  /** The one writer: concurrent requests, imports and seeds share its commits (one fsync a group). */
  declare readonly writer: GroupCommit;
  readonly projections: Projections;
  readonly storageErrorOf = storageFaultOf;
  readonly audit;
  readonly pointInTime: number | undefined;

  private constructor(
    readonly db: Sqlite,
    private readonly reader: Sqlite,
    clock: Clock,
    options: OpenTradebookOptions,
  ) {
    const log = new EventStore(db, clock);
    const writes = sqliteSession(db);
    const projections = new Projections(writes);
    log.onAppend((events) => projections.apply(events));
    const { onStorageFault, keyCache } = options;
    const writer = new GroupCommit(db, () => projections.saveCheckpoint(), onStorageFault && new FaultLog('writes', onStorageFault));
    // Commands decide inside the write transaction, on the writer's connection: an import line sees the lines
    // before it in the same group. The endpoints read on a connection of their own, so a read never sees another
    // request's uncommitted work.
    super(
      {
        writer,
        log,
        decideOn: writes,
        readOn: sqliteSession(reader),
        keys: new SqliteKeyStore(db),
        tokens: new SqliteTokenStore(db),
        sessions: new SqliteSessionStore(db),
        // Another process's change is seen through the reader, which never writes: a quarter of the bound between looks.
        keyCache: keyCache && new KeyCache(keyCache, new SqliteKeyChanges(reader, keyCache.boundMs / 4)),
      },
      clock,
    );
    this.projections = projections;
    this.audit = { ...auditReads(sqliteSession(reader)), readTables: async () => everyRowOf(reader, projectors.flatMap((p) => p.tables)) };
    this.pointInTime = pointInTimeOf(db);
  }

  /** Opens (and creates when missing) the database, migrates it and makes the read tables current. */
  static async open(file: string, options: OpenTradebookOptions = {}): Promise<Tradebook> {
    const db = openSqlite(file, { trace: options.trace });
    let rebuilt: string[];
    try {
      await migrate(kyselyOf(db));
      rebuilt = await ensureProjections(db);
    } catch (error) {
      db.close();
      throw error;
    }
    if (rebuilt.length > 0) options.onRebuilt?.(rebuilt);
    const reader = openSqlite(file, { readonly: true, trace: options.trace });
    return new Tradebook(db, reader, options.clock ?? systemClock, options);
  }

  /**
   * Rebuilds every read table from the log beside the served ones and swaps them in; settles with the number of
   * events replayed. It runs on the writer's connection, so it is for when no write is in flight (tests, tools);
   * `tradebook rebuild` runs it in a process of its own.
   */
  async rebuild(options: { onProgress?: (progress: RebuildProgress) => void } = {}): Promise<{ events: number }> {
    return rebuild(this.db, options);
  }

  /** Read on the read connection. */
  async staleProjections(): Promise<string[]> {
    return staleProjections(sqliteSession(this.reader));
  }

  close(): void {
    void this.keyCache?.stop();
    this.writer.close();
    if (this.reader.open) this.reader.close();
    if (this.db.open) this.db.close();
  }
}
