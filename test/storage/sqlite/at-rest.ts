import Database from 'better-sqlite3';
import { GENESIS_HASH, chainHash } from '../../../src/events/hash.ts';

/**
 * The database file as whoever holds it sees it, past every API: for the behaviour tests that prove what is not
 * stored (keys, tokens) and that tamper as an operator with write access could, so that they can show verify and
 * anchors catch it. Each engine needs its own version of these few functions; everything else goes through the
 * surface.
 */

/** Every row of a table, as stored. */
export function storedRows(file: string, table: string): unknown[] {
  const db = new Database(file, { readonly: true });
  try {
    return db.prepare(`SELECT * FROM ${table}`).all();
  } finally {
    db.close();
  }
}

/** Runs SQL on the file with the log's append-only triggers dropped (and put back), as an attacker would. */
export function tamper(file: string, sql: string): void {
  const db = new Database(file);
  try {
    const triggers = db.prepare("SELECT sql FROM sqlite_master WHERE type = 'trigger' AND tbl_name = 'events'").pluck().all() as string[];
    db.exec('DROP TRIGGER events_no_update; DROP TRIGGER events_no_delete');
    db.exec(sql);
    for (const trigger of triggers) db.exec(trigger);
  } finally {
    db.close();
  }
}

/** Rewrites one event's data and recomputes every hash from there on, so the chain is whole again. */
export function rewriteHistory(file: string, seq: number, rewrite: (data: string) => string): void {
  const db = new Database(file);
  try {
    const triggers = db.prepare("SELECT sql FROM sqlite_master WHERE type = 'trigger' AND tbl_name = 'events'").pluck().all() as string[];
    db.exec('DROP TRIGGER events_no_update; DROP TRIGGER events_no_delete');
    const rows = db.prepare('SELECT * FROM events WHERE seq >= ? ORDER BY seq').all(seq) as Parameters<typeof chainHash>[1][];
    let previous = (db.prepare('SELECT hash FROM events WHERE seq = ?').pluck().get(seq - 1) as string | undefined) ?? GENESIS_HASH;
    const update = db.prepare('UPDATE events SET data = ?, hash = ? WHERE seq = ?');
    for (const row of rows) {
      const data = row.seq === seq ? rewrite(row.data) : row.data;
      previous = chainHash(previous, { ...row, data });
      update.run(data, previous, row.seq);
    }
    for (const trigger of triggers) db.exec(trigger);
  } finally {
    db.close();
  }
}

/** Appends a row as an older release wrote it (an older schema version), hash-chained like any other. */
export function appendOldRow(file: string, row: { stream: string; type: string; schemaVersion: number; data: string }): void {
  const db = new Database(file);
  try {
    const head = db.prepare('SELECT seq, hash FROM events ORDER BY seq DESC LIMIT 1').get() as { seq: number; hash: string } | undefined;
    const streamVersion = (db.prepare('SELECT coalesce(max(stream_version), 0) FROM events WHERE stream = ?').pluck().get(row.stream) as number) + 1;
    const columns = {
      seq: (head?.seq ?? 0) + 1,
      stream: row.stream,
      stream_version: streamVersion,
      type: row.type,
      schema_version: row.schemaVersion,
      data: row.data,
      meta: '{"source":"import","importLine":7}',
      recorded_at: '2026-11-22T09:30:00.000Z',
    };
    db.prepare(
      `INSERT INTO events (seq, stream, stream_version, type, schema_version, data, meta, recorded_at, hash)
       VALUES (@seq, @stream, @stream_version, @type, @schema_version, @data, @meta, @recorded_at, @hash)`,
    ).run({ ...columns, hash: chainHash(head?.hash ?? GENESIS_HASH, columns) });
  } finally {
    db.close();
  }
}
