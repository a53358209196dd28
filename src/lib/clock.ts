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

/** True for a real calendar date written `YYYY-MM-DD` (2025-02-30 is not one). */
export function isCalendarDate(text: string): boolean {
  if (!/^\d{4}-\d{2}-\d{2}$/.test(text)) return false;
  const ms = Date.parse(`${text}T00:00:00Z`);
  return !Number.isNaN(ms) && new Date(ms).toISOString().slice(0, 10) === text;
}
