/**
 * A build beside the served tables of a SQLite file, on a connection of its own: a module of its own so that
 * `tradebook rebuild`'s thread (`read-models/rebuild-thread.ts`) loads the SQLite adapter alone.
 */
export { besideSqliteFile } from './sqlite/read-tables.ts';
