import { type Clock, systemClock } from '../../lib/clock.ts';
import type { Engine, EngineOptions } from '../engine.ts';
import { ReadModelsDifferError } from '../errors.ts';
import { type LiveReadModels, type ReadModels, servedNames } from '../read-tables.ts';
import { type PostgresDatabase, openPostgres } from './connection.ts';
import { storageErrorOf, unreachableOf } from './errors.ts';
import { PostgresEventLog } from './event-log.ts';
import { PostgresKeyStore, PostgresSessionStore, PostgresTokenStore } from './keys-and-tokens.ts';
import { migrate } from './migrate.ts';
import { rebuildPostgres, storedEventsAfter } from './rebuild.ts';
import { loadTarget } from './load-target.ts';
import { postgresSession } from './session.ts';
import { verifyPostgres } from './verify.ts';
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
  readonly storageErrorOf = storageErrorOf;

  private constructor(
    private readonly database: PostgresDatabase,
    private readonly readModels: ReadModels,
    clock: Clock,
  ) {
    const { session, pool } = database;
    const projections = (this.projections = readModels.live(postgresSession(() => writer.writesFor('a read model'))));
    const writer: PostgresWriter = new PostgresWriter(session, { readModels: readModels.versions, beforeCommit: () => projections.saveCheckpoint(), fateOn: pool });
    this.writer = writer;
    this.log = new PostgresEventLog(writer, clock);
    this.log.onAppend((events) => projections.apply(events));
    this.decideOn = postgresSession(() => writer.readsOn(pool));
    this.readOn = postgresSession(() => pool);
    this.keys = new PostgresKeyStore(writer, pool);
    this.tokens = new PostgresTokenStore(writer, pool);
    this.sessions = new PostgresSessionStore(writer, pool);
  }

  /**
   * Connects to the database `url` names, migrates it (an empty database gets its schema) and makes the read
   * tables current under the chain head's lock. A database that cannot be reached is `DatabaseUnreachable`, the
   * URL named without its password.
   */
  static async open(url: string, readModels: ReadModels, options: EngineOptions = {}): Promise<PostgresEngine> {
    const database = openPostgres(url, { stallMs: options.stallMs });
    try {
      return await PostgresEngine.on(database, readModels, options);
    } catch (error) {
      await database.close();
      // The first statement (the migration's) shows whether the server is there, lets us in and has the database.
      throw unreachableOf(error, url) ?? error;
    }
  }

  /** Over a database connected already (`open` connects; tests hand in one of their own): migrated, its read tables brought up. */
  static async on(database: PostgresDatabase, readModels: ReadModels, options: EngineOptions = {}): Promise<PostgresEngine> {
    await migrate(database.session);
    return PostgresEngine.onMigrated(database, readModels, options);
  }

  /** Over a database connected and migrated already: its read tables brought up. */
  static async onMigrated(database: PostgresDatabase, readModels: ReadModels, options: EngineOptions = {}): Promise<PostgresEngine> {
    const engine = new PostgresEngine(database, readModels, options.clock ?? systemClock);
    try {
      const created = await engine.writer.run(() => engine.bringReadTablesUp());
      if (created.length > 0) options.onBuilt?.(`built the read tables from the log: ${created.join(', ')}`, created);
    } catch (error) {
      // Another release's read tables: this server still serves what they hold, and refuses every write.
      if (!(error instanceof ReadModelsDifferError)) throw error;
      options.onBuilt?.(error.message, []);
    }
    return engine;
  }

  /** The names of the projections whose tables were missing and are built now from the log (none for a new database: its tables are only created). */
  private async bringReadTablesUp(): Promise<string[]> {
    const session = this.writer.writesFor('bringing the read tables up');
    const served = postgresSession(() => session);
    // Inside the unit's transaction: the tables commit with it, or nothing does.
    const inUnit = <T>(work: () => Promise<T>) => work();
    const readModels = this.readModels;
    const { missing, end } = await readModels.bringUp({
      session: served,
      eventsAfter: (seq) => storedEventsAfter(session, seq),
      async buildAll(end) {
        // A new database: nothing to build from.
        if (end === 0) return readModels.createTables(served, 0);
        await readModels.buildViaScratch(storedEventsAfter(session, 0, end), end, loadTarget(session), servedNames, inUnit);
        await readModels.createReadIndexes(served, servedNames);
      },
      inWrite: inUnit,
      // Servers of another release may share the database: their tables stay, and the writer refuses to write beside them.
      rebuildChanged: false,
    });
    return end === 0 ? [] : missing;
  }

  /** Heard with LISTEN on a connection of its own; none on a database that cannot listen (PGlite). */
  keyChanges(everyMs: number) {
    return this.database.keyChanges?.(everyMs);
  }

  /** Heard with LISTEN on the same connection as key changes; none on a database that cannot listen (PGlite). */
  logChanges() {
    return this.database.logChanges?.();
  }

  /**
   * Rebuilds every read table beside the served ones and swaps them in (see `rebuildPostgres`), on the writer's
   * connection between its groups.
   */
  rebuild(): Promise<{ events: number }> {
    return this.writer.run(() => undefined).then(() => rebuildPostgres(this.database.session, this.writer, this.readModels));
  }

  /** The chain and the read tables against a fresh build, in one snapshot (see `verifyPostgres`). */
  verify() {
    return verifyPostgres(this.database.session, this.readModels);
  }

  staleProjections(): Promise<string[]> {
    return this.readModels.stale(postgresSession(() => this.database.pool));
  }

  /** Nothing beside the requests: the server does its own checkpoints. */
  serve() {
    return { stop: async () => {} };
  }

  close(): Promise<void> {
    return this.database.close();
  }
}
