import fs from 'node:fs';
import { type Sqlite, openSqlite } from '../storage/sqlite/open.ts';
import { Tradebook } from '../tradebook.ts';

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

/** A usage problem: printed without a stack trace, exit status 2. */
export class UsageError extends Error {}

export function parseWholeNumber(text: string, what: string): number {
  if (!/^\d{1,16}$/.test(text)) throw new UsageError(`${what} must be a whole number, got ${text}`);
  return Number(text);
}
