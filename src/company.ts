import type { Clock } from './lib/clock.ts';
import type { Result } from './lib/result.ts';
import type { AuditReads } from './audit/reads.ts';
import { brandQueries } from './projections/brands.ts';
import { bulkReads } from './projections/bulk-reads.ts';
import { categoryQueries } from './projections/categories.ts';
import { contractorQueries } from './projections/contractors/queries.ts';
import { documentQueries } from './projections/documents/queries.ts';
import { productQueries } from './projections/products/queries.ts';
import type { StorageBusyError, StorageFault } from './storage/errors.ts';
import type { EventLog, KeyStore, SessionStore, TokenStore, Writer } from './storage/port.ts';
import type { SqlSession } from './storage/sql.ts';
import { AccessTokens } from './tokens/access-tokens.ts';
import { ApiKeys } from './tokens/api-keys.ts';
import type { KeyCache } from './tokens/key-cache.ts';
import { AuditSessions } from './tokens/audit-sessions.ts';
import type { StateSource } from './use-cases/batch-state.ts';
import { readModelState } from './use-cases/read-model-state.ts';
import type { WriteContext } from './use-cases/write-context.ts';

/** What an engine gives a company: its writer and log, a session inside the writer's units and one outside, its stores. */
export interface CompanyStorage {
  writer: Writer;
  log: EventLog;
  /** Reads the commands decide on: inside a unit of the writer, under its lock, seeing the unit's group. */
  decideOn: SqlSession;
  /** Reads the endpoints serve: committed work only. */
  readOn: SqlSession;
  keys: KeyStore;
  tokens: TokenStore;
  /** The keys requests were let in with, kept while the engine tells of changes (none: every key read each time). */
  keyCache?: KeyCache;
  sessions: SessionStore;
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

/**
 * One company's trade records, open on an engine (`Tradebook`: SQLite, `PostgresTradebook`): everything the HTTP
 * interface and the use cases need, the same on every engine. An engine supplies its storage; the read queries,
 * the state commands decide on, the keys and the tokens are built here alike for each.
 */
export abstract class Company implements WriteContext {
  readonly writer: Writer;
  readonly log: EventLog;
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
  abstract readonly audit: AuditReads;
  /** Set in a point-in-time copy (the seq its log ends at): such a database refuses writes. */
  abstract readonly pointInTime: number | undefined;
  /**
   * Names an error of this engine's storage as the engine-neutral error it is: a `StorageFault` (disk full,
   * read-only, failing) or a `StorageBusyError` (a lock held too long, a connection lost: nothing applied, try
   * again); undefined for any other.
   */
  abstract readonly storageErrorOf: (error: unknown) => StorageFault | StorageBusyError | undefined;

  constructor(
    storage: CompanyStorage,
    readonly clock: Clock,
  ) {
    this.writer = storage.writer;
    this.log = storage.log;
    this.keyCache = storage.keyCache;
    this.keys = new ApiKeys(storage.keys, clock, storage.writer, storage.keyCache);
    this.tokens = new AccessTokens(storage.tokens, clock);
    this.sessions = new AuditSessions(storage.sessions, this.keys, clock, storage.writer);
    const reads = storage.readOn;
    this.products = productQueries(reads);
    this.categories = categoryQueries(reads);
    this.brands = brandQueries(reads);
    this.contractors = contractorQueries(reads);
    this.documents = documentQueries(reads);
    const decideOn = storage.decideOn;
    const deciding = {
      products: productQueries(decideOn),
      categories: categoryQueries(decideOn),
      brands: brandQueries(decideOn),
      contractors: contractorQueries(decideOn),
      documents: documentQueries(decideOn),
    };
    this.state = { ...readModelState(deciding), ...bulkReads(decideOn) };
  }

  /**
   * Runs `work` as a unit of the writer's next group (its own savepoint) and settles once the group is durable.
   * A failure result undoes only this work.
   */
  write<T>(work: () => Promise<Result<T>>): Promise<Result<T>> {
    return this.writer.run(() => decided(work)).catch(failureOf);
  }

  /** The read models whose tables are not current: missing, of another version, or behind the log. */
  abstract staleProjections(): Promise<string[]>;

  abstract close(): void | Promise<void>;
}
