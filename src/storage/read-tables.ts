import type { StoredEvent } from '../events/rows.ts';
import type { ReadModelDialect } from './dialect.ts';
import type { SqlSession } from './sql.ts';

/**
 * What an engine is handed of the read models above it (`ReadModels`), and the shapes in which it hands its own
 * part back to them: a build beside the served tables and its swap, the read tables at open, a fresh build for
 * `verify`. The engines know no read model by name; `read-models/` builds, rebuilds, verifies and swaps through
 * these.
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

/** What a rebuild asks of an engine: a build beside the served tables, and the swap that puts it in their place. */
export interface BuildBeside {
  /** Drops the tables whose names start with `prefix` (an interrupted rebuild's leftovers). */
  dropTablesNamedWith(prefix: string): Promise<void>;
  /** The seq the log ends at now: the build's end. */
  logEnd(): Promise<number>;
  /** Every read table and its checkpoints built from the log up to `until`, under `names`, beside the served ones. */
  build(names: TableNames, until: number, onProgress?: (progress: RebuildProgress) => void): Promise<void>;
  /**
   * Runs `work` in one transaction under the write lock, on a session of it that also reads the events after a seq:
   * every reader sees the served tables before the swap or after it, never between.
   */
  swap(work: (session: SqlSession, eventsAfter: EventsAfter) => Promise<void>): Promise<void>;
  /** Inside the swap: the served read tables dropped, the built ones (`names`) renamed to theirs, with their indexes. */
  renameBuilt(session: SqlSession, names: TableNames): Promise<void>;
}

/** What making the read tables current at open asks of an engine. */
export interface ReadTablesAtOpen {
  /** Reads the checkpoints and the log's end; the catch-up writes through it. */
  session: SqlSession;
  eventsAfter: EventsAfter;
  /** Builds every table, with its read indexes, from the whole log up to `end` (a bulk build beats applying it event by event). */
  buildAll(end: number): Promise<void>;
  /** Runs the catch-up as one write under the engine's write lock. */
  inWrite(work: () => Promise<void>): Promise<void>;
  /**
   * Whether tables built by another version of their read model are rebuilt here (SQLite) or left as they are
   * (PostgreSQL, where servers of another release may share the database and its writer refuses to write beside them).
   */
  rebuildChanged: boolean;
}

/** The read models whose tables were built at open, and why; the log's end when the check was made. */
export interface BuiltAtOpen {
  missing: string[];
  changed: string[];
  end: number;
}

/** What `verify` asks of an engine: a snapshot to read in, and a fresh build of the read tables beside it. */
export interface FreshBuild {
  /** Runs `work` in one read snapshot of the database, on a session of it; the database is left as it was. */
  snapshot<T>(work: (session: SqlSession) => Promise<T>): Promise<T>;
  /** Builds every read table from the log up to `until`, in the snapshot; a build that fails leaves nothing. */
  build(until: number): Promise<void>;
  /** A table of the fresh build, as the snapshot's session names it in a FROM clause. */
  built(table: string): string;
  /** Whether the database has the served table `table`. */
  served(table: string): Promise<boolean>;
  /** The engine's storage error `error` is, if any (the build's disk, the database's): the check could not be made. */
  storageErrorOf(error: unknown): Error | undefined;
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

/** Where a build by way of a scratch database loads its rows: an engine with a round trip a statement. */
export interface LoadTarget {
  readonly session: SqlSession;
  /** Inserts `rows` (every column, in the table's order) into `table` in few statements. */
  load(table: string, rows: Iterable<unknown[]>, columns: number): Promise<void>;
}

/** The read models applying a unit's appended events to the served tables, inside its transaction. */
export interface LiveReadModels {
  apply(events: StoredEvent[]): Promise<void>;
  /** Moves the checkpoints once a write transaction, before its commit. */
  saveCheckpoint(): Promise<void>;
}

/** The read models an engine is opened with: what it asks of them, without knowing any. */
export interface ReadModels {
  /** Every read table's served name. */
  readonly tables: readonly string[];
  /** The read models' names and versions as one string: two processes keep the same read models when theirs are equal. */
  readonly versions: string;
  /** The indexes of the served tables that queries name, as statements creating them. */
  servedIndexes(dialect: ReadModelDialect): string[];
  /** Applies appended events to the served tables through `session`. */
  live(session: SqlSession): LiveReadModels;
  /** The read models whose tables are not current: missing, of another version, or behind the log. */
  stale(session: SqlSession): Promise<string[]>;
  /** Makes the read tables current before anything is served. */
  bringUp(engine: ReadTablesAtOpen): Promise<BuiltAtOpen>;
  /** Every read table rebuilt beside the served ones and swapped in; settles with the number of events replayed. */
  rebuild(beside: BuildBeside, options?: { onProgress?: (progress: RebuildProgress) => void }): Promise<{ events: number }>;
  /** The chain and the read tables against a fresh build, in one snapshot. */
  verify(fresh: FreshBuild): Promise<Verification>;
  /** Builds every read table under `names` on `session` from `events` (an engine that applies an event without a round trip). */
  build(session: SqlSession, names: TableNames, events: EventReader, steps: BuildSteps): Promise<number>;
  /**
   * Builds every read table from `events` (the log up to `until`) by way of a scratch database and loads the rows
   * into `target` under `names`, a table a `transaction`, checkpoints set at `until`; the read indexes are the caller's.
   */
  buildViaScratch(events: AsyncIterable<StoredEvent>, until: number, target: LoadTarget, names: TableNames, transaction: <T>(work: () => Promise<T>) => Promise<T>): Promise<void>;
  /** Creates every served read table, empty, with its read indexes and checkpoints at `lastSeq` (a new database). */
  createTables(session: SqlSession, lastSeq: number): Promise<void>;
  /** Creates the read indexes of the tables under `names`. */
  createReadIndexes(session: SqlSession, names: TableNames): Promise<void>;
}
