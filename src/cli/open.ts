import fs from 'node:fs';
import { type Sqlite, openSqlite } from '../storage/sqlite/open.ts';
import { Tradebook } from '../tradebook.ts';
import { auditReads } from '../audit/reads.ts';
import { asyncReads } from '../storage/async-reads.ts';

/** The database the command line works on: TRADEBOOK_DB, as for the server. */
export function databasePath(): string {
  return process.env.TRADEBOOK_DB || 'data/tradebook.db';
}

/**
 * The database for a command that writes or reads through the service. Commands that only make sense on an
 * existing database (`mustExist`: listing or revoking keys) refuse a path where there is none, instead of creating
 * an empty one; the others (`keys create`, `import`, `seed`) create it with its folder, as the server does.
 */
export async function openForCli(options: { mustExist?: boolean } = {}): Promise<Tradebook> {
  if (options.mustExist) refuseMissing();
  return Tradebook.open(databasePath(), { onRebuilt: (names) => process.stderr.write(`rebuilt projections: ${names.join(', ')}\n`) });
}

function refuseMissing(): void {
  const file = databasePath();
  if (!fs.existsSync(file)) throw new UsageError(`no database at ${file} (set TRADEBOOK_DB)`);
}

/** The database as it is, read-only, for the commands that only look (events, history, verify). */
export function openExistingReadonly(): Sqlite {
  refuseMissing();
  return openSqlite(databasePath(), { readonly: true });
}

/** The log and records' histories of the database as it is, read-only, through the audit reads (events, history). */
export function openAuditReadsForCli() {
  const db = openExistingReadonly();
  return { audit: asyncReads(auditReads(db)), close: () => db.close() };
}

/** A usage or environment problem (a bad option, a missing file or database): one line, exit status 2. */
export class UsageError extends Error {}

export function parseWholeNumber(text: string, what: string): number {
  if (!/^\d{1,16}$/.test(text)) throw new UsageError(`${what} must be a whole number, got ${text}`);
  return Number(text);
}
