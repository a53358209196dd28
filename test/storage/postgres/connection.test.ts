import fs from 'node:fs';
import { expect, test } from 'vitest';
import { openPostgres } from '../../../src/storage/postgres/connection.ts';
import { describeEngines } from './engines.ts';

describeEngines('a PostgreSQL connection', (database, real) => {
  // postgres.js sends a statement with parameters that is not prepared in two round trips (its parameters'
  // types asked for first, the answer awaited, then the values): every key check and token step would pay twice.
  test.runIf(real)('a statement with parameters is prepared once a connection, whichever way it is sent', async () => {
    const { session } = database();
    const prepared = async (text: string) =>
      (await session.sql<{ n: number }>('SELECT count(*)::int AS n FROM pg_prepared_statements WHERE statement = $1', [text]))[0].n;
    const objects = 'SELECT $1::int + 1 AS next';
    const values = 'SELECT $1::int + 2';
    for (let i = 0; i < 3; i++) {
      expect(await session.sql(objects, [i])).toEqual([{ next: i + 1 }]);
      expect(await session.values(values, [i])).toEqual([[i + 2]]);
    }
    expect([await prepared(objects), await prepared(values)]).toEqual([1, 1]);
    // Statements without parameters (DDL, a transaction's control) are sent in one round trip anyway: not kept.
    await session.sql('CREATE TABLE notes (id int)');
    expect(await prepared('CREATE TABLE notes (id int)')).toBe(0);
  });

  test.runIf(real)('a URL naming the server\'s socket directory connects through the socket, the writer and the pool alike', async (context) => {
    const url = new URL(database().url!);
    const [{ unix_socket_directories: directories }] = await database().session.sql<{ unix_socket_directories: string }>('SHOW unix_socket_directories');
    const directory = directories.split(',')[0].trim();
    if (!fs.existsSync(`${directory}/.s.PGSQL.${url.port || 5432}`)) return context.skip();
    url.searchParams.set('host', directory);
    const db = openPostgres(url.toString(), { poolSize: 1 });
    try {
      // A connection through a Unix-domain socket has no server address.
      const overSocket = 'SELECT inet_server_addr() IS NULL AS local';
      expect(await db.session.sql(overSocket)).toEqual([{ local: true }]);
      expect(await db.pool.sql(overSocket)).toEqual([{ local: true }]);
      expect(await database().session.sql(overSocket)).toEqual([{ local: false }]);
    } finally {
      await db.close();
    }
  });

  test.runIf(real)('while a pooled connection is busy with a slow statement, the next statements go to an idle one', async () => {
    const db = openPostgres(database().url!, { poolSize: 2 });
    try {
      const finished: string[] = [];
      const slow = db.pool.sql('SELECT pg_sleep(1)').then(() => finished.push('slow'));
      for (let i = 0; i < 20; i++) {
        await db.pool.values('SELECT $1::int', [i]);
        finished.push('quick');
      }
      await slow;
      expect(finished.indexOf('slow')).toBe(20);
    } finally {
      await db.close();
    }
  });
});
