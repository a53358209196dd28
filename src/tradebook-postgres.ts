import { type AuditReads, auditReads } from './audit/reads.ts';
import { Company } from './company.ts';
import { type Clock, systemClock } from './lib/clock.ts';
import { bringReadTablesUp } from './projections/bring-up.ts';
import { rebuildPostgres, storedEventsAfter } from './projections/rebuild-postgres.ts';
import { verifyPostgres } from './audit/compare-postgres.ts';
import { Projections, createProjectionTables, createReadIndexes, projectors, readModelVersions, staleProjections } from './projections/registry.ts';
import { servedNames } from './projections/projector.ts';
import { buildViaScratch } from './projections/scratch-build.ts';
import { ReadModelsDifferError } from './storage/errors.ts';
import { type PostgresDatabase, openPostgres } from './storage/postgres/connection.ts';
import { storageErrorOf, unreachableOf } from './storage/postgres/errors.ts';
import { PostgresEventLog } from './storage/postgres/event-log.ts';
import { PostgresKeyStore, PostgresSessionStore, PostgresTokenStore } from './storage/postgres/keys-and-tokens.ts';
import { migrate } from './storage/postgres/migrate.ts';
import { postgresSession } from './storage/postgres/session.ts';
import { PostgresWriter } from './storage/postgres/writer.ts';
import { KeyCache, type KeyCacheSettings } from './tokens/key-cache.ts';

export interface OpenPostgresOptions {
  clock?: Clock;
  /** Called with the names of the read models whose tables were created at open (a database new to them). */
  onCreated?: (names: string[]) => void;
  /** Told why writes are refused when the database's read models are other versions than this server's. */
  onWritesRefused?: (why: string) => void;
  /** A statement unanswered this long is abandoned with its connections (`openPostgres`); none: waited for. */
  stallMs?: number;
  /**
   * Keys kept in memory, every server's changes heard within `boundMs` (LISTEN on a connection of its own); none, or
   * a database that cannot listen (PGlite): every key read each time.
   */
  keyCache?: KeyCacheSettings;
}

/**
 * One company's trade records in a PostgreSQL database, which any number of servers and commands share: every
 * write takes the chain head's row lock, and the read tables are written in the same transaction as the events.
 */
export class PostgresTradebook extends Company {
  declare readonly writer: PostgresWriter;
  readonly audit: AuditReads;
  // A point-in-time copy is always a SQLite file.
  readonly pointInTime = undefined;
  readonly projections: Projections;

  private constructor(
    private readonly database: PostgresDatabase,
    clock: Clock,
    keyCache: KeyCacheSettings | undefined,
  ) {
    const { session, pool } = database;
    const projections = new Projections(postgresSession(() => writer.writesFor('a read model')));
    const writer: PostgresWriter = new PostgresWriter(session, { readModels: readModelVersions(), beforeCommit: () => projections.saveCheckpoint(), fateOn: pool });
    const log = new PostgresEventLog(writer, clock);
    log.onAppend((events) => projections.apply(events));
    super(
      {
        writer,
        log,
        decideOn: postgresSession(() => writer.readsOn(pool)),
        readOn: postgresSession(() => pool),
        keys: new PostgresKeyStore(writer, pool),
        tokens: new PostgresTokenStore(writer, pool),
        keyCache: keyCache && database.keyChanges && new KeyCache(keyCache, database.keyChanges(keyCache.boundMs / 4)),
        sessions: new PostgresSessionStore(writer, pool),
      },
      clock,
    );
    this.projections = projections;
    this.audit = auditReads(postgresSession(() => pool));
  }

  /**
   * Connects to the database `url` names, migrates it (an empty database gets its schema) and makes the read
   * tables current under the chain head's lock. A database that cannot be reached is `DatabaseUnreachable`, the
   * URL named without its password.
   */
  static async open(url: string, options: OpenPostgresOptions = {}): Promise<PostgresTradebook> {
    const database = openPostgres(url, { stallMs: options.stallMs });
    try {
      return await PostgresTradebook.on(database, options);
    } catch (error) {
      await database.close();
      // The first statement (the migration's) shows whether the server is there, lets us in and has the database.
      throw unreachableOf(error, url) ?? error;
    }
  }

  /** Over a database connected already (`open` connects; tests hand in one of their own): migrated, its read tables brought up. */
  static async on(database: PostgresDatabase, options: OpenPostgresOptions = {}): Promise<PostgresTradebook> {
    await migrate(database.session);
    const tb = new PostgresTradebook(database, options.clock ?? systemClock, options.keyCache);
    try {
      const created = await tb.writer.run(() => tb.bringReadTablesUp());
      if (created.length > 0) options.onCreated?.(created);
    } catch (error) {
      // Another release's read tables: this server still serves what they hold, and refuses every write.
      if (!(error instanceof ReadModelsDifferError)) {
        await tb.keyCache?.stop();
        throw error;
      }
      options.onWritesRefused?.(error.message);
    }
    return tb;
  }

  private bringReadTablesUp(): Promise<string[]> {
    const session = this.writer.writesFor('bringing the read tables up');
    const served = postgresSession(() => session);
    // Inside the unit's transaction: the tables commit with it, or nothing does.
    const inUnit = <T>(work: () => Promise<T>) => work();
    return bringReadTablesUp(served, this.projections, (seq) => storedEventsAfter(session, seq), async (end) => {
      // A new database: nothing to build from.
      if (end === 0) return createProjectionTables(served, projectors, 0);
      await buildViaScratch(storedEventsAfter(session, 0, end), end, session, servedNames, inUnit);
      await createReadIndexes(served, projectors);
    });
  }

  readonly storageErrorOf = storageErrorOf;

  /**
   * Rebuilds every read table beside the served ones and swaps them in (see `rebuildPostgres`), on the writer's
   * connection between its groups: for when no write of this process is in flight (tests, tools);
   * `tradebook rebuild` runs it on a connection of its own.
   */
  rebuild(): Promise<{ events: number }> {
    return this.writer.run(() => undefined).then(() => rebuildPostgres(this.database.session, this.writer));
  }

  /** The chain and the read tables against a fresh build, in one snapshot (see `verifyPostgres`); as `rebuild`, for tests and tools. */
  verify() {
    return verifyPostgres(this.database.session);
  }

  staleProjections(): Promise<string[]> {
    return staleProjections(postgresSession(() => this.database.pool));
  }

  async close(): Promise<void> {
    await this.keyCache?.stop();
    await this.database.close();
  }
}
