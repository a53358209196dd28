import { StorageBusyError, StorageFault, type StorageFaultKind } from '../errors.ts';

/**
 * PostgreSQL's errors that are the storage's, not a request's, by SQLSTATE; read here only, everything above sees
 * the engine-neutral errors of `../errors.ts`.
 */
const FAULTS: Record<string, StorageFaultKind> = {
  '53100': 'full', // disk_full
  '25006': 'read-only', // read_only_sql_transaction: a standby, or a database set read-only
  '58030': 'io', // io_error
};

/** The engine-neutral error `error` stands for; undefined for any other (a bug, a refused statement). */
export function storageErrorOf(error: unknown): StorageBusyError | StorageFault | undefined {
  if (error instanceof StorageBusyError || error instanceof StorageFault) return error;
  const { code, message } = (error ?? {}) as { code?: unknown; message?: unknown };
  if (typeof code !== 'string') return undefined;
  // lock_not_available: a lock wait outlasted the transaction's lock_timeout, the busy budget.
  if (code === '55P03') return new StorageBusyError(`another writer held a lock past the budget (${String(message)})`, { cause: error });
  const kind = FAULTS[code];
  return kind && new StorageFault(kind, `${code}: ${String(message)}`, { cause: error });
}
