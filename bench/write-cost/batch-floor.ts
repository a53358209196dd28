// The floor of a batch scenario measured with bench/write-cost/load.mjs: the last `count` events a run appended to
// `database`, with the read-model rows they left, written again by bare better-sqlite3 into fresh tables of the same
// DDL (WAL, synchronous=FULL, transactions of 100, one prepared statement a table and shape: `bench/floors.ts`),
// each event's SHA-256 chain hash computed. Prints the process's CPU a record, median of five runs, for the event
// rows alone and with the read-model rows and hashes.
//
//   node --import tsx bench/write-cost/batch-floor.ts <database after the run> [count]
import { createHash } from 'node:crypto';
import fs from 'node:fs';
import Database from 'better-sqlite3';
import { writesOf } from '../floors.ts';
import { writeBare } from '../ceilings.ts';

const [file, count = '2000'] = process.argv.slice(2);
const source = new Database(file, { readonly: true });
const last = source.prepare('SELECT max(seq) FROM events').pluck().get() as number;
const writes = writesOf(source, { from: last - Number(count), to: last }, Number(count));
source.close();

const scratch = `${file}.floor`;
/** CPU µs of writing `records` (and with `withReadModel` hashing them) into fresh tables, the tables' DDL and prefill included. */
function cpuOf(records: typeof writes.records, withReadModel: boolean): number {
  for (const suffix of ['', '-wal', '-shm']) fs.rmSync(scratch + suffix, { force: true });
  const db = new Database(scratch);
  db.pragma('journal_mode = WAL');
  db.pragma('synchronous = FULL');
  const started = process.cpuUsage();
  writeBare(db, { ...writes, records }, withReadModel);
  if (withReadModel) {
    let previous = '0'.repeat(64);
    for (const { event } of records) previous = createHash('sha256').update(`${previous}${event.seq}${event.stream}${event.type}${event.data}${event.meta}${event.recorded_at}`).digest('hex');
  }
  const used = process.cpuUsage(started);
  db.close();
  for (const suffix of ['', '-wal', '-shm']) fs.rmSync(scratch + suffix, { force: true });
  return used.user + used.system;
}

/** A record's share: the whole run less the same run with no records (the tables made, the prefill written). */
const cpuPerRecord = (withReadModel: boolean) => (cpuOf(writes.records, withReadModel) - cpuOf([], withReadModel)) / writes.records.length;

const median = (runs: number[]) => runs.sort((a, b) => a - b)[Math.floor(runs.length / 2)];
const five = (withReadModel: boolean) => median(Array.from({ length: 5 }, () => cpuPerRecord(withReadModel)));
console.log(JSON.stringify({ records: writes.records.length, eventRowsUs: +five(false).toFixed(1), withReadModelAndHashesUs: +five(true).toFixed(1) }));
