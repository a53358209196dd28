import { type KeyTablesOn, SqlKeyStore, SqlSessionStore, SqlTokenStore } from '../keys-and-tokens.ts';
import type { Sql } from './connection.ts';
import { KEY_CHANGES_CHANNEL } from './key-changes.ts';
import { postgresSession } from './session.ts';
import type { PostgresWriter } from './writer.ts';

/**
 * The keys, tokens and sessions tables on PostgreSQL, shared by every server of the database. Writes run on the
 * writer's session inside the calling unit, so they commit with its group under the chain head's lock; reads
 * outside a unit go to the pool and see what any server committed, read afresh on every call.
 */
const onWriter = (writer: PostgresWriter, pool: Sql): KeyTablesOn => ({
  writes: postgresSession(() => writer.writesFor('a change of keys, tokens or sessions')),
  reads: postgresSession(() => writer.readsOn(pool)),
});

export class PostgresKeyStore extends SqlKeyStore {
  constructor(writer: PostgresWriter, pool: Sql) {
    const on = onWriter(writer, pool);
    // Announced to every server listening (`PostgresKeyChanges`) when the transaction commits, and only then.
    super(on, (id) => on.writes.run('SELECT pg_notify(?, ?)', [KEY_CHANGES_CHANNEL, String(id)]));
  }
}

export class PostgresTokenStore extends SqlTokenStore {
  constructor(writer: PostgresWriter, pool: Sql) {
    super(onWriter(writer, pool));
  }
}

export class PostgresSessionStore extends SqlSessionStore {
  constructor(writer: PostgresWriter, pool: Sql) {
    super(onWriter(writer, pool));
  }
}
