import { COMPANY_STREAM, type CompanyDetails } from '../records/company/events.ts';
import { evolveCompanyDetails } from '../records/company/evolve.ts';
import type { StoredEvent } from '../events/store.ts';

/**
 * The company's details in force on `date` (YYYY-MM-DD): of the settings whose `from` is that day or earlier, the
 * one from the latest day, the last recorded of that day; undefined before any. The `company` stream is a few
 * events, folded on every read: no read table to keep or rebuild.
 */
export function companyDetailsOn(events: readonly StoredEvent[], date: string): CompanyDetails | undefined {
  let found: CompanyDetails | undefined;
  for (const event of events) {
    if (event.type !== 'CompanyDetailsSet') continue;
    const details = evolveCompanyDetails(event);
    if (details.from <= date && (found === undefined || details.from >= found.from)) found = details;
  }
  return found;
}

/** The company's details on `date`, read from the log. */
export async function readCompanyDetails(audit: { streamVersions(stream: string, from: number, to: number): Promise<StoredEvent[]> }, date: string): Promise<CompanyDetails | undefined> {
  // The company's record holds a setting per change of its details: few events, read whole.
  return companyDetailsOn(await audit.streamVersions(COMPANY_STREAM, 1, Number.MAX_SAFE_INTEGER), date);
}
