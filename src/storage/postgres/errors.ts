import { shownUrl } from '../database.ts';
import { DatabaseUnreachable, StorageBusyError, StorageFault, type StorageFaultKind } from '../errors.ts';

/**
 * PostgreSQL's errors that are the storage's, not a request's, by SQLSTATE; read here only, everything above sees
 * the engine-neutral errors of `../errors.ts`.
 */
const FAULTS: Record<string, StorageFaultKind> = {
  '53100': 'full', // disk_full
  '25006': 'read-only', // read_only_sql_transaction: a standby, or a database set read-only
  '58030': 'io', // io_error
};

/**
 * Codes of a connection lost in the middle of its work: postgres.js's, the network's, the server's shutting
 * down or restarting (57P01–57P03), and a statement left unanswered (`connection.ts`). A transaction open on it is rolled back by the server.
 */
const CONNECTION_LOST = new Set(['CONNECTION_CLOSED', 'CONNECTION_DESTROYED', 'CONNECTION_ENDED', 'CONNECTION_STALLED', 'ECONNRESET', 'EPIPE', '57P01', '57P02', '57P03']);

export const connectionLost = (error: unknown) => CONNECTION_LOST.has(String((error as { code?: unknown } | null)?.code));

/** The engine-neutral error `error` stands for; undefined for any other (a bug, a refused statement). */
export function storageErrorOf(error: unknown): StorageBusyError | StorageFault | undefined {
  if (error instanceof StorageBusyError || error instanceof StorageFault) return error;
  const { code, message } = (error ?? {}) as { code?: unknown; message?: unknown };
  if (typeof code !== 'string') return undefined;
  // Before COMMIT was sent nothing was applied, and the next attempt connects again (the writer tells a COMMIT's
  // loss apart: its outcome is unknown).
  if (connectionLost(error)) return new StorageBusyError(`the connection to the database was lost (${String(message)})`, { cause: error });
  // lock_not_available: a lock wait outlasted the transaction's lock_timeout, the busy budget.
  if (code === '55P03') return new StorageBusyError(`another writer held a lock past the budget (${String(message)})`, { cause: error });
  const kind = FAULTS[code];
  return kind && new StorageFault(kind, `${code}: ${String(message)}`, { cause: error });
}

/**
 * Codes of a connection that could not be made: the network's (refused, unknown host, unreachable, timed out),
 * postgres.js's (`CONNECT_TIMEOUT`, a URL it cannot parse) and the server's (no such database, starting up, too
 * many connections). SQLSTATE classes 08 (connection) and 28 (login refused) count whole.
 */
const UNREACHABLE = new Set([
  'ECONNREFUSED', 'ECONNRESET', 'ENOTFOUND', 'EAI_AGAIN', 'ETIMEDOUT', 'EHOSTUNREACH', 'ENETUNREACH',
  'CONNECT_TIMEOUT', 'ERR_INVALID_URL', '3D000', '57P03', '53300',
]);

/**
 * `error` as `DatabaseUnreachable` when it says that `url` could not be connected to; undefined for any other. Asked
 * of the first statement's error only: a FATAL one there is the server refusing the connection itself (a setting
 * the URL names that it does not know, a value it refuses), since a statement's own errors are not FATAL.
 */
export function unreachableOf(error: unknown, url: string): DatabaseUnreachable | undefined {
  const { code, message, severity } = (error ?? {}) as { code?: unknown; message?: unknown; severity?: unknown };
  if (typeof code !== 'string' || !(UNREACHABLE.has(code) || code.startsWith('08') || code.startsWith('28') || severity === 'FATAL')) return undefined;
  return new DatabaseUnreachable(`cannot connect to ${shownUrl(url)}: ${String(message)}`, { cause: error });
}
