import path from 'node:path';
import { afterEach, beforeEach, describe, expect, test } from 'vitest';
import { type Clock } from '../../src/lib/clock.ts';
import type { Writer } from '../../src/storage/port.ts';
import { openPostgres } from '../../src/storage/postgres/connection.ts';
import { PostgresKeyStore, PostgresTokenStore } from '../../src/storage/postgres/keys-and-tokens.ts';
import { migrate } from '../../src/storage/postgres/migrate.ts';
import { PostgresWriter } from '../../src/storage/postgres/writer.ts';
import { AccessTokens, TOKEN_LIFE_MS } from '../../src/tokens/access-tokens.ts';
import { ApiKeys, hashSecret } from '../../src/tokens/api-keys.ts';
import { manualClock, openSqliteCompany, type SqliteCompany, tempDir } from '../helpers.ts';
import { type TestDatabase, describeEngines } from '../storage/postgres/engines.ts';

/** What a server holds of keys and tokens: the rules over one engine's stores, and the writer they write through. */
interface Server {
  keys: ApiKeys;
  tokens: AccessTokens;
  writer: Writer;
}

/** Opens the current test's database as one more server; several openings act as several servers. */
type OpenServer = (clock: Clock) => Promise<Server>;

const PATH = '/api/add-product-brand';

/**
 * The rules of keys and tokens, run on each engine. `twoServers` is false where the database has one connection
 * only (PGlite).
 */
function keysAndTokens(open: OpenServer, twoServers: boolean) {
  /** As a POST does it: inside its unit the token is checked again and spent only when fresh. */
  const post = (server: Server, token: string, keyId: number, body: string) =>
    server.writer.run(async () => {
      const now = await server.tokens.check(token, keyId, PATH, body);
      if (now.status !== 'fresh') return now;
      return { status: 'spent', spent: await server.tokens.spend(token, body, `answer to ${body}`) };
    });

  test('issue, check, spend, replay: the same body gets the kept answer, another body is refused, in the same group too', async () => {
    const server = await open(manualClock());
    const { token, expiresAt } = await server.writer.run(() => server.tokens.issue(1, PATH));
    expect(expiresAt).toBe(Date.parse('2026-11-22T09:00:00Z') + TOKEN_LIFE_MS);
    expect(await server.tokens.usableRow(token, 1, PATH)).toBeDefined();
    expect(await server.tokens.check(token, 1, PATH, 'a')).toEqual({ status: 'fresh' });
    // Submitted together, the three share a group: the second sees the first's spend before it commits.
    expect(await Promise.all([post(server, token, 1, 'a'), post(server, token, 1, 'a'), post(server, token, 1, 'b')])).toEqual([
      { status: 'spent', spent: true },
      { status: 'replay', response: 'answer to a' },
      { status: 'refused' },
    ]);
    expect(await server.tokens.check(token, 1, PATH, 'a')).toEqual({ status: 'replay', response: 'answer to a' });
    expect(await server.tokens.check(token, 1, PATH, 'b')).toEqual({ status: 'refused' });
    // Spent, it is still usable: the same body gets its answer again.
    expect(await server.tokens.usableRow(token, 1, PATH)).toBeDefined();
    expect(await server.writer.run(() => server.tokens.spend(token, 'b', 'another answer'))).toBe(false);
    expect(await server.tokens.check(token, 1, PATH, 'a')).toEqual({ status: 'replay', response: 'answer to a' });
  });

  test('a token is bound to the key that asked and to its path', async () => {
    const server = await open(manualClock());
    const { token } = await server.writer.run(() => server.tokens.issue(1, PATH));
    expect(await server.tokens.usableRow(token, 2, PATH)).toBeUndefined();
    expect(await server.tokens.usableRow(token, 1, '/api/add-contractor')).toBeUndefined();
    expect(await server.tokens.check(token, 2, PATH, 'a')).toEqual({ status: 'refused' });
    expect(await server.tokens.check(token, 1, '/api/add-contractor', 'a')).toEqual({ status: 'refused' });
    expect(await server.tokens.check('not-a-token', 1, PATH, 'a')).toEqual({ status: 'refused' });
    expect(await server.tokens.check(token, 1, PATH, 'a')).toEqual({ status: 'fresh' });
  });

  test('an expired token is refused, and swept when the next token is issued', async () => {
    const clock = manualClock();
    const server = await open(clock);
    const { token: old } = await server.writer.run(() => server.tokens.issue(1, PATH));
    clock.advance(TOKEN_LIFE_MS);
    expect(await server.tokens.usableRow(old, 1, PATH)).toBeUndefined();
    expect(await server.tokens.check(old, 1, PATH, 'a')).toEqual({ status: 'refused' });
    // Expired for its last millisecond only: not swept yet.
    await server.writer.run(() => server.tokens.issue(1, PATH));
    expect(await server.tokens.count()).toBe(2);
    clock.advance(1);
    const { token } = await server.writer.run(() => server.tokens.issue(1, PATH));
    expect(await server.tokens.count()).toBe(2);
    clock.advance(TOKEN_LIFE_MS);
    await server.writer.run(() => server.tokens.issue(1, PATH));
    expect(await server.tokens.count()).toBe(2);
    expect(await server.tokens.check(token, 1, PATH, 'a')).toEqual({ status: 'refused' });
  });

  test('keys: stored as hashes with dense ids, listed, registered once, revoked for good', async () => {
    const clock = manualClock();
    const server = await open(clock);
    const { keys } = server;
    const first = await keys.create({ name: 'first' });
    const auditor = await keys.create({ name: 'auditor', scope: 'audit' });
    expect([first.id, auditor.id]).toEqual([1, 2]);
    expect(first.key).toMatch(/^tb_[0-9A-Za-z]{40}$/);
    expect(await keys.register('given key', 'TRADEBOOK_API_KEY')).toBe(3);
    expect(await keys.register('given key', 'TRADEBOOK_API_KEY')).toBe(3);
    expect(await keys.count()).toBe(3);
    expect(await keys.authenticate(first.key)).toEqual({ id: 1, scope: 'api' });
    expect(await keys.authenticate(auditor.key)).toEqual({ id: 2, scope: 'audit' });
    expect(await keys.authenticate('tb_unknown')).toBeUndefined();
    expect(await keys.activeById(1)).toEqual({ id: 1, name: 'first', scope: 'api', keyHash: hashSecret(first.key), expires: null });
    expect(await keys.nameOf(3)).toBe('TRADEBOOK_API_KEY');
    expect(await keys.nameOf(9)).toBeUndefined();

    const created = '2026-11-22T09:00:00.000Z';
    clock.advance(1000);
    expect(await keys.revoke(1)).toBe(true);
    clock.advance(1000);
    // Revoking again keeps the first revocation's time; an unknown id is not revoked.
    expect(await keys.revoke(1)).toBe(true);
    expect(await keys.revoke(9)).toBe(false);
    expect(await keys.authenticate(first.key)).toBeUndefined();
    expect(await keys.activeById(1)).toBeUndefined();
    expect(await keys.list()).toEqual([
      { id: 1, name: 'first', scope: 'api', created, expires: null, revoked: '2026-11-22T09:00:01.000Z' },
      { id: 2, name: 'auditor', scope: 'audit', created, expires: null, revoked: null },
      { id: 3, name: 'TRADEBOOK_API_KEY', scope: 'api', created, expires: null, revoked: null },
    ]);
    // A key never reused once revoked: the next one gets the next id.
    expect((await keys.create({})).id).toBe(4);
  });

  test('an expired key fails authenticate from its expiry on', async () => {
    const clock = manualClock();
    const server = await open(clock);
    const { id, key } = await server.keys.create({ name: 'brief', expiresAt: clock() + 1000 });
    expect(await server.keys.authenticate(key)).toEqual({ id, scope: 'api' });
    clock.advance(999);
    expect(await server.keys.activeById(id)).toMatchObject({ id, expires: '2026-11-22T09:00:01.000Z' });
    clock.advance(1);
    expect(await server.keys.authenticate(key)).toBeUndefined();
    expect(await server.keys.activeById(id)).toBeUndefined();
  });

  test.runIf(twoServers)('two servers on one database: a token issued by one is spent through the other, a key revoked by one is refused by the other', async () => {
    const clock = manualClock();
    const [one, two] = [await open(clock), await open(clock)];
    const { id, key } = await one.keys.create({ name: 'shared' });
    expect(await two.keys.authenticate(key)).toEqual({ id, scope: 'api' });

    const { token } = await one.writer.run(() => one.tokens.issue(id, PATH));
    expect(await two.tokens.usableRow(token, id, PATH)).toBeDefined();
    expect(await post(two, token, id, 'a')).toEqual({ status: 'spent', spent: true });
    expect(await post(one, token, id, 'a')).toEqual({ status: 'replay', response: 'answer to a' });
    expect(await post(one, token, id, 'b')).toEqual({ status: 'refused' });

    expect(await one.keys.revoke(id)).toBe(true);
    expect(await two.keys.authenticate(key)).toBeUndefined();
    expect(await two.keys.activeById(id)).toBeUndefined();

    // Starting together with the same given key, the two servers register it once.
    expect(await Promise.all([one.keys.register('given key', 'TRADEBOOK_API_KEY'), two.keys.register('given key', 'TRADEBOOK_API_KEY')])).toEqual([2, 2]);
    expect(await two.keys.count()).toBe(2);
  });
}

describe('keys and tokens (SQLite)', () => {
  let file: string;
  let opened: SqliteCompany[];
  beforeEach(() => {
    file = path.join(tempDir(), 'tradebook.db');
    opened = [];
  });
  afterEach(() => opened.forEach((tb) => tb.close()));
  keysAndTokens(async (clock) => {
    const tb = await openSqliteCompany(file, { clock });
    opened.push(tb);
    return tb;
  }, true);
});

describeEngines('keys and tokens', (database, real) => {
  let servers: TestDatabase[] = [];
  // The test's own database is closed by describeEngines; the further connections here.
  afterEach(async () => {
    await Promise.all(servers.slice(1).map((db) => db.close()));
    servers = [];
  });
  keysAndTokens(async (clock) => {
    // The first server uses the test's database; each further one connects to it again (on a real server only).
    const db = servers.length === 0 ? database() : openPostgres(database().url!);
    servers.push(db);
    await migrate(db.session);
    const writer = new PostgresWriter(db.session);
    return { keys: new ApiKeys(new PostgresKeyStore(writer, db.pool), clock, writer), tokens: new AccessTokens(new PostgresTokenStore(writer, db.pool), clock), writer };
  }, real);
});
