/** Milliseconds since the epoch; injected everywhere time matters so tests never sleep. */
export type Clock = () => number;

export const systemClock: Clock = () => Date.now();

const MOSCOW_OFFSET_MS = 3 * 60 * 60 * 1000; // Europe/Moscow is UTC+3 all year, no DST

/** `YYYY-MM-DD HH:MM:SS` in Moscow time, whatever the server's own time zone. */
export function formatMoscow(ms: number): string {
  return new Date(ms + MOSCOW_OFFSET_MS).toISOString().slice(0, 19).replace('T', ' ');
}

/** Parses `YYYY-MM-DD HH:MM:SS` read as Moscow time; undefined when it is not a real moment. */
export function parseMoscow(text: string): number | undefined {
  const m = /^(\d{4})-(\d{2})-(\d{2}) (\d{2}):(\d{2}):(\d{2})$/.exec(text);
  if (!m) return undefined;
  const ms = Date.parse(`${m[1]}-${m[2]}-${m[3]}T${m[4]}:${m[5]}:${m[6]}Z`);
  if (Number.isNaN(ms) || new Date(ms).toISOString().slice(0, 19) !== `${m[1]}-${m[2]}-${m[3]}T${m[4]}:${m[5]}:${m[6]}`) {
    return undefined;
  }
  return ms - MOSCOW_OFFSET_MS;
}

const WITH_OFFSET = /^(\d{4}-\d{2}-\d{2})[ T](\d{2}:\d{2}:\d{2})(\.\d{1,3})?(Z|[+-]\d{2}:\d{2})$/;

/**
 * Reads `YYYY-MM-DD HH:MM:SS` as Moscow time, or the same (ISO 8601 too) with an explicit offset or `Z` as
 * written; undefined when it is none of these or not a real moment.
 */
export function parseMoment(text: string): number | undefined {
  const offset = WITH_OFFSET.exec(text);
  if (!offset) return parseMoscow(text);
  const [, date, time, fraction = '', zone] = offset;
  // The date and time must exist as written (no 25:00, no February 30), whatever the offset.
  if (parseMoscow(`${date} ${time}`) === undefined) return undefined;
  const ms = Date.parse(`${date}T${time}${fraction}${zone}`);
  return Number.isNaN(ms) ? undefined : ms;
}

/** The days of a month (1–12) in the Gregorian calendar, as `Date` counts them for any year. */
export function daysInMonth(year: number, month: number): number {
  if (month === 2) return year % 4 === 0 && (year % 100 !== 0 || year % 400 === 0) ? 29 : 28;
  return month === 4 || month === 6 || month === 9 || month === 11 ? 30 : 31;
}

/**
 * True for a real calendar date written `YYYY-MM-DD` (2025-02-30 is not one). Checked by arithmetic: every
 * document list request with a date filter checks two, and a `Date` round trip each cost more than the
 * rest of the query's parsing.
 */
export function isCalendarDate(text: string): boolean {
  if (!/^\d{4}-\d{2}-\d{2}$/.test(text)) return false;
  const month = Number(text.slice(5, 7));
  const day = Number(text.slice(8, 10));
  return month >= 1 && month <= 12 && day >= 1 && day <= daysInMonth(Number(text.slice(0, 4)), month);
}
