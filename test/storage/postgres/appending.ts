import type { NewEvent } from '../../../src/events/rows.ts';
import { openPostgres } from '../../../src/storage/postgres/connection.ts';
import { PostgresEventLog } from '../../../src/storage/postgres/event-log.ts';
import { PostgresWriter } from '../../../src/storage/postgres/writer.ts';

/** Streams every writer appends to, so their versions interleave. */
const STREAMS = 10;

export interface Appended {
  batches: number;
  events: number;
}

/**
 * One writer of its own (its own connections): once connected it says it is `ready`, waits for `go` to give the
 * time to append until (epoch ms), and appends a few batches a turn till then, so they share group transactions,
 * of one to three events each. Every batch's meta names the writer and the batch, so the log shows each batch whole.
 */
export async function appendWhenGo(url: string, name: string, ready: () => void, go: Promise<number>): Promise<Appended> {
  const db = openPostgres(url, { poolSize: 1 });
  const writer = new PostgresWriter(db.session);
  const log = new PostgresEventLog(writer, Date.now);
  const appended: Appended = { batches: 0, events: 0 };
  try {
    await db.session.sql('SELECT 1');
    ready();
    const until = await go;
    while (Date.now() < until) {
      const turn = Array.from({ length: 1 + Math.floor(Math.random() * 4) }, () => {
        const batch = ++appended.batches;
        const events: NewEvent[] = Array.from({ length: 1 + Math.floor(Math.random() * 3) }, () => {
          const id = 1 + Math.floor(Math.random() * STREAMS);
          return { stream: `brand-${id}`, type: 'BrandEdited', data: { id, name: `${name} ${batch}` } };
        });
        appended.events += events.length;
        return writer.run(() => log.append(events, { source: name, importLine: batch }));
      });
      await Promise.all(turn);
    }
    return appended;
  } finally {
    await db.close();
  }
}
