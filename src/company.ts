import { type Clock, systemClock } from './lib/clock.ts';
import type { Result } from './lib/result.ts';
import { type AuditReads, auditReads } from './audit/reads.ts';
import { LogWaker, type WakerOptions } from './feed/waker.ts';
import { brandQueries } from './projections/brands.ts';
import { bulkReads } from './projections/bulk-reads.ts';
import { categoryQueries } from './projections/categories.ts';
import { contractorQueries } from './projections/contractors/queries.ts';
import { documentQueries } from './projections/documents/queries.ts';
import { productQueries } from './projections/products/queries.ts';
import { projectors } from './projections/registry.ts';
import type { Engine, EngineOptions } from './storage/engine.ts';
import type { DatabaseSetting } from './storage/database.ts';
import type { RebuildProgress, Verification } from './storage/read-tables.ts';
import { type OnBuilt, bringUp, openWithReadTables } from './read-models/open.ts';
import { type ReadModels, readModelsOf } from './read-models/read-models.ts';
import { rebuild } from './read-models/rebuild.ts';
import { staleReadModels } from './read-models/stale.ts';
import { verify } from './read-models/verify.ts';
import { AccessTokens } from './tokens/access-tokens.ts';
import { ApiKeys } from './tokens/api-keys.ts';
import { KeyCache, type KeyCacheSettings } from './tokens/key-cache.ts';
import { AuditSessions } from './tokens/audit-sessions.ts';
import type { StateSource } from './use-cases/batch-state.ts';
import type { WriteContext } from './use-cases/write-context.ts';

class Rollback extends Error {
  constructor(readonly failure: Result<never>) {
    super('rolled back');
  }
}

/** `work`'s result; a failure is thrown as a Rollback, so the writer undoes the unit of work around it. */
async function decided<T>(work: () => Promise<Result<T>>): Promise<Result<T>> {
  const result = await work();
  if (!result.ok) throw new Rollback(result);
  return result;
}

/** The failure a Rollback carries; any other error goes on. */
function failureOf(error: unknown): Result<never> {
  if (error instanceof Rollback) return error.failure;
  throw error;
}

/**
 * The read models this release keeps, in the order events are applied to them: handed to the engine and to the
 * read-models layer here, and by the command line's keys, rebuild and verify.
 */
export const releaseReadModels: ReadModels = readModelsOf(projectors);

export interface OpenCompanyOptions extends EngineOptions {
  /** Told the read models whose tables were built at open, or why writes are refused. */
  onBuilt?: OnBuilt;
  /** Keys kept in memory, changes made elsewhere heard within `boundMs` (none: every key read each time). */
  keyCache?: KeyCacheSettings;
  /** How the log's followers are woken (see `LogWaker`). */
  feed?: Partial<FeedSettings>;
}

/** How the log's followers are woken. */
export interface FeedSettings extends WakerOptions {
  /** How often SQLite looks for another process's commit while anyone follows the log (ms). */
  watchMs: number;
}

const FEED_DEFAULTS: FeedSettings = { pollMs: 1000, watchMs: 100 };

/**
 * One company's trade records, open on an engine (`storage/engine.ts`): everything the HTTP interface and the use
 * cases need, the same on every engine. The engine supplies its storage; the read queries, the state commands
 * decide on, the keys and the tokens are built here alike for each.
 */
export class Company<E extends Engine = Engine> implements WriteContext {
  readonly writer: E['writer'];
  readonly log: E['log'];
  readonly state: StateSource;
  readonly keys: ApiKeys;
  readonly keyCache: KeyCache | undefined;
  readonly tokens: AccessTokens;
  /** The workbench's sign-in sessions. */
  readonly sessions: AuditSessions;
  readonly products;
  readonly categories;
  readonly brands;
  readonly contractors;
  readonly documents;
  /** The log and records' histories, as the audit endpoints read them. */
  readonly audit: AuditReads;
  /** Set in a point-in-time copy (the seq its log ends at): such a database refuses writes. */
  readonly pointInTime: number | undefined;
  /** Names an error of the engine's storage as the engine-neutral error it is (see `Engine.storageErrorOf`). */
  readonly storageErrorOf: E['storageErrorOf'];

  /** Started by the first follower (a command line never has one). */
  private logWaker: LogWaker | undefined;

  /** `engine` must have been opened with `readModels` (`openEngine`), and its read tables brought up (`bringUp`). */
  constructor(
    readonly engine: E,
    private readonly readModels: ReadModels,
    readonly clock: Clock = systemClock,
    keyCache?: KeyCacheSettings,
    private readonly feed: Partial<FeedSettings> = {},
  ) {
    this.writer = engine.writer;
    this.log = engine.log;
    this.audit = auditReads(engine.readOn);
    this.pointInTime = engine.pointInTime;
    this.storageErrorOf = (error) => engine.storageErrorOf(error);
    // Changes made elsewhere are looked for four times within the bound.
    const changes = keyCache && engine.keyChanges(keyCache.boundMs / 4);
    this.keyCache = changes && new KeyCache(keyCache, changes);
    this.keys = new ApiKeys(engine.keys, clock, engine.writer, this.keyCache);
    this.tokens = new AccessTokens(engine.tokens, clock);
    this.sessions = new AuditSessions(engine.sessions, this.keys, clock, engine.writer);
    const reads = engine.readOn;
    this.products = productQueries(reads);
    this.categories = categoryQueries(reads);
    this.brands = brandQueries(reads);
    this.contractors = contractorQueries(reads);
    this.documents = documentQueries(reads);
    this.state = bulkReads(engine.decideOn);
    // This server's own commits wake its followers at once.
    this.writer.onCommit(() => this.logWaker?.moved());
  }

  /** The one waker of every follower of the log on this server (long-polls, streams, webhooks). */
  get waker(): LogWaker {
    if (this.logWaker === undefined) {
      const settings = { ...FEED_DEFAULTS, ...this.feed };
      this.logWaker = new LogWaker(() => this.audit.lastSeq(), settings, this.engine.logChanges(settings.watchMs));
    }
    return this.logWaker;
  }

  /** The company in the database `setting` names (`TRADEBOOK_DB`), on its engine, with this release's read tables current. */
  static async open(setting: DatabaseSetting, options: OpenCompanyOptions = {}): Promise<Company> {
    const engine = await openWithReadTables(setting, releaseReadModels, options);
    return new Company(engine, releaseReadModels, options.clock, options.keyCache, options.feed);
  }

  /** The company on `engine`, opened already with this release's read models (tests open their own); its read tables brought up. */
  static async over<E extends Engine>(engine: E, options: OpenCompanyOptions = {}): Promise<Company<E>> {
    try {
      await bringUp(engine, releaseReadModels, options.onBuilt);
    } catch (error) {
      await engine.close();
      throw error;
    }
    return new Company(engine, releaseReadModels, options.clock, options.keyCache, options.feed);
  }

  /**
   * Runs `work` as a unit of the writer's next group (its own savepoint) and settles once the group is durable.
   * A failure result undoes only this work.
   */
  write<T>(work: () => Promise<Result<T>>): Promise<Result<T>> {
    return this.writer.run(() => decided(work)).catch(failureOf);
  }

  /** The read models whose tables are not current: missing, of another version, or behind the log. */
  staleProjections(): Promise<string[]> {
    return staleReadModels(this.readModels, this.engine.readOn);
  }

  /**
   * Rebuilds every read table beside the served ones and swaps them in (`read-models/rebuild.ts`), once the writes in
   * flight are done: for when no write of this process is (tests, tools); `tradebook rebuild` uses `rebuildReadTables`.
   */
  async rebuild(options: { onProgress?: (progress: RebuildProgress) => void } = {}): Promise<{ events: number }> {
    return rebuild(this.readModels, await this.engine.readTables.beside(), options);
  }

  /** The chain and the read tables against a fresh build, in one snapshot (`read-models/verify.ts`). */
  verify(): Promise<Verification> {
    return this.engine.readTables.fresh((fresh) => verify(this.readModels, fresh));
  }

  /** The key cache stops listening and the engine closes, both at once: SQLite's connections close before this returns. */
  async close(): Promise<void> {
    const listening = this.keyCache?.stop();
    const following = this.logWaker?.stop();
    const closing = this.engine.close();
    await listening;
    await following;
    await closing;
  }
}
