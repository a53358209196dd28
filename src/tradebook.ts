import type { CommandState } from './commands/command-state.ts';
import { GroupCommit } from './storage/sqlite/group-commit.ts';
import { kyselyOf, migrate } from './storage/sqlite/migrate.ts';
import { sqliteDialect } from './storage/sqlite/dialect.ts';
import { type Sqlite, openSqlite } from './storage/sqlite/open.ts';
import { EventStore } from './events/store.ts';
import { type Clock, systemClock } from './lib/clock.ts';
import { type Result } from './lib/result.ts';
import { brandQueries } from './projections/brands.ts';
import { categoryQueries } from './projections/categories.ts';
import { contractorQueries } from './projections/contractors/queries.ts';
import { documentQueries } from './projections/documents/queries.ts';
import { productQueries } from './projections/products/queries.ts';
import { pointInTimeOf } from './audit/point-in-time.ts';
import { ensureProjections } from './projections/rebuild.ts';
import { Projections } from './projections/registry.ts';
import { readModelState } from './use-cases/read-model-state.ts';
import { AccessTokens } from './tokens/access-tokens.ts';
import { ApiKeys } from './tokens/api-keys.ts';

export interface OpenTradebookOptions {
  clock?: Clock;
  /** Called with the names of projections rebuilt at open because their version changed. */
  onRebuilt?: (names: string[]) => void;
}

class Rollback extends Error {
  constructor(readonly failure: Result<never>) {
    super('rolled back');
  }
}

/** `work`'s result; a failure is thrown as a Rollback, so the transaction or savepoint around it is undone. */
function decided<T>(work: () => Result<T>): Result<T> {
  const result = work();
  if (!result.ok) throw new Rollback(result);
  return result;
}

/** The failure a Rollback carries; any other error goes on. */
function failureOf(error: unknown): Result<never> {
  if (error instanceof Rollback) return error.failure;
  throw error;
}

/** One open database with everything bound to it: the log, the inline projections, the read queries, keys and tokens. */
export class Tradebook {
  readonly store: EventStore;
  readonly projections: Projections;
  readonly state: CommandState;
  readonly keys: ApiKeys;
  readonly tokens: AccessTokens;
  readonly products;
  readonly categories;
  readonly brands;
  /** Set in a point-in-time copy (the seq its log ends at): such a database refuses writes. */
  readonly pointInTime: number | undefined;
  readonly contractors;
  readonly documents;
  /** The server's writes: concurrent requests share one commit (one fsync). */
  readonly commits: GroupCommit;
  /** `write`'s transaction, made once (better-sqlite3 builds a transaction function's wrappers on every call). */
  private readonly writeTransaction;

  private constructor(
    readonly db: Sqlite,
    readonly clock: Clock,
  ) {
    this.store = new EventStore(db, clock);
    this.projections = new Projections(db);
    this.store.onAppend((events) => this.projections.apply(events));
    this.keys = new ApiKeys(db, clock);
    this.tokens = new AccessTokens(db, clock);
    this.products = productQueries(db, sqliteDialect);
    this.categories = categoryQueries(db);
    this.brands = brandQueries(db);
    this.contractors = contractorQueries(db, sqliteDialect);
    this.documents = documentQueries(db, sqliteDialect);
    // Commands decide on the same prepared queries the endpoints read with.
    this.state = readModelState(this);
    this.pointInTime = pointInTimeOf(db);
    this.commits = new GroupCommit(db, () => this.projections.saveCheckpoint());
    this.writeTransaction = db.transaction((work: () => Result<unknown>) => {
      const result = decided(work);
      this.projections.saveCheckpoint();
      return result;
    });
  }

  /** Opens (and creates when missing) the database, migrates it and makes the read tables current. */
  static async open(file: string, options: OpenTradebookOptions = {}): Promise<Tradebook> {
    const db = openSqlite(file);
    await migrate(kyselyOf(db));
    const rebuilt = ensureProjections(db);
    if (rebuilt.length > 0) options.onRebuilt?.(rebuilt);
    return new Tradebook(db, options.clock ?? systemClock);
  }

  /**
   * Runs `work` in one IMMEDIATE transaction (it holds the write lock from the start, so concurrent writers
   * queue instead of failing half-way). A failure result rolls everything back; success commits, and with
   * synchronous=FULL the commit is on disk before this returns.
   */
  write<T>(work: () => Result<T>): Result<T> {
    try {
      return this.writeTransaction.immediate(work) as Result<T>;
    } catch (error) {
      return failureOf(error);
    }
  }

  /**
   * `write` for concurrent callers (the server): `work` runs in a savepoint of the next group transaction, and
   * the promise settles once that transaction is on disk. A failure result undoes only this work. The
   * projection checkpoints move once a group (`GroupCommit`'s `beforeCommit`).
   */
  submit<T>(work: () => Result<T>): Promise<Result<T>> {
    return this.commits.run(() => decided(work)).catch(failureOf);
  }

  close(): void {
    this.commits.close();
    if (this.db.open) this.db.close();
  }
}
