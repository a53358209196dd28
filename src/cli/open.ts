import fs from 'node:fs';
import { type Sqlite, openSqlite } from '../storage/sqlite/open.ts';
import { Tradebook } from '../tradebook.ts';
import { type AuditReads, auditReads } from '../audit/reads.ts';
import type { HistoryEntry } from '../audit/history.ts';
import { sqliteSession } from '../storage/sqlite/session.ts';
import { postgresSession } from '../storage/postgres/session.ts';
import { databaseSetting } from '../storage/database.ts';
import type { Company } from '../company.ts';
import { openCompany } from '../open-company.ts';
import { type LogAndKeys, openLogAndKeys } from '../storage/postgres/log-and-keys.ts';

/** The SQLite file the command line works on (TRADEBOOK_DB, as for the server), for the commands that run on SQLite only. */
export function databasePath(): string {
  const setting = databaseSetting();
  if (setting.engine !== 'sqlite') throw new Error(`a SQLite-only command reached ${setting.engine}`);
  return setting.file;
}

/** The API keys of the database TRADEBOOK_DB names, on either engine; `mustExist` as for `openForCli`. */
export async function openKeysForCli(options: { mustExist?: boolean } = {}): Promise<Pick<LogAndKeys, 'keys' | 'close'>> {
  const setting = databaseSetting();
  if (setting.engine === 'postgres') return openLogAndKeys(setting.url);
  const tb = await openForCli(options);
  return { keys: tb.keys, close: async () => tb.close() };
}

/** The event log of the database TRADEBOOK_DB names, read a page at a time, and its length, on either engine. */
export async function openLogForCli(): Promise<Pick<AuditReads, 'eventsAfter' | 'lastSeq'> & { close(): Promise<void> }> {
  const { audit, close } = await openAuditForCli();
  return { eventsAfter: audit.eventsAfter, lastSeq: audit.lastSeq, close };
}

/** One record's history (each event, who, each field before → after) from the database TRADEBOOK_DB names, on either engine. */
export async function openHistoryForCli(): Promise<{ history(stream: string): Promise<HistoryEntry[]>; close(): Promise<void> }> {
  const { audit, close } = await openAuditForCli();
  return { history: audit.history, close };
}

/** The auditors' reads of the database TRADEBOOK_DB names, as it is, on either engine. */
async function openAuditForCli(): Promise<{ audit: AuditReads; close(): Promise<void> }> {
  const setting = databaseSetting();
  if (setting.engine === 'sqlite') return openAuditReadsForCli();
  const pg = await openLogAndKeys(setting.url);
  return { audit: auditReads(postgresSession(() => pg.pool)), close: pg.close };
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

/** The company in the database TRADEBOOK_DB names, on either engine, its read tables current (the commands that write). */
export async function openCompanyForCli(): Promise<Company> {
  const setting = databaseSetting();
  if (setting.engine === 'sqlite') return openForCli();
  return openCompany(setting, { onBuilt: (line) => process.stderr.write(`${line}\n`) });
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

/** The log and records' histories of the SQLite database as it is, read-only, through the audit reads. */
function openAuditReadsForCli() {
  const db = openExistingReadonly();
  return {
    audit: auditReads(sqliteSession(db)),
    close: async () => {
      db.close();
    },
  };
}

/** A usage or environment problem (a bad option, a missing file or database): one line, exit status 2. */
export class UsageError extends Error {}

export function parseWholeNumber(text: string, what: string): number {
  if (!/^\d{1,16}$/.test(text)) throw new UsageError(`${what} must be a whole number, got ${text}`);
  return Number(text);
}
