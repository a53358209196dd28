import { type KeyTablesOn, SqlKeyStore, SqlSessionStore, SqlTokenStore } from '../keys-and-tokens.ts';
import type { Sqlite } from './open.ts';
import { sqliteSession } from './session.ts';

/**
 * The keys, tokens and sessions tables on SQLite, on the writer's connection: a write runs in the unit of the
 * writer that calls it, and a read there sees what that connection committed (the only writer of the file).
 */
const onWriter = (db: Sqlite): KeyTablesOn => {
  const session = sqliteSession(db);
  return { writes: session, reads: session };
};

export class SqliteKeyStore extends SqlKeyStore {
  constructor(db: Sqlite) {
    super(onWriter(db));
  }
}

export class SqliteTokenStore extends SqlTokenStore {
  constructor(db: Sqlite) {
    super(onWriter(db));
  }
}

export class SqliteSessionStore extends SqlSessionStore {
  constructor(db: Sqlite) {
    super(onWriter(db));
  }
}
