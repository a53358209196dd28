import type { Sqlite } from './open.ts';

/**
 * Looks at the database's `data_version` through `reader` every `everyMs` (while `looking` says to) and calls
 * `moved` when it changed: another connection committed, this process's own writer included. The look never
 * keeps the process alive: closing the database is what ends it. Stop it with `clearInterval`.
 */
export function watchDataVersion(reader: Sqlite, everyMs: number, moved: () => void, looking: () => boolean = () => true): NodeJS.Timeout {
  const dataVersion = reader.prepare('PRAGMA data_version').pluck();
  let seen = dataVersion.get();
  const timer = setInterval(() => {
    if (!looking() || !reader.open) return;
    const now = dataVersion.get();
    if (now === seen) return;
    seen = now;
    moved();
  }, everyMs);
  timer.unref();
  return timer;
}
