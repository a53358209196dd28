/**
 * What can become of a write for reasons of the storage, not of the request, as every engine names it: the
 * write lock stayed taken, the commit was not confirmed by the disk, the disk is full, read-only or failing.
 * Each engine turns its own errors into these (SQLite's and the file system's: `storage-fault.ts`); everything above sees
 * only these.
 */

/** How long a write waits for another process's write lock before it fails as busy, on every engine. */
export const BUSY_BUDGET_MS = 10_000;

/** Another process held the write lock past the budget: nothing was applied. */
export class StorageBusyError extends Error {}

/** The group committed, but the disk did not confirm it: whether its writes survive a crash is unknown. */
export class NotDurableError extends Error {
  constructor(cause: unknown) {
    super(`the write was committed but the disk did not confirm it (${(cause as Error)?.message ?? String(cause)})`, { cause });
  }
}

/** This process's read models are other versions than those the database's read tables were built by. */
export class ReadModelsDifferError extends Error {
  constructor(ours: string, theirs: string) {
    super(`writes are refused: this server keeps read models ${ours}, the database's are ${theirs}; upgrade the server, or rebuild the read tables with this version`);
  }
}

export type StorageFaultKind = 'full' | 'read-only' | 'io';

const WHY: Record<StorageFaultKind, string> = {
  full: 'the disk holding the database is full',
  'read-only': 'the database cannot be written: its file, folder or file system is read-only',
  io: 'the disk holding the database reported an error',
};

export class StorageFault extends Error {
  constructor(
    readonly kind: StorageFaultKind,
    detail: string,
    options?: ErrorOptions,
  ) {
    super(`${WHY[kind]} (${detail})`, options);
  }
}

/**
 * Reports a failure once when it starts (and again only when it changes), and once when the work succeeds again:
 * a fault met on every attempt (each write, each background checkpoint) is not logged each time. Storage faults
 * count as one while their kind stays the same; other errors while their message does.
 */
export class FaultLog {
  private current: string | undefined;

  constructor(
    /** What fails, for the log line: `writes`, `background checkpoints`. */
    private readonly what: string,
    private readonly report: (line: string) => void,
  ) {}

  failed(error: unknown): void {
    const fault = error instanceof StorageFault ? error : undefined;
    const message = fault?.message ?? String((error as Error | undefined)?.message ?? error);
    const key = fault?.kind ?? message;
    if (this.current === key) return;
    this.current = key;
    this.report(`${fault ? 'storage fault: ' : ''}${this.what} fail: ${message}`);
  }

  succeeded(): void {
    if (this.current === undefined) return;
    this.current = undefined;
    this.report(`${this.what} succeed again`);
  }
}

/**
 * The database could not be reached: its server is down or unknown, refuses the login, or has no such database.
 * An environment problem for the operator to fix, told in one line.
 */
export class DatabaseUnreachable extends Error {}

/** The file named as the database is not one (a text file, another program's data): told in one line. */
export class NotADatabase extends Error {
  constructor(file: string, detail: string) {
    super(`${file} is not a tradebook database (${detail})`);
  }
}

/** Whether `error` is the storage's (a group of writes failed as a whole), not a fault of one piece of work. */
export function isStorageError(error: unknown): boolean {
  return error instanceof StorageBusyError || error instanceof NotDurableError || error instanceof StorageFault;
}
