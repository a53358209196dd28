import { type AuditReads, auditReads } from '../audit/reads.ts';
import { type DatabaseSetting, databaseSetting } from '../storage/database.ts';
import { Company, releaseReadModels } from '../company.ts';
import { openLog } from '../storage/open-engine.ts';
import { openKeys } from '../read-models/open.ts';
import { systemClock } from '../lib/clock.ts';
import { ApiKeys } from '../tokens/api-keys.ts';

/** The `--db` of this run of the command line, when it was given (`chooseDatabase`). */
let databaseOption: string | undefined;

/** Every command's database from here on: `--db` when given (`undefined`: TRADEBOOK_DB). Set once a run, before its action. */
export function chooseDatabase(option: string | undefined): void {
  databaseOption = option;
}

/** The database the command line works on: `--db`, else TRADEBOOK_DB, else data/tradebook.db. */
export function cliDatabase(): DatabaseSetting {
  return databaseSetting(databaseOption ?? process.env.TRADEBOOK_DB);
}

/** Told on standard error: the read tables an open built, and why. */
const onBuilt = (line: string) => process.stderr.write(`${line}\n`);

/**
 * The API keys of the command line's database (`cliDatabase`), on either engine. Commands that only make sense on an existing
 * database (`mustExist`: listing or revoking keys) refuse a path where there is none, instead of creating an empty
 * one; `keys create` creates it with its folder, as the server does.
 */
export async function openKeysForCli(options: { mustExist?: boolean } = {}): Promise<{ keys: ApiKeys; close(): Promise<void> }> {
  const { keys, writer, close } = await openKeys(cliDatabase(), releaseReadModels, { ...options, onBuilt });
  return { keys: new ApiKeys(keys, systemClock, writer), close };
}

/** The event log of the command line's database, read a page or a record at a time, and its length, on either engine. */
export async function openLogForCli(): Promise<Pick<AuditReads, 'eventsAfter' | 'streamVersions' | 'lastSeq'> & { close(): Promise<void> }> {
  const { readOn, close } = await openLog(cliDatabase());
  const audit = auditReads(readOn);
  return { eventsAfter: audit.eventsAfter, streamVersions: audit.streamVersions, lastSeq: audit.lastSeq, close };
}

/** One record's history (each event, who, each field before → after) from the command line's database, on either engine. */
export async function openHistoryForCli(): Promise<Pick<AuditReads, 'wholeHistory'> & { close(): Promise<void> }> {
  const { readOn, close } = await openLog(cliDatabase());
  return { wholeHistory: auditReads(readOn).wholeHistory, close };
}

/** The company in the command line's database, on either engine, its read tables current (the commands that write). */
export function openCompanyForCli(): Promise<Company> {
  return Company.open(cliDatabase(), { onBuilt });
}

/** A usage or environment problem (a bad option, a missing file or database): one line, exit status 2. */
export class UsageError extends Error {}

export function parseWholeNumber(text: string, what: string): number {
  if (!/^\d{1,16}$/.test(text)) throw new UsageError(`${what} must be a whole number, got ${text}`);
  return Number(text);
}
