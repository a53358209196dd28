import type { StoredEvent } from '../events/rows.ts';
import type { SqlSession } from './sql.ts';

/**
 * The read tables as an engine offers them to the read-models layer above it (`read-models/`), which brings them up,
 * rebuilds, verifies and swaps them: build sites, a build beside the served tables and its swap, the tables at
 * open, a fresh build in a snapshot. An engine knows no read model; it is handed only what applies appended events
 * (`AppendedToReadTables`).
 */

/**
 * Maps a read table's or index's served name to the name it is written under: the served name itself, or (while
 * a rebuild builds new tables beside the served ones in the same database) a prefixed one.
 */
export type TableNames = (name: string) => string;

export const servedNames: TableNames = (name) => name;

/** The read tables against a fresh build of the log. */
export interface ProjectionCheck {
  ok: boolean;
  /** How many read tables were compared. */
  tables: number;
  /** One line for each thing that differs from a fresh rebuild. */
  differences: string[];
}

/** The hash chain walked: the first event whose hash or seq is not what the chain before it makes it, if any. */
export type ChainCheck =
  | { ok: true; events: number }
  | { ok: false; events: number; seq: number; stream: string; problem: string };

/** What `verify` finds: the hash chain walked, and the read tables against a fresh build of the log. */
export interface Verification {
  chain: ChainCheck;
  projections: ProjectionCheck;
}

/** Told as a build or a rebuild goes: events replayed of all. */
export interface RebuildProgress {
  done: number;
  total: number;
}

/** Events one at a time, each answered at once (a SQLite log: an `Iterator`) or later (an `AsyncIterator`). */
export interface EventReader {
  next(): IteratorResult<StoredEvent> | Promise<IteratorResult<StoredEvent>>;
}

/** The events after a seq, as an engine reads them: at once (SQLite) or a page at a time (PostgreSQL). */
export type EventsAfter = (seq: number) => Iterable<StoredEvent> | AsyncIterable<StoredEvent>;

/**
 * Where a build of read tables writes and what it reads: a session and its transactions, and the log as this engine
 * reads it. An engine with a round trip a statement (PostgreSQL) also offers a bulk `load`: the read-models layer
 * then builds the rows in a scratch database and loads them here, rather than applying the log statement by statement.
 */
export interface BuildSite {
  readonly session: SqlSession;
  /** Runs `work` as one transaction on the session's connection (or inside the caller's, where the build is part of it). */
  transaction<T>(work: () => Promise<T>): Promise<T>;
  /** The log up to and including `until`, in order. */
  events(until: number): Iterable<StoredEvent> | AsyncIterable<StoredEvent>;
  /** Inserts `rows` (every column, in the table's order) into `table` in few statements. */
  load?(table: string, rows: Iterable<unknown[]>, columns: number): Promise<void>;
}

/** What a rebuild asks of an engine: a build site beside the served tables, and the swap that puts them in their place. */
export interface BuildBeside {
  /** Drops the tables whose names start with `prefix` (an interrupted rebuild's leftovers). */
  dropTablesNamedWith(prefix: string): Promise<void>;
  /** The seq the log ends at now: the build's end. */
  logEnd(): Promise<number>;
  /** Runs the build `work` on a site in the same database, with this engine's settings for a build (SQLite: no fsync a commit). */
  build(work: (site: BuildSite) => Promise<void>): Promise<void>;
  /**
   * Whether a renamed table's indexes take the served names too (PostgreSQL). Where they cannot (SQLite), the built
   * tables' indexes are dropped by `renameBuilt` and created again in the swap, so a build there leaves its read
   * indexes to the swap.
   */
  readonly renamesIndexes: boolean;
  /**
   * Runs `work` in one transaction under the write lock, on a session of it that also reads the events after a seq:
   * every reader sees the served tables before the swap or after it, never between. `versions` (the read models' names
   * and versions) is recorded as the database's where an engine records it (PostgreSQL).
   */
  swap(versions: string, work: (session: SqlSession, eventsAfter: EventsAfter) => Promise<void>): Promise<void>;
  /** Inside the swap: the served `tables` dropped, the built ones (under `names`) renamed to theirs. */
  renameBuilt(session: SqlSession, tables: readonly string[], names: TableNames): Promise<void>;
}

/** What making the read tables current at open asks of an engine. */
export interface ReadTablesAtOpen {
  /** Reads the checkpoints and the log's end; the catch-up writes through it. */
  session: SqlSession;
  eventsAfter: EventsAfter;
  /** Runs the catch-up as one write under the engine's write lock. */
  inWrite(work: () => Promise<void>): Promise<void>;
  /**
   * Where every table is built at open (a bulk build beats applying the log event by event): beside the served
   * ones and swapped in (SQLite), or in place, inside the open's own write (PostgreSQL).
   */
  buildAll: { beside: BuildBeside } | { inPlace: BuildSite };
  /**
   * Whether tables built by another version of their read model are rebuilt here (SQLite) or left as they are
   * (PostgreSQL, where servers of another release may share the database and its writer refuses to write beside them).
   */
  rebuildChanged: boolean;
}

/** What `verify` asks of an engine: a snapshot to read in, and a fresh build of the read tables beside it. */
export interface FreshBuild {
  /** Runs `work` in one read snapshot of the database, on a session of it; the database is left as it was. */
  snapshot<T>(work: (session: SqlSession) => Promise<T>): Promise<T>;
  /** Runs the build `work` on a site in the snapshot, its tables under `names`; a build that fails leaves nothing. */
  build(work: (site: BuildSite, names: TableNames) => Promise<void>): Promise<void>;
  /** A table of the fresh build, as the snapshot's session names it in a FROM clause. */
  built(table: string): string;
  /** Whether the database has the served table `table`. */
  served(table: string): Promise<boolean>;
  /** The engine's storage error `error` is, if any (the build's disk, the database's): the check could not be made. */
  storageErrorOf(error: unknown): Error | undefined;
}

/** Where the read-models layer brings up, rebuilds and verifies an open engine's read tables. */
export interface ReadTableStore {
  /** Runs `work` with the read tables as they are at open, inside the engine's write where it has one (PostgreSQL). */
  atOpen<T>(work: (at: ReadTablesAtOpen) => Promise<T>): Promise<T>;
  /** A build beside the served tables; once the writes in flight are done, for when no write of this process is (tests, tools). */
  beside(): Promise<BuildBeside>;
  /** Runs `work` with a fresh build beside one snapshot of the database; nothing is left behind. */
  fresh<T>(work: (fresh: FreshBuild) => Promise<T>): Promise<T>;
}

/** How a build writes: in transactions on the target's connection, told its progress. */
export interface BuildSteps {
  /** Runs `work` as one transaction on the session's connection. */
  transaction<T>(work: () => Promise<T>): Promise<T>;
  /** Told after each transaction of the replay; the build goes on once it settles. */
  onProgress?: (done: number) => Promise<void> | void;
  /** Events a transaction. */
  chunk: number;
  /** Whether the build creates the read indexes, after the load. */
  readIndexes: boolean;
}

/** The read models applying a unit's appended events to the served tables, inside its transaction. */
export interface LiveReadModels {
  apply(events: StoredEvent[]): Promise<void>;
  /** Moves the checkpoints once a write transaction, before its commit. */
  saveCheckpoint(): Promise<void>;
}

/**
 * What an engine is handed of the read models above it, as an event store is handed its projections: what applies a
 * unit's appended events to the served tables in its transaction, and the read models' versions.
 */
export interface AppendedToReadTables {
  /** The read models' names and versions as one string: two processes keep the same read models when theirs are equal. */
  readonly versions: string;
  /** Applies appended events to the served tables through `session`. */
  live(session: SqlSession): LiveReadModels;
}
