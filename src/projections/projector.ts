import type { Sqlite } from '../db/open.ts';
import type { StoredEvent } from '../events/store.ts';

/**
 * A read model: the tables it owns, how to create them, and how one event changes them.
 * `version` is bumped whenever the tables or the way events map onto them change; a stored version that
 * differs from the code's makes the projection rebuild from the log.
 */
export interface Projector {
  name: string;
  version: number;
  tables: string[];
  schema: string[];
  /** Prepares the statements once for a connection and returns the event handler. Must be idempotent per event. */
  bind(db: Sqlite): EventHandler;
}

/**
 * Applies one event to a projector's tables. A handler may defer part of the work (rendering a record's views
 * once however many events touched it) until its `flush`, which `Projections` calls before the transaction
 * commits: after every appended record, and once at the end of a rebuild. `discard` forgets deferred work
 * when applying failed (its transaction is rolled back).
 */
export type EventHandler = ((event: StoredEvent) => void) & { flush?: () => void; discard?: () => void };
