/**
 * Faults of the storage under the database, as opposed to bugs: the disk is full, the file or its file system
 * cannot be written, the disk reports an I/O error. SQLite's and the file system's error codes are read here
 * only; everything above sees a `StorageFault` and its `kind`.
 */

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

function kindOfCode(code: string): StorageFaultKind | undefined {
  if (code === 'SQLITE_FULL' || code === 'ENOSPC' || code === 'EDQUOT') return 'full';
  if (code.startsWith('SQLITE_READONLY') || code === 'EROFS' || code === 'EACCES' || code === 'EPERM') return 'read-only';
  if (code.startsWith('SQLITE_IOERR') || code.startsWith('SQLITE_CANTOPEN') || code === 'EIO') return 'io';
  return undefined;
}

/** The storage fault `error` is (a StorageFault, or an error SQLite or the file system raised for one); undefined for anything else. */
export function storageFaultOf(error: unknown): StorageFault | undefined {
  if (error instanceof StorageFault) return error;
  const { code, message } = (error ?? {}) as { code?: unknown; message?: unknown };
  const kind = typeof code === 'string' ? kindOfCode(code) : undefined;
  return kind && new StorageFault(kind, `${code}: ${String(message)}`, { cause: error });
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
    const fault = storageFaultOf(error);
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
