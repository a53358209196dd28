import type { Clock } from '../lib/clock.ts';
import type { FreshBuild, ReadTableStore } from './read-tables.ts';
import type { LogChangeSource } from './log-changes.ts';
import type { CopySource, CopyTarget } from './copy.ts';
import type { KeyChangeSource } from './key-changes.ts';
import type { StorageBusyError, StorageFault } from './errors.ts';
import type { EventLog, KeyStore, SessionStore, TokenStore, Writer } from './port.ts';
import type { SqlSession } from './sql.ts';

/**
 * The engine port: what a company and the commands need of a database, whichever engine holds it. The adapters are
 * `sqlite/engine.ts` and `postgres/engine.ts`; `open-engine.ts` chooses one from `TRADEBOOK_DB`. Nothing above
 * `storage/` sees more of an engine than this.
 */

/** What opening an engine for a company is told. */
export interface EngineOptions {
  clock?: Clock;
  /** Told once when writes start failing for a storage fault, once when they succeed again (SQLite's group commit). */
  onStorageFault?: (line: string) => void;
  /** PostgreSQL: a statement unanswered this long is abandoned with its connections (none: waited for). */
  stallMs?: number;
  /** Called with every statement the database executes (SQLite; tests count a request's statements). */
  trace?: (sql: string) => void;
}

/**
 * A database open for a company: migrated, its writer ready, its appends applied to the read tables it was handed
 * (`AppendedToReadTables`). The read-models layer brings those tables up through `readTables` before anything is
 * served, and rebuilds and verifies them there.
 */
export interface Engine {
  /** The one writer of the database: every unit of work goes through it. */
  readonly writer: Writer;
  /** The log: appends inside the writer's units, the read tables applied in the same transaction. */
  readonly log: EventLog;
  /** Reads the commands decide on: inside a unit of the writer, under its lock, seeing the unit's group. */
  readonly decideOn: SqlSession;
  /** Reads the endpoints serve: committed work only. */
  readonly readOn: SqlSession;
  readonly keys: KeyStore;
  readonly tokens: TokenStore;
  readonly sessions: SessionStore;
  /** Set in a point-in-time copy (the seq its log ends at): such a database refuses writes. */
  readonly pointInTime: number | undefined;
  /**
   * Key changes made by other processes, heard within `everyMs`; undefined where the engine cannot tell of them
   * (PGlite): every key is then read each time.
   */
  keyChanges(everyMs: number): KeyChangeSource | undefined;
  /**
   * Commits of other processes, heard within `everyMs` (SQLite) or as they happen (PostgreSQL's NOTIFY);
   * undefined where the engine cannot tell of them (PGlite): followers are then woken by polling.
   */
  logChanges(everyMs: number): LogChangeSource | undefined;
  /**
   * Names an error of this engine's storage as the engine-neutral error it is: a `StorageFault` (disk full,
   * read-only, failing) or a `StorageBusyError` (a lock held too long, a connection lost: nothing applied, try
   * again); undefined for any other.
   */
  storageErrorOf(error: unknown): StorageFault | StorageBusyError | undefined;
  /** Where the read-models layer brings up, rebuilds and verifies the read tables. */
  readonly readTables: ReadTableStore;
  /** Starts what a long-running server needs beside its requests (SQLite: lock waits off the event loop, checkpoints on a thread). */
  serve(log: (line: string) => void): { stop(): Promise<void> };
  close(): Promise<void>;
}

/**
 * A database as it is, for the commands that only look or copy: nothing migrated, nothing built, nothing written
 * (`events`, `history`, `verify`, a copy's source, `backup`).
 */
export interface StoredDatabase {
  /** The log and the keys as they are stored (`audit/reads.ts` reads them). */
  readonly readOn: SqlSession;
  /** Runs `work` with a fresh build of the read tables beside one snapshot (`verify`); nothing is left behind. */
  fresh<T>(work: (fresh: FreshBuild) => Promise<T>): Promise<T>;
  /** The log and keys in one snapshot, held until `close`. */
  copySource(): Promise<CopySource>;
  /** A consistent copy written to a new file while servers keep writing; undefined where the engine's own tools do that. */
  backup?(file: string): Promise<{ pages: number }>;
  close(): Promise<void>;
}

/** An empty database a company is copied into; nothing is opened before `load`. */
export interface CopyDestination {
  readonly copy: CopyTarget;
  close(): Promise<void>;
}
