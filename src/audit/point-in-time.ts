import fs from 'node:fs';
import { kyselyOf, migrate } from '../storage/sqlite/migrate.ts';
import { refuseNewEvents } from '../storage/sqlite/maintenance.ts';
import { type Sqlite, openSqlite } from '../storage/sqlite/open.ts';
import { type EventRow, lastSeq, readEvents } from '../events/store.ts';
import { parseMoment } from '../lib/clock.ts';
import { type BuildOptions, buildProjections } from '../projections/rebuild.ts';

/**
 * The seq a `--until` names: a seq itself, or a time (`parseMoment`: Moscow time, or with an offset) meaning the
 * longest prefix of the log recorded within or before that second (the copy must be a prefix, or its hash chain would break).
 * Undefined when the text is neither.
 */
export function resolveUntil(db: Sqlite, text: string): number | undefined {
  if (/^\d{1,16}$/.test(text)) return Math.min(Number(text), lastSeq(db));
  const moment = parseMoment(text);
  if (moment === undefined) return undefined;
  const firstAfter = db.prepare('SELECT min(seq) FROM events WHERE recorded_at >= ?').pluck().get(new Date(moment + 1000).toISOString()) as number | null;
  return firstAfter === null ? lastSeq(db) : firstAfter - 1;
}

const COPY_CHUNK = 10_000;

/**
 * Writes `file`: the log of `source` up to `until` (the same rows, so the same hashes), the API keys, and the
 * read tables rebuilt from that prefix, as they were at that seq. The copy is marked read-only (a row in
 * `point_in_time` and a trigger refusing new events). It is written under a temporary name and renamed when
 * complete, so an interrupted run leaves no half-written copy behind.
 */
export async function writePointInTime(source: Sqlite, until: number, file: string, options: Pick<BuildOptions, 'onProgress'> = {}): Promise<{ events: number }> {
  const partial = `${file}.partial`;
  for (const suffix of ['', '-wal', '-shm']) fs.rmSync(partial + suffix, { force: true });
  const target = openSqlite(partial);
  try {
    const kysely = kyselyOf(target);
    await migrate(kysely);
    copyRows(target, source, until);
    const built = await buildProjections(target, target, { until, onProgress: options.onProgress });
    target.prepare('INSERT INTO point_in_time (until_seq, source, created_at) VALUES (?, ?, ?)').run(until, source.name, new Date().toISOString());
    refuseNewEvents(target, 'this database is a point-in-time copy: it is read-only');
    target.close();
    fs.renameSync(partial, file);
    return { events: built };
  } finally {
    if (target.open) target.close();
    for (const suffix of ['', '-wal', '-shm']) fs.rmSync(partial + suffix, { force: true });
  }
}

/** The log prefix, in transactions of COPY_CHUNK rows read a chunk at a time; and the keys, so the copy can be served. */
function copyRows(target: Sqlite, source: Sqlite, until: number): void {
  const insert = target.prepare(
    `INSERT INTO events (seq, stream, stream_version, type, schema_version, data, meta, recorded_at, hash)
     VALUES (@seq, @stream, @stream_version, @type, @schema_version, @data, @meta, @recorded_at, @hash)`,
  );
  const insertAll = target.transaction((rows: EventRow[]) => rows.forEach((row) => insert.run(row)));
  let rows: EventRow[] = [];
  for (const row of readEvents(source, 0, COPY_CHUNK)) {
    if (row.seq > until) break;
    rows.push(row);
    if (rows.length === COPY_CHUNK) {
      insertAll(rows);
      rows = [];
    }
  }
  insertAll(rows);
  const insertKey = target.prepare(
    'INSERT INTO api_keys (id, name, scope, key_hash, created_at, expires_at, revoked_at) VALUES (@id, @name, @scope, @key_hash, @created_at, @expires_at, @revoked_at)',
  );
  target.transaction(() => {
    for (const key of source.prepare('SELECT * FROM api_keys ORDER BY id').iterate()) insertKey.run(key);
  })();
}
