import { formatMoscow } from '../lib/clock.ts';

/**
 * The command line's one convention for time: it shows Moscow time with its offset (`2026-11-24 12:00:00+03:00`),
 * as the API shows Moscow time, and reads the same (`parseMoment`): a time without an offset is Moscow time, and
 * one with an explicit offset or `Z` (ISO 8601 too) is read as written. Only the raw log (`tradebook events`) keeps its
 * stored UTC values: the hash chain covers them.
 */
export const TIME_FORMS = '"YYYY-MM-DD HH:MM:SS" (Moscow time), optionally with an offset such as +03:00 or Z';

/** A moment as the command line shows it. */
export function showTime(ms: number): string {
  return `${formatMoscow(ms)}+03:00`;
}

/** A stored UTC ISO time as the command line shows it (null stays null). */
export function showStoredTime(iso: string | null): string | null {
  return iso === null ? null : showTime(Date.parse(iso));
}
