/**
 * Exit statuses, the same for every command: 0 the work is done, 1 the work found problems (import lines that
 * failed, a verify that found differences or could not hold an anchor), 2 a usage or environment problem (a bad
 * option, a missing file or database, a full disk, a check that could not be made), told in one line without a
 * stack trace.
 */
export const EXIT = { ok: 0, problemsFound: 1, usage: 2 } as const;
