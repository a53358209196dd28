import { type Clock, systemClock } from '../../lib/clock.ts';
import type { Engine, EngineOptions } from '../engine.ts';
import type { AppendedToReadTables, LiveReadModels, ReadTableStore } from '../read-tables.ts';
import { buildBeside, freshBuild } from './build-beside.ts';
import { buildSite, storedEventsAfter } from './build-site.ts';
import { type PostgresDatabase, openPostgres } from './connection.ts';
import { storageErrorOf, unreachableOf } from './errors.ts';
import { PostgresEventLog } from './event-log.ts';
import { PostgresKeyStore, PostgresSessionStore, PostgresTokenStore } from './keys-and-tokens.ts';
import { migrate } from './migrate.ts';
import { postgresSession } from './session.ts';
import { PostgresWriter } from './writer.ts';

/**
 * One company's trade records in a PostgreSQL database, which any number of servers and commands share: every
 * write takes the chain head's row lock, and the read tables are written in the same transaction as the events.
 */
export class PostgresEngine implements Engine {
  readonly writer: PostgresWriter;
  readonly log: PostgresEventLog;
  readonly projections: LiveReadModels;
  readonly decideOn;
  readonly readOn;
  readonly keys;
  readonly tokens;
  readonly sessions;
  // A point-in-time copy is always a SQLite file.
  readonly pointInTime = undefined;
  readonly readTables: ReadTableStore;
  readonly storageErrorOf = storageErrorOf;

  private constructor(
    private readonly database: PostgresDatabase,
    appended: AppendedToReadTables,
    clock: Clock,
  ) {
    const { session, pool } = database;
    const projections = (this.projections = appended.live(postgresSession(() => writer.writesFor('a read model'))));
    const writer: PostgresWriter = new PostgresWriter(session, { readModels: appended.versions, beforeCommit: () => projections.saveCheckpoint(), fateOn: pool });
    this.writer = writer;
    this.log = new PostgresEventLog(writer, clock);
    this.log.onAppend((events) => projections.apply(events));
    this.decideOn = postgresSession(() => writer.readsOn(pool));
    this.readOn = postgresSession(() => pool);
    this.keys = new PostgresKeyStore(writer, pool);
    this.tokens = new PostgresTokenStore(writer, pool);
    this.sessions = new PostgresSessionStore(writer, pool);
    this.readTables = {
      // Inside a unit of the writer, under the chain head's lock: the tables commit with it, or nothing does. Its
      // first unit refuses a database whose read models are another release's (`ReadModelsDifferError`).
      atOpen: (work) =>
        writer.run(() => {
          const unit = writer.writesFor('bringing the read tables up');
          const inUnit = <T>(step: () => Promise<T>) => step();
          return work({
            session: postgresSession(() => unit),
            eventsAfter: (seq) => storedEventsAfter(unit, seq),
            inWrite: inUnit,
            buildAll: { inPlace: buildSite(unit, inUnit) },
            // Servers of another release may share the database: their tables stay, and the writer refuses to write beside them.
            rebuildChanged: false,
          });
        }),
      // On the writer's connection, between its groups.
      beside: () => writer.run(async () => {}).then(() => buildBeside(database.session, writer)),
      fresh: (work) => freshBuild(database.session, work),
    };
  }

  /**
   * Connects to the database `url` names and migrates it (an empty database gets its schema); its read tables are
   * brought up above (`read-models/`). A database that cannot be reached is `DatabaseUnreachable`, the URL named
   * without its password.
   */
  static async open(url: string, appended: AppendedToReadTables, options: EngineOptions = {}): Promise<PostgresEngine> {
    const database = openPostgres(url, { stallMs: options.stallMs });
    try {
      return await PostgresEngine.on(database, appended, options);
    } catch (error) {
      await database.close();
      // The first statement (the migration's) shows whether the server is there, lets us in and has the database.
      throw unreachableOf(error, url) ?? error;
    }
  }

  /** Over a database connected already (`open` connects; tests hand in one of their own), migrated. */
  static async on(database: PostgresDatabase, appended: AppendedToReadTables, options: EngineOptions = {}): Promise<PostgresEngine> {
    await migrate(database.session);
    return new PostgresEngine(database, appended, options.clock ?? systemClock);
  }

  /** Heard with LISTEN on a connection of its own; none on a database that cannot listen (PGlite). */
  keyChanges(everyMs: number) {
    return this.database.keyChanges?.(everyMs);
  }

  /** Heard with LISTEN on the same connection as key changes; none on a database that cannot listen (PGlite). */
  logChanges() {
    return this.database.logChanges?.();
  }

  /** Nothing beside the requests: the server does its own checkpoints. */
  serve() {
    return { stop: async () => {} };
  }

  close(): Promise<void> {
    return this.database.close();
  }
}
