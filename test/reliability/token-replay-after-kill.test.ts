import path from 'node:path';
import { afterEach, describe, expect, test } from 'vitest';
import { type PostgresDatabase, openPostgres } from '../../src/storage/postgres/connection.ts';
import { tempDir } from '../helpers.ts';
import { HttpClient, type ServerProcess, startServer } from '../server-process.ts';
import { REAL_SERVER_URL, createDatabase } from '../storage/postgres/engines.ts';

/**
 * A token is committed without waiting for the disk, and the POST that spends it durably after it: a write
 * answered 200 is on disk with its token, so after the server is killed and started again the same token and
 * body get the first answer again, and nothing is applied twice. On SQLite, and on the PostgreSQL server
 * TRADEBOOK_TEST_POSTGRES_URL names when it is set.
 */
const KEY = 'tb_token_replay_key_0123456789abcdef';
const ROUTE = '/api/add-contractor';

const servers: ServerProcess[] = [];
afterEach(async () => {
  await Promise.all(servers.splice(0).map((server) => server.stop('SIGKILL')));
});

async function started(database: string): Promise<HttpClient> {
  const server = await startServer(database, KEY);
  servers.push(server);
  return new HttpClient(server.url, KEY);
}

async function replayAfterKill(database: string): Promise<void> {
  const client = await started(database);
  const token = (await client.request('GET', ROUTE)).body.data.access_token as string;
  const body = JSON.stringify({ contractors: [{ type: 'ЮЛ', name: 'Ромашка', contactPerson: 'Иванов', phone1: '+7 495 000-00-01', inn: '7701000001' }] });
  const first = await client.request('POST', ROUTE, body, { 'X-Access-Token': token });
  expect(first.status).toBe(200);

  expect(await servers[0].stop('SIGKILL')).toBe('SIGKILL');
  const restarted = await started(database);
  const again = await restarted.request('POST', ROUTE, body, { 'X-Access-Token': token });
  expect(again.status).toBe(200);
  expect(again.text).toBe(first.text);
  const other = JSON.stringify({ contractors: [{ type: 'ФЛ', name: 'Другой', contactPerson: 'Петров', phone1: '+7 495 000-00-02' }] });
  expect((await restarted.request('POST', ROUTE, other, { 'X-Access-Token': token })).body.errors[0].code).toBe('ERROR_ACCESS_TOKEN');
  const listed = await restarted.request('GET', '/api/contractors');
  expect(listed.body.meta.allCount).toBe(1);
}

test('SQLite: a token spent by a POST answered 200, the server SIGKILLed and started again: the same token and body get the first answer, applied once', async () => {
  await replayAfterKill(path.join(tempDir(), 'tradebook.db'));
}, 60_000);

describe.runIf(REAL_SERVER_URL)('on PostgreSQL', () => {
  let admin: PostgresDatabase;
  let database: { url: string; drop(): Promise<void> } | undefined;
  afterEach(async () => {
    await Promise.all(servers.splice(0).map((server) => server.stop('SIGKILL')));
    await database?.drop();
    await admin?.close();
  });

  test('a token spent by a POST answered 200, the server SIGKILLed and started again: the same token and body get the first answer, applied once', async () => {
    admin = openPostgres(REAL_SERVER_URL!, { poolSize: 1 });
    database = await createDatabase(admin);
    await replayAfterKill(database.url);
  }, 60_000);
});
