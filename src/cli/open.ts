import fs from 'node:fs';
import { type Sqlite, openSqlite } from '../storage/sqlite/open.ts';
import { Tradebook } from '../tradebook.ts';
import { auditReads } from '../audit/reads.ts';
import { asyncReads } from '../storage/async-reads.ts';

/** The database the command line works on: TRADEBOOK_DB, as for the server. */
export function databasePath(): string {
  return process.env.TRADEBOOK_DB || 'data/tradebook.db';
}

export async function openForCli(): Promise<Tradebook> {
  return Tradebook.open(databasePath(), { onRebuilt: (names) => process.stderr.write(`rebuilt projections: ${names.join(', ')}\n`) });
}

/** The database as it is, read-only, for the commands that only look (events, history, verify). */
export function openExistingReadonly(): Sqlite {
  const file = databasePath();
  if (!fs.existsSync(file)) throw new UsageError(`no database at ${file} (set TRADEBOOK_DB)`);
  return openSqlite(file, { readonly: true });
}

/** The log and records' histories of the database as it is, read-only, through the audit reads (events, history). */
export function openAuditReadsForCli() {
  const db = openExistingReadonly();
  return { audit: asyncReads(auditReads(db)), close: () => db.close() };
}

/** A usage problem: printed without a stack trace, exit status 2. */
export class UsageError extends Error {}

export function parseWholeNumber(text: string, what: string): number {
  if (!/^\d{1,16}$/.test(text)) throw new UsageError(`${what} must be a whole number, got ${text}`);
  return Number(text);
}
