import { GroupCommit } from './storage/sqlite/group-commit.ts';
import { kyselyOf, migrate } from './storage/sqlite/migrate.ts';
import { sqliteDialect } from './storage/sqlite/dialect.ts';
import { type Sqlite, openSqlite } from './storage/sqlite/open.ts';
import { pointInTimeOf } from './storage/sqlite/maintenance.ts';
import { SqliteKeyStore, SqliteTokenStore } from './storage/sqlite/keys-and-tokens.ts';
import { FaultLog } from './storage/errors.ts';
import { storageFaultOf } from './storage/sqlite/storage-fault.ts';
import { EventStore } from './events/store.ts';
import { type Clock, systemClock } from './lib/clock.ts';
import { type Result } from './lib/result.ts';
import { brandQueries } from './projections/brands.ts';
import { categoryQueries } from './projections/categories.ts';
import { contractorQueries } from './projections/contractors/queries.ts';
import { documentQueries } from './projections/documents/queries.ts';
import { productQueries } from './projections/products/queries.ts';
import { bulkReads } from './projections/bulk-reads.ts';
import { auditReads } from './audit/reads.ts';
import { asyncReads } from './storage/async-reads.ts';
import { type RebuildProgress, ensureProjections, rebuild } from './projections/rebuild.ts';
import { Projections, staleProjections } from './projections/registry.ts';
import type { StateSource } from './use-cases/batch-state.ts';
import type { WriteContext } from './use-cases/write-context.ts';
import { readModelState } from './use-cases/read-model-state.ts';
import { AccessTokens } from './tokens/access-tokens.ts';
import { ApiKeys } from './tokens/api-keys.ts';

export interface OpenTradebookOptions {
  clock?: Clock;
  /** Called with the names of projections rebuilt at open because their version changed. */
  onRebuilt?: (names: string[]) => void;
  /** Called with every statement the database executes. */
  trace?: (sql: string) => void;
  /** Told once when the server's writes start failing for a storage fault (disk full, read-only), once when they succeed again. */
  onStorageFault?: (line: string) => void;
}

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

/** One open database with everything bound to it: the log, the inline projections, the read queries, keys and tokens. */
export class Tradebook implements WriteContext {
  /** The log: appends through the writer, and the reads rebuilds and tools make of it. */
  readonly log: EventStore;
  readonly projections: Projections;
  readonly state: StateSource;
  readonly keys: ApiKeys;
  readonly tokens: AccessTokens;
  readonly products;
  readonly categories;
  readonly brands;
  /** Set in a point-in-time copy (the seq its log ends at): such a database refuses writes. */
  readonly pointInTime: number | undefined;
  readonly contractors;
  readonly documents;
  /** Names an error of this engine's storage (disk full, read-only, failing) as a `StorageFault`; undefined for any other. */
  readonly storageFaultOf = storageFaultOf;
  /** The log and records' histories, as the audit endpoints read them. */
  readonly audit;
  /** The one writer: concurrent requests, imports and seeds share its commits (one fsync a group). */
  readonly writer: GroupCommit;

  private constructor(
    readonly db: Sqlite,
    private readonly reader: Sqlite,
    readonly clock: Clock,
    onStorageFault?: (line: string) => void,
  ) {
    this.log = new EventStore(db, clock);
    this.projections = new Projections(db);
    this.log.onAppend((events) => this.projections.apply(events));
    this.writer = new GroupCommit(db, () => this.projections.saveCheckpoint(), onStorageFault && new FaultLog('writes', onStorageFault));
    this.keys = new ApiKeys(new SqliteKeyStore(db), clock, this.writer);
    this.tokens = new AccessTokens(new SqliteTokenStore(db), clock);
    // The endpoints read on a connection of their own, so a read never sees another request's uncommitted work.
    this.products = asyncReads(productQueries(reader, sqliteDialect));
    this.categories = asyncReads(categoryQueries(reader));
    this.brands = asyncReads(brandQueries(reader));
    this.contractors = asyncReads(contractorQueries(reader, sqliteDialect));
    this.documents = asyncReads(documentQueries(reader, sqliteDialect));
    this.audit = asyncReads(auditReads(reader));
    // Commands decide inside the write transaction, on the writer's connection: an import line sees the lines
    // before it in the same group.
    const writerQueries = {
      products: productQueries(db, sqliteDialect),
      categories: categoryQueries(db),
      brands: brandQueries(db),
      contractors: contractorQueries(db, sqliteDialect),
      documents: documentQueries(db, sqliteDialect),
    };
    this.state = asyncReads({ ...readModelState(writerQueries), ...bulkReads(db) });
    this.pointInTime = pointInTimeOf(db);
  }

  /** Opens (and creates when missing) the database, migrates it and makes the read tables current. */
  static async open(file: string, options: OpenTradebookOptions = {}): Promise<Tradebook> {
    const db = openSqlite(file, { trace: options.trace });
    let rebuilt: string[];
    try {
      await migrate(kyselyOf(db));
      rebuilt = ensureProjections(db);
    } catch (error) {
      db.close();
      throw error;
    }
    if (rebuilt.length > 0) options.onRebuilt?.(rebuilt);
    const reader = openSqlite(file, { readonly: true, trace: options.trace });
    return new Tradebook(db, reader, options.clock ?? systemClock, options.onStorageFault);
  }

  /**
   * Runs `work` as a unit of the writer's next group (its own savepoint) and settles once the group is on disk.
   * A failure result undoes only this work; the projection checkpoints move once a group (`GroupCommit`'s
   * `beforeCommit`).
   */
  write<T>(work: () => Promise<Result<T>>): Promise<Result<T>> {
    return this.writer.run(() => decided(work)).catch(failureOf);
  }

  /**
   * Rebuilds every read table from the log beside the served ones and swaps them in; settles with the number of
   * events replayed. It runs on the writer's connection, so it is for when no write is in flight (tests, tools);
   * `tradebook rebuild` runs it in a process of its own.
   */
  async rebuild(options: { onProgress?: (progress: RebuildProgress) => void } = {}): Promise<{ events: number }> {
    return rebuild(this.db, options);
  }

  /** The read models whose tables are not current (see `staleProjections`), read on the read connection. */
  async staleProjections(): Promise<string[]> {
    return staleProjections(this.reader);
  }

  close(): void {
    this.writer.close();
    if (this.reader.open) this.reader.close();
    if (this.db.open) this.db.close();
  }
}
