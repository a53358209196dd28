import fs from 'node:fs';

/**
 * Which engine `TRADEBOOK_DB` names, for the server and the command line alike: a `postgres://` or
 * `postgresql://` URL is PostgreSQL, anything else the path of a SQLite file.
 */
export type DatabaseSetting = { engine: 'sqlite'; file: string } | { engine: 'postgres'; url: string };

const DEFAULT_FILE = 'data/tradebook.db';

export function databaseSetting(value: string | undefined = process.env.TRADEBOOK_DB): DatabaseSetting {
  if (value && /^postgres(ql)?:\/\//i.test(value)) return { engine: 'postgres', url: value };
  return { engine: 'sqlite', file: value || DEFAULT_FILE };
}


/** A database URL without its password, fit for a message or a log. */
export function shownUrl(url: string): string {
  return url.replace(/^([a-z][a-z0-9+.-]*:\/\/[^:@/]*):[^@]*@/i, '$1:***@');
}

/**
 * Whether two settings name one database: the same SQLite file, whatever path leads to it (its device and inode),
 * or the same host, port and database of a PostgreSQL server. Two names of one server (localhost, 127.0.0.1) are
 * not told apart.
 */
export function sameDatabase(a: DatabaseSetting, b: DatabaseSetting): boolean {
  if (a.engine === 'sqlite' && b.engine === 'sqlite') {
    const identity = fileIdentity(a.file);
    return identity !== undefined && identity === fileIdentity(b.file);
  }
  return a.engine === 'postgres' && b.engine === 'postgres' && serverDatabase(a.url) === serverDatabase(b.url);
}

/** The file's device and inode; undefined when it cannot be seen (missing: then it is no database yet). */
function fileIdentity(file: string): string | undefined {
  try {
    const { dev, ino } = fs.statSync(file);
    return `${dev}:${ino}`;
  } catch {
    return undefined;
  }
}

/** `host:port/database` of a URL, with the defaults a connection takes (the database is named as the user by default). */
function serverDatabase(url: string): string {
  const { hostname, port, username, pathname } = new URL(url);
  return `${hostname.toLowerCase() || 'localhost'}:${port || '5432'}/${decodeURIComponent(pathname.slice(1) || username)}`;
}

/**
 * Why `setting` names no database a command can reach, after the name it was given by (a URL that does not parse,
 * a path that is a URL of another scheme); undefined when it names one.
 */
export function settingProblem(setting: DatabaseSetting): string | undefined {
  if (setting.engine === 'postgres') return URL.canParse(setting.url) ? undefined : `must be a postgres:// or postgresql:// URL, got ${shownDatabase(setting)}`;
  return /^[a-z][a-z0-9+.-]*:\/\//i.test(setting.file) ? `must be a SQLite file or a postgres:// or postgresql:// URL, got ${shownUrl(setting.file)}` : undefined;
}

/** A database as messages name it: a file by its path, a URL without its password. */
export function shownDatabase(setting: DatabaseSetting): string {
  return setting.engine === 'sqlite' ? setting.file : shownUrl(setting.url);
}
