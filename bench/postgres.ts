import fs from 'node:fs';
import postgres from 'postgres';
import { bareWritesPerSecondOnPostgres } from './ceilings.ts';
import type { EngineUnderTest } from './engines.ts';
import { projectors } from '../src/projections/registry.ts';
import { socketUrl } from '../src/storage/postgres/socket-url.ts';
import { type RebuildFloor, readModelKeys, recordsOf } from './floors.ts';
import { type CpuReading, cpuOf } from './processes.ts';
import { BUSIEST_CONTRACTOR_YEAR, type WorkbenchSubject } from './scenarios.ts';
import type { LockHold } from './report.ts';
import { spread } from './stats.ts';

/** The PostgreSQL server the bench makes its databases on (trust auth): any database of it, used to create and drop others. */
export const ADMIN_URL = process.env.TRADEBOOK_BENCH_POSTGRES_URL ?? 'postgres://root@127.0.0.1:5432/postgres';

type Row = Record<string, unknown>;

const INT8 = 20;

/** A postgres.js client reading bigint as JS numbers, as tradebook's own connections do, notices dropped. */
export const connect = (url: string, max = 1) => {
  const { url: hostUrl, path } = socketUrl(url);
  return postgres(hostUrl, { max, path, onnotice: () => {}, types: { int8: { to: INT8, from: [INT8], serialize: String, parse: Number } } });
};

export type Client = ReturnType<typeof connect>;

/** The URL of database `name` on the admin URL's server. */
export function databaseUrl(name: string): string {
  const url = new URL(ADMIN_URL);
  url.pathname = `/${name}`;
  return url.toString();
}

/** The URL as printed and stored: without its password. */
export function shown(url: string): string {
  const parsed = new URL(url);
  if (parsed.password) parsed.password = '***';
  return parsed.toString();
}

/** The bench's databases on the PostgreSQL server, made afresh each run. */
export class PostgresServer {
  private readonly admin = connect(ADMIN_URL);

  async version(): Promise<string> {
    const [{ version }] = await this.admin<{ version: string }[]>`SELECT current_setting('server_version') AS version`;
    return version;
  }

  /** Drops database `name` (whoever is connected to it) and creates it again, empty or as a copy of `template`. */
  async recreate(name: string, template?: string): Promise<string> {
    await this.admin.unsafe(`DROP DATABASE IF EXISTS "${name}" WITH (FORCE)`);
    await this.admin.unsafe(`CREATE DATABASE "${name}"${template ? ` TEMPLATE "${template}"` : ''}`);
    return databaseUrl(name);
  }

  close(): Promise<void> {
    return this.admin.end();
  }
}

/** One write transaction as the samples saw it. */
interface Group {
  start: number;
  lastSeen: number;
  end?: number;
}

/**
 * Samples pg_stat_activity of the current database until `done` settles, as often as a query a millisecond apart
 * allows. A write group is a transaction that has a transaction id: every writer's group takes the chain head's row
 * with FOR UPDATE first, which assigns one once the row is its; reads never do. A connection whose wait event is a
 * lock waits for it. A group's commit is the `state_change` of its connection once seen idle, or the start of its
 * connection's next transaction. An estimate: a group shorter than the sampling interval can be missed (its time
 * then counts to the next group's hold), and a commit seen late makes the next group's hold look shorter.
 */
export async function sampleLock(sql: Client, done: Promise<unknown>): Promise<LockHold> {
  let finished = false;
  const stop = () => (finished = true);
  done.then(stop, stop);
  const groups = new Map<string, Group>();
  const open = new Map<number, string>();
  let samples = 0;
  let held = 0;
  let waiting = 0;
  const started = performance.now();
  while (!finished) {
    const rows = await sql<{ pid: number; writing: boolean; waiting: boolean; state: string; xactStart: number | null; stateChange: number | null; now: number }[]>`
      SELECT pid, backend_xid IS NOT NULL AS writing, coalesce(wait_event_type = 'Lock', false) AS waiting, state,
             extract(epoch FROM xact_start)::float8 * 1000 AS "xactStart", extract(epoch FROM state_change)::float8 * 1000 AS "stateChange",
             extract(epoch FROM clock_timestamp())::float8 * 1000 AS now
      FROM pg_stat_activity WHERE datname = current_database() AND pid <> pg_backend_pid() AND backend_type = 'client backend'`;
    samples++;
    const now = rows[0]?.now ?? 0;
    const byPid = new Map(rows.map((r) => [r.pid, r]));
    // The groups seen last time whose connection has moved on: committed (or rolled back) since.
    for (const [pid, key] of open) {
      const row = byPid.get(pid);
      const group = groups.get(key)!;
      if (row && row.writing && `${pid}:${row.xactStart}` === key) continue;
      group.end = row?.state === 'idle' && row.stateChange! >= group.lastSeen ? row.stateChange! : (row?.xactStart ?? now);
      open.delete(pid);
    }
    let holding = false;
    for (const row of rows) {
      // A writer waiting for the chain head's row has no transaction id of its own yet.
      if (row.waiting) waiting++;
      if (!row.writing || row.xactStart === null) continue;
      const key = `${row.pid}:${row.xactStart}`;
      const group = groups.get(key) ?? { start: row.xactStart, lastSeen: now };
      group.lastSeen = now;
      groups.set(key, group);
      open.set(row.pid, key);
      if (!row.waiting) holding = true;
    }
    if (holding) held++;
    await new Promise((resolve) => setTimeout(resolve, 1));
  }
  // Holders take turns: a group holds the lock from its start or the previous commit, whichever is later.
  const ended = [...groups.values()].filter((g) => g.end !== undefined).sort((a, b) => a.end! - b.end!);
  const holds = ended.map((g, i) => g.end! - Math.max(g.start, i > 0 ? ended[i - 1].end! : g.start));
  const sorted = [...holds].sort((a, b) => a - b);
  return {
    samples,
    intervalMs: (performance.now() - started) / Math.max(1, samples),
    groups: holds.length,
    ...(holds.length > 0 ? { holdMs: { ...spread(holds), p90: sorted[Math.min(sorted.length - 1, Math.floor(sorted.length * 0.9))] } } : {}),
    heldShare: held / Math.max(1, samples),
    waiting: waiting / Math.max(1, samples),
  };
}

/**
 * The CPU of the PostgreSQL processes working for the current database: its backends and the server's background
 * processes (WAL writer, checkpointer, background writer, autovacuum), not other databases' backends nor the
 * bench's own connection. Read from /proc, so only when the server runs on this machine: undefined otherwise.
 */
async function databaseCpuReader(sql: Client): Promise<(() => Promise<CpuReading>) | undefined> {
  const [{ pid }] = await sql<{ pid: number }[]>`SELECT pg_backend_pid() AS pid`;
  const local = fs.existsSync(`/proc/${pid}/comm`) && fs.readFileSync(`/proc/${pid}/comm`, 'utf8').trim() === 'postgres';
  if (!local) return undefined;
  return async () => {
    const rows = await sql<{ pid: number }[]>`SELECT pid FROM pg_stat_activity WHERE (datname = current_database() OR datname IS NULL) AND pid <> pg_backend_pid()`;
    return cpuOf(rows.map((r) => r.pid));
  };
}

/** A database on PostgreSQL as the bench reads it beside the servers: one connection of its own. */
export async function postgresUnderTest(url: string): Promise<EngineUnderTest & { sql: Client }> {
  const sql = connect(url);
  const databaseCpu = await databaseCpuReader(sql);
  return {
    engine: 'postgres',
    setting: url,
    sql,
    databaseCpu,
    lastEventSeq: async () => (await sql<{ seq: number }[]>`SELECT coalesce(max(seq), 0) AS seq FROM events`)[0].seq,
    skus: async () => (await sql<{ sku: string }[]>`SELECT sku FROM products ORDER BY id`).map((r) => r.sku),
    busiest: async () => (await sql.unsafe<WorkbenchSubject['busiest'][]>(BUSIEST_CONTRACTOR_YEAR))[0],
    bareWrites: async (run, limit, runs) => {
      const events = await sql<Row[]>`SELECT * FROM events WHERE seq > ${run.from} AND seq <= ${run.to} ORDER BY seq LIMIT ${limit}`;
      const keys = readModelKeys(events);
      // The read-model rows of the run's records, a statement a table, grouped by the key they are looked up by.
      const rowsBy = async (table: string, column: string, ids: number[]) => {
        const grouped = new Map<number, Row[]>();
        for (const row of await sql.unsafe<Row[]>(`SELECT * FROM ${table} WHERE ${column} = ANY($1::bigint[])`, [`{${ids.join(',')}}`])) {
          const id = row[column] as number;
          if (!grouped.has(id)) grouped.set(id, []);
          grouped.get(id)!.push(row);
        }
        return grouped;
      };
      const contractors = await rowsBy('contractors', 'id', keys.contractors);
      const phones = await rowsBy('contractor_phones', 'contractor_id', keys.contractors);
      const products = await rowsBy('products', 'id', keys.products);
      const writes = recordsOf(events, { contractor: (id) => contractors.get(id)![0], phones: (id) => phones.get(id) ?? [], product: (id) => products.get(id)![0] });
      const measure = async (withReadModel: boolean) => {
        const values: number[] = [];
        for (let i = 0; i < runs; i++) values.push(await bareWritesPerSecondOnPostgres(sql, writes, 'bench_bare', withReadModel));
        return spread(values);
      };
      return { bareInsertRowsPerSecond: await measure(false), readModelFloorRowsPerSecond: await measure(true) };
    },
    sampleLock: (done) => sampleLock(sql, done),
    close: () => sql.end(),
  };
}

/**
 * The rebuild's floor on PostgreSQL, as `rebuildFloor` measures it on SQLite: on a database whose read tables are
 * current, every event's data read (a cursor of 1,000 rows) and parsed, then every read table copied by the server
 * itself into a fresh one with its indexes (`LIKE … INCLUDING ALL`, `INSERT … SELECT`), a transaction a table, in
 * a schema of its own that is dropped afterwards.
 */
export async function rebuildFloorOnPostgres(url: string): Promise<RebuildFloor> {
  const sql = connect(url);
  const schema = 'bench_floor';
  try {
    let started = performance.now();
    let events = 0;
    await sql<{ data: string }[]>`SELECT data FROM events`.cursor(1000, (rows) => {
      for (const row of rows) JSON.parse(row.data);
      events += rows.length;
    });
    const readSeconds = (performance.now() - started) / 1000;
    await sql.unsafe(`DROP SCHEMA IF EXISTS ${schema} CASCADE`);
    await sql.unsafe(`CREATE SCHEMA ${schema}`);
    started = performance.now();
    for (const table of projectors.flatMap((p) => p.tables)) {
      await sql.begin(async (tx) => {
        await tx.unsafe(`CREATE TABLE ${schema}.${table} (LIKE public.${table} INCLUDING ALL)`);
        await tx.unsafe(`INSERT INTO ${schema}.${table} SELECT * FROM public.${table}`);
      });
    }
    const writeSeconds = (performance.now() - started) / 1000;
    return { readSeconds, writeSeconds, eventsPerSecond: events / (readSeconds + writeSeconds) };
  } finally {
    await sql.unsafe(`DROP SCHEMA IF EXISTS ${schema} CASCADE`);
    await sql.end();
  }
}
