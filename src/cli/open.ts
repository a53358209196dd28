import { type AuditReads, auditReads } from '../audit/reads.ts';
import type { HistoryEntry } from '../audit/history.ts';
import { Company } from '../company.ts';
import { databaseSetting } from '../storage/database.ts';
import { openKeys, openLog } from '../storage/open-engine.ts';
import { readModels } from '../read-models/read-models.ts';
import { systemClock } from '../lib/clock.ts';
import { ApiKeys } from '../tokens/api-keys.ts';

/** Told on standard error: the read tables an open built, and why. */
const onBuilt = (line: string) => process.stderr.write(`${line}\n`);

/**
 * The API keys of the database TRADEBOOK_DB names, on either engine. Commands that only make sense on an existing
 * database (`mustExist`: listing or revoking keys) refuse a path where there is none, instead of creating an empty
 * one; `keys create` creates it with its folder, as the server does.
 */
export async function openKeysForCli(options: { mustExist?: boolean } = {}): Promise<{ keys: ApiKeys; close(): Promise<void> }> {
  const { keys, writer, close } = await openKeys(databaseSetting(), readModels, { ...options, onBuilt });
  return { keys: new ApiKeys(keys, systemClock, writer), close };
}

/** The event log of the database TRADEBOOK_DB names, read a page at a time, and its length, on either engine. */
export async function openLogForCli(): Promise<Pick<AuditReads, 'eventsAfter' | 'lastSeq'> & { close(): Promise<void> }> {
  const { readOn, close } = await openLog(databaseSetting(), readModels);
  const audit = auditReads(readOn);
  return { eventsAfter: audit.eventsAfter, lastSeq: audit.lastSeq, close };
}

/** One record's history (each event, who, each field before → after) from the database TRADEBOOK_DB names, on either engine. */
export async function openHistoryForCli(): Promise<{ history(stream: string): Promise<HistoryEntry[]>; close(): Promise<void> }> {
  const { readOn, close } = await openLog(databaseSetting(), readModels);
  return { history: auditReads(readOn).history, close };
}

/** The company in the database TRADEBOOK_DB names, on either engine, its read tables current (the commands that write). */
export function openCompanyForCli(): Promise<Company> {
  return Company.open(databaseSetting(), { onBuilt });
}

/** A usage or environment problem (a bad option, a missing file or database): one line, exit status 2. */
export class UsageError extends Error {}

export function parseWholeNumber(text: string, what: string): number {
  if (!/^\d{1,16}$/.test(text)) throw new UsageError(`${what} must be a whole number, got ${text}`);
  return Number(text);
}
