import fs from 'node:fs';
import path from 'node:path';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, test } from 'vitest';
import { verifyChain } from '../../src/audit/verify-chain.ts';
import { type PostgresDatabase, openPostgres } from '../../src/storage/postgres/connection.ts';
import { readEvents } from '../../src/storage/postgres/event-log.ts';
import { tempDir, until } from '../helpers.ts';
import { HttpClient, type ServerProcess, runCli, startServer } from '../server-process.ts';
import { REAL_SERVER_URL, createDatabase } from '../storage/postgres/engines.ts';
import { migratedTemplate } from '../postgres-template.ts';
import { signInOver } from '../workbench-client.ts';

/**
 * Several servers (`node bin/server.mjs`, as `npm start` runs it) and the command line on one PostgreSQL database.
 * A real server only: PGlite is one connection in one process.
 */
const KEY = 'tb_several_servers_key_0123456789abcdef';

interface Acknowledged {
  ids: number[];
  names: string[];
}

/** A client writing batches of ten contractors through `client` until `stop()`; every answer's status, and what was acknowledged. */
async function contractorWriter(client: HttpClient, tag: string, stop: () => boolean, statuses: number[], acknowledged: Acknowledged[]) {
  for (let i = 0; !stop(); i++) {
    const names = Array.from({ length: 10 }, (_, n) => `${tag} ${i}-${n}`);
    const res = await client.write(
      '/api/add-contractor',
      'contractors',
      names.map((name, n) => ({ type: 'ФЛ', name, contactPerson: tag, phone1: `+7 916 ${String(i).padStart(3, '0')}-${String(n).padStart(4, '0')}` })),
    );
    statuses.push(res.status);
    if (res.status === 200) acknowledged.push({ ids: res.body.data.map((r: { id: number }) => r.id), names });
  }
}

describe.runIf(REAL_SERVER_URL)('several servers on one PostgreSQL database', () => {
  let admin: PostgresDatabase;
  let database: { url: string; drop(): Promise<void> };
  let db: PostgresDatabase;
  const servers: ServerProcess[] = [];
  /** Each test's database is a copy of one migrated once, with its read tables built: its servers find it ready. */
  let template: { name: string; drop(): Promise<void> };
  beforeAll(async () => {
    admin = openPostgres(REAL_SERVER_URL!, { poolSize: 1 });
    template = await migratedTemplate(admin, REAL_SERVER_URL!);
  });
  afterAll(async () => {
    await template?.drop();
    await admin.close();
  });
  beforeEach(async () => {
    database = await createDatabase(admin, template.name);
    db = openPostgres(database.url, { poolSize: 2 });
  });
  afterEach(async () => {
    await Promise.all(servers.splice(0).map((server) => server.stop('SIGKILL')));
    await db.close();
    await database.drop();
  });

  const start = async (count: number) => {
    for (let i = 0; i < count; i++) servers.push(await startServer(database.url, KEY));
    return servers.map((server) => new HttpClient(server.url, KEY));
  };

  /** The log's seqs are 1..n with no gap, and its hash chain holds. */
  const expectDenseIntactLog = async () => {
    const [{ count, max }] = await db.pool.sql<{ count: number; max: number }>('SELECT count(*) AS count, coalesce(max(seq), 0) AS max FROM events');
    expect(count).toBe(max);
    const chain = await verifyChain(readEvents(db.pool));
    expect(chain.ok, JSON.stringify(chain)).toBe(true);
    return count;
  };

  /** Every acknowledged batch is in the read tables whole: each id with the name it was written with. */
  const expectWhole = async (acknowledged: Acknowledged[]) => {
    const rows = await db.pool.sql<{ id: number; record: string }>('SELECT id, record FROM contractors');
    const names = new Map(rows.map((row) => [row.id, JSON.parse(row.record).name as string]));
    for (const batch of acknowledged) expect(batch.ids.map((id) => names.get(id))).toEqual(batch.names);
  };

  test('three servers and an import writing at once: dense seqs, an intact chain, every acknowledged batch whole, no 5xx', async () => {
    const clients = await start(3);
    const lines = Array.from({ length: 1000 }, (_, i) =>
      JSON.stringify({ type: 'contractor', data: { type: 'ЮЛ', name: `Импорт ${i}`, contactPerson: 'Бухгалтерия', phone1: `+7 495 ${String(i).padStart(7, '0')}`, inn: String(7_700_000_000 + i) } }),
    );
    const file = path.join(tempDir(), 'contractors.ndjson');
    fs.writeFileSync(file, `${lines.join('\n')}\n`);
    const statuses: number[] = [];
    const acknowledged: Acknowledged[] = [];
    let importing = true;
    const deadline = Date.now() + 60_000;
    const stop = () => !importing || Date.now() > deadline;
    const writers = clients.flatMap((client, s) => [0, 1].map((c) => contractorWriter(client, `server ${s} client ${c}`, stop, statuses, acknowledged)));
    const imported = await runCli(database.url, ['import', file]);
    importing = false;
    await Promise.all(writers);

    expect(imported.status, imported.stderr).toBe(0);
    expect(imported.stdout).toMatch(/^1000 lines: 1000 applied, 0 failed, 1000 events appended \(import run \d{16}\)\n$/);
    expect(statuses.filter((status) => status !== 200)).toEqual([]);
    expect(acknowledged.length).toBeGreaterThan(0);
    const events = await expectDenseIntactLog();
    // Every event but the import run's own record is a contractor added by the import or a batch, and each one is
    // in the read tables once.
    expect(events).toBe(1000 + acknowledged.length * 10 + 1);
    const [{ contractors }] = await db.pool.sql<{ contractors: number }>('SELECT count(*) AS contractors FROM contractors');
    expect(contractors).toBe(events - 1);
    await expectWhole(acknowledged);
    // Any server answers the same page, byte for byte.
    const pages = await Promise.all(clients.map((client) => client.request('GET', '/api/contractors?offset=500&limit=100')));
    expect(new Set(pages.map((page) => page.text)).size).toBe(1);
  });

  test('a server killed while it writes: the others go on, no batch is half applied, the chain holds', async () => {
    const clients = await start(3);
    const statuses: number[][] = [[], [], []];
    const acknowledged: Acknowledged[] = [];
    let writing = true;
    // The killed server's client sees its connection fail: that writer ends there.
    const writers = clients.map((client, s) => contractorWriter(client, `server ${s}`, () => !writing, statuses[s], acknowledged).catch((error: Error) => error));
    // Killed once every server has answered writes; the others go on until each has answered more.
    await until(() => statuses.every((answers) => answers.length >= 3), 30_000);
    await servers[0].stop('SIGKILL');
    const afterKill = acknowledged.length;
    const answeredAtKill = statuses.map((answers) => answers.length);
    await until(() => [1, 2].every((s) => statuses[s].length >= answeredAtKill[s] + 3), 30_000);
    writing = false;
    expect(await writers[0]).toBeInstanceOf(Error);
    await Promise.all(writers);
    expect(acknowledged.length).toBeGreaterThan(afterKill);
    expect([...statuses[1], ...statuses[2]].filter((status) => status !== 200)).toEqual([]);
    const events = await expectDenseIntactLog();
    // Batches of ten, all or nothing, including any the killed server committed without answering.
    expect(events % 10).toBe(0);
    await expectWhole(acknowledged);
  });

  test('a workbench session started on one server is one on every server of the database, and sign-out on one ends it on all', async () => {
    await start(2);
    const auditKey = JSON.parse((await runCli(database.url, ['keys', 'create', '--name', 'auditor', '--scope', 'audit', '--json'])).stdout).key as string;
    const { cookie } = await signInOver(servers[0].url, auditKey);
    const page = (server: ServerProcess) => fetch(`${server.url}/audit/log`, { headers: { Cookie: cookie }, redirect: 'manual' });
    const onSecond = await page(servers[1]);
    expect(onSecond.status).toBe(200);
    const token = /name="form" value="([^"]+)"/.exec(await onSecond.text())![1];
    const out = await fetch(`${servers[1].url}/audit/sign-out`, {
      method: 'POST',
      redirect: 'manual',
      headers: { Cookie: cookie, Origin: servers[1].url, 'Content-Type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams({ form: token }),
    });
    expect(out.status).toBe(303);
    expect([(await page(servers[0])).status, (await page(servers[1])).status]).toEqual([303, 303]);
  });

  test('the same record edited through two servers at once: the last writer wins whole, every edit is in the history', async () => {
    const [one, two] = await start(2);
    const added = await one.write('/api/add-contractor', 'contractors', [{ type: 'ЮЛ', name: 'Ромашка', contactPerson: 'Иванов', phone1: '+7 495 000-00-01', inn: '7701000001' }]);
    const id = added.body.data[0].id;
    const edits = Array.from({ length: 20 }, (_, i) => ({ id, type: 'ЮЛ', name: `Ромашка ${i}`, contactPerson: `Петров ${i}`, phone1: `+7 495 000-01-${String(i).padStart(2, '0')}`, inn: `77010000${String(i).padStart(2, '0')}` }));
    const answers = await Promise.all(edits.map((edit, i) => (i % 2 === 0 ? one : two).write('/api/edit-contractor', 'contractors', [edit])));
    expect(answers.map((answer) => answer.status)).toEqual(edits.map(() => 200));
    const history = await runCli(database.url, ['history', `contractor-${id}`, '--json']);
    expect(history.status, history.stderr).toBe(0);
    const entries = JSON.parse(history.stdout) as { changes: { name?: string } }[];
    expect(entries).toHaveLength(21);
    // The record is the last edit in the log, whole: every field from the same edit.
    const last = edits.find((edit) => edit.name === entries[20].changes.name)!;
    for (const client of [one, two]) {
      expect((await client.request('POST', '/api/contractor', JSON.stringify({ id }))).body.data).toMatchObject({ name: last.name, contactPerson: last.contactPerson, inn: last.inn });
    }
    expect(new Set(entries.slice(1).map((entry) => entry.changes.name))).toEqual(new Set(edits.map((edit) => edit.name)));
  });

  test('a server whose read models are other versions than the database has refuses writes and says why; reads go on', async () => {
    const [client] = await start(1);
    expect((await client.write('/api/add-product-brand', 'brand', [{ name: 'Бренд' }])).status).toBe(200);
    // As if a server of another release had set up this database's read tables.
    await db.session.sql("UPDATE chain_head SET projectors = 'products@99' WHERE id = 1");
    const refused = await client.write('/api/add-product-brand', 'brand', [{ name: 'Ещё' }]);
    expect(refused.status).toBe(503);
    expect(refused.body.errors[0].code).toBe('ERROR_READ_MODELS_DIFFER');
    expect(refused.body.errors[0].message).toMatch(/the database's are products@99/);
    expect((await client.request('GET', '/api/product-brands')).body.data.map((b: { name: string }) => b.name)).toEqual(['Бренд']);
    // A server started now says so when it starts, and serves reads all the same.
    const late = await startServer(database.url, KEY);
    servers.push(late);
    expect(late.output()).toMatch(/writes are refused: this server keeps read models .*, the database's are products@99/);
    expect((await new HttpClient(late.url, KEY).request('GET', '/api/product-brands')).status).toBe(200);
  });

  test('tradebook rebuild swaps the read tables in while a server serves reads and writes; verify finds a changed row, and a rebuild mends it', async () => {
    const [client] = await start(1);
    const seeded = await runCli(database.url, ['seed', '--demo', '--products', '60', '--contractors', '20', '--documents', '120']);
    expect(seeded.status, seeded.stderr).toBe(0);
    const pages = ['/api/products?offset=10&limit=50', '/api/sales', '/api/contractors'];
    const before = await Promise.all(pages.map(async (page) => (await client.request('GET', page)).text));
    const reads: boolean[] = [];
    const writes: number[] = [];
    let rebuilding = true;
    const reader = (async () => {
      for (let i = 0; rebuilding; i++) reads.push((await client.request('GET', pages[i % pages.length])).text === before[i % pages.length]);
    })();
    const writer = (async () => {
      for (let i = 0; rebuilding; i++) writes.push((await client.write('/api/add-product-brand', 'brand', [{ name: `Бренд ${i}` }])).status);
    })();
    const rebuilt = await runCli(database.url, ['rebuild']);
    rebuilding = false;
    await Promise.all([reader, writer]);
    expect(rebuilt.status, rebuilt.stderr).toBe(0);
    expect(rebuilt.stdout).toMatch(/^rebuilt every projection from \d+ events in [\d.]+ s\n$/);
    expect(reads.length).toBeGreaterThan(0);
    expect(reads.filter((same) => !same)).toEqual([]);
    expect(writes.filter((status) => status !== 200)).toEqual([]);
    // The brands written during the build were applied in the swap.
    const brands = (await client.request('GET', '/api/product-brands')).body.data as { name: string }[];
    expect(brands.filter((brand) => brand.name.startsWith('Бренд ')).length).toBe(writes.length);

    expect((await runCli(database.url, ['verify'])).stdout).toMatch(/^verify: OK: hash chain of \d+ events intact; 15 read tables equal a fresh rebuild\n$/);
    await db.session.sql('UPDATE contractors SET balance = balance + 1 WHERE id = 3');
    const failed = await runCli(database.url, ['verify']);
    expect([failed.status, failed.stdout]).toEqual([1, expect.stringMatching(/^verify: FAILED: .*the read tables differ from a fresh rebuild \(1 found\)\n$/)]);
    expect(failed.stderr).toMatch(/^table contractors: live rows not in a fresh rebuild: 1, rebuilt rows not live: 1; first: id 3\n$/);
    expect((await runCli(database.url, ['rebuild'])).status).toBe(0);
    expect((await runCli(database.url, ['verify'])).status).toBe(0);
  });

  test('connections cut by the database: a write in flight is 503 with nothing applied or goes through, the next ones connect again, never a 500', async () => {
    // A connection the driver leaves stuck after its backend ended is abandoned after 2 s here (30 s by default).
    servers.push(await startServer(database.url, KEY, { TRADEBOOK_DB_STALL_MS: '2000' }));
    const client = new HttpClient(servers[0].url, KEY);
    const statuses: number[] = [];
    const acknowledged: Acknowledged[] = [];
    let writing = true;
    const writer = contractorWriter(client, 'cut', () => !writing, statuses, acknowledged);
    // Each cut once the server has answered a write since the last one.
    for (let i = 0; i < 5; i++) {
      const answered = statuses.length;
      await until(() => statuses.length > answered, 30_000);
      await db.session.sql('SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE datname = current_database() AND pid <> pg_backend_pid()');
    }
    // Whatever the driver left stuck is abandoned after the stall: then three writes in a row go through.
    const answered = statuses.length;
    await until(() => statuses.length >= answered + 3 && statuses.slice(-3).every((status) => status === 200), 30_000);
    writing = false;
    await writer;
    expect(statuses.filter((status) => status !== 200 && status !== 503)).toEqual([]);
    expect(statuses.slice(-3)).toEqual([200, 200, 200]);
    const events = await expectDenseIntactLog();
    expect(events % 10).toBe(0);
    await expectWhole(acknowledged);
    expect(servers[0].output()).not.toMatch(/\n\s+at /);
  });

  test('rebuild --until … --into FILE writes a SQLite point-in-time copy of the PostgreSQL log: verify passes on it, a server serves it read-only', async () => {
    const seeded = await runCli(database.url, ['seed', '--demo', '--products', '20', '--contractors', '10', '--documents', '40']);
    expect(seeded.status, seeded.stderr).toBe(0);
    const file = path.join(tempDir(), 'until-30.db');
    const written = await runCli(database.url, ['rebuild', '--until', '30', '--into', file]);
    expect([written.status, written.stdout]).toEqual([0, expect.stringMatching(/^wrote .*until-30\.db: the log up to seq 30 and its read tables, in [\d.]+ s; it is read-only\n$/)]);
    expect((await runCli(file, ['verify'])).stdout).toMatch(/^verify: OK: hash chain of 30 events intact; 15 read tables equal a fresh rebuild\n$/);
    const log = (await runCli(database.url, ['events'])).stdout.split('\n');
    expect((await runCli(file, ['events'])).stdout).toBe(`${log.slice(0, 30).join('\n')}\n`);
    const server = await startServer(file, KEY);
    servers.push(server);
    const client = new HttpClient(server.url, KEY);
    // The first 30 events of the demo company are its product groups and brands.
    expect((await client.request('GET', '/api/product-categories')).body.data.length).toBeGreaterThan(0);
    const refused = await client.request('GET', '/api/add-product-brand');
    expect([refused.status, refused.body.errors[0].code]).toEqual([403, 'ERROR_READ_ONLY']);
  });
});
