import { StorageFault, type StorageFaultKind } from './errors.ts';

/**
 * Faults of the storage under a database file (a SQLite database, a build's scratch file), as opposed to bugs: the disk is full, the file or its file
 * system cannot be written, the disk reports an I/O error. SQLite's and the file system's error codes are read
 * here only; everything above sees a `StorageFault` and its `kind`.
 */

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
