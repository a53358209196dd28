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

/** The one line that refuses `what` (a command) on PostgreSQL until it runs there. */
export function notYetOnPostgres(what: string): string {
  return `${what} on PostgreSQL is not available yet; the server and every command but \`backup\` and \`rebuild --into\` run there so far (docs/postgres.md)`;
}

/** A database URL without its password, fit for a message or a log. */
export function shownUrl(url: string): string {
  return url.replace(/^([a-z][a-z0-9+.-]*:\/\/[^:@/]*):[^@]*@/i, '$1:***@');
}
