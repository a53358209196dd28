import { describe, expect, test } from 'vitest';
import { createApp } from '../../src/http/app.ts';
import { Company } from '../../src/company.ts';
import { ApiClient } from '../helpers.ts';
import { runCli } from '../server-process.ts';
import { within } from '../within.ts';
import { REAL_SERVER_URL, databaseEachTest } from '../storage/postgres/engines.ts';

/**
 * The key cache of servers on one PostgreSQL database: changes announced with NOTIFY in the transaction that makes
 * them, heard by each server on a connection of its own. A real server only: PGlite has no second connection.
 */

const status = async (client: ApiClient) => (await client.get('/api/products?limit=1')).status;

describe.runIf(REAL_SERVER_URL)('the key cache of servers on one PostgreSQL database', () => {
  const database = databaseEachTest();

  /** One more server on the database, with a key cache of 1 s; what it says of its cache goes to `said`. */
  const server = async (said: string[] = []) => {
    const tb = await Company.open({ engine: 'postgres', url: database.url() }, { keyCache: { boundMs: 1000, onTrust: (line) => said.push(line) } });
    database.afterward(() => tb.close());
    return { tb, app: createApp(tb), said };
  };

  /** A key, and a client of it on each of `servers`, once every one of them has it cached. */
  const cachedKey = async (servers: Awaited<ReturnType<typeof server>>[]) => {
    const { id, key } = await servers[0].tb.keys.create({ name: 'cached' });
    const clients = servers.map(({ app }) => new ApiClient(app, key));
    await within(3000, async () => {
      for (const client of clients) expect(await status(client)).toBe(200);
      return servers.every(({ tb }) => tb.keyCache!.size === 1);
    });
    return { id, clients };
  };

  test('a key revoked through one server is refused by it at once and by the other within 1 s', async () => {
    const one = await server();
    const two = await server();
    const { id, clients } = await cachedKey([one, two]);
    await one.tb.keys.revoke(id);
    expect(await status(clients[0])).toBe(401);
    expect(await within(1000, async () => (await status(clients[1])) === 401)).toBeLessThan(1000);
  });

  test('a key revoked by `tradebook keys revoke` is refused by both servers within 1 s', async () => {
    const servers = [await server(), await server()];
    const { id, clients } = await cachedKey(servers);
    const revoked = await runCli(database.url(), ['keys', 'revoke', String(id)]);
    expect(revoked.status, revoked.stderr).toBe(0);
    const took = await within(1000, async () => (await Promise.all(clients.map(status))).every((answer) => answer === 401));
    expect(took).toBeLessThan(1000);
  });

  test('the listening connection ended: requests are answered, keys are read from the database until it is back, a revocation meanwhile counts at once', async () => {
    const one = await server();
    // Another server without a cache, which makes the revocation below.
    const elsewhere = await Company.open({ engine: 'postgres', url: database.url() });
    database.afterward(() => elsewhere.close());
    const { clients } = await cachedKey([one]);
    const other = await one.tb.keys.create({ name: 'revoked meanwhile' });
    const otherClient = new ApiClient(one.app, other.key);
    expect(await status(otherClient)).toBe(200);

    const ended = await database.terminate('tradebook notifications');
    expect(ended).toEqual([{ ended: true }]);
    await within(1000, () => one.said.length === 1);
    expect(one.said[0]).toMatch(/^key cache off: the connection listening for key changes closed/);
    expect(await status(clients[0])).toBe(200);
    expect(one.tb.keyCache!.size).toBe(0);

    // Revoked by another server while this one cannot hear it: refused from the next request all the same.
    await elsewhere.keys.revoke(other.id);
    expect(await status(otherClient)).toBe(401);

    // Back: said once, and after the bound keys are cached again.
    await within(3000, async () => (await status(clients[0])) === 200 && one.tb.keyCache!.size === 1);
    expect(one.said).toHaveLength(2);
    expect(one.said[1]).toBe('key cache back: key changes are heard again, cached keys trusted in 1000 ms');
    expect(await status(otherClient)).toBe(401);
  });
});
