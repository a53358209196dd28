import { createRequire } from 'node:module';
import { Worker } from 'node:worker_threads';
import type { Sqlite } from './open.ts';
import type { FaultLog } from '../errors.ts';
import { storageFaultOf } from '../storage-fault.ts';

/**
 * WAL checkpoints on a thread of their own. SQLite checkpoints inside the commit that pushes the WAL past
 * `wal_autocheckpoint` pages: that commit copies the WAL's pages into the database file and fsyncs it, on the
 * event loop's thread (better-sqlite3 is synchronous), so every request waits meanwhile. Here a worker with its
 * own connection runs a PASSIVE checkpoint (it never blocks writers or readers) every `intervalMs`,
 * while the server's commits only append to the WAL and fsync it. The server's own auto-checkpoint stays on,
 * at a much higher threshold, as a backstop should the worker fall behind or stop.
 */

/** The server's auto-checkpoint with the worker running: pages (4 KiB), ten times SQLite's default. */
export const BACKSTOP_PAGES = 10_000;

// The worker's code: plain CommonJS, so it runs the same from the sources and from the bundle. A PASSIVE
// checkpoint with nothing new in the WAL returns at once, without an fsync. A failure is posted when it differs
// from the last one, and the first success after it, so a fault that lasts is one message, not one each interval.
const WORKER = `
const { parentPort, workerData } = require('node:worker_threads');
const Database = require(workerData.driver);
const db = new Database(workerData.file);
db.pragma('busy_timeout = 1000');
db.pragma('synchronous = FULL');
const checkpoint = db.prepare('PRAGMA wal_checkpoint(PASSIVE)');
let failing;
const timer = setInterval(() => {
  try {
    checkpoint.all();
    if (failing !== undefined) parentPort.postMessage({ ok: true });
    failing = undefined;
  } catch (error) {
    const failure = { code: error && error.code, message: String(error && error.message) };
    if (failing !== failure.code + failure.message) parentPort.postMessage({ failure });
    failing = failure.code + failure.message;
  }
}, workerData.intervalMs);
parentPort.on('message', () => { clearInterval(timer); db.close(); parentPort.close(); });
`;

export class Checkpointer {
  private constructor(private readonly worker: Worker) {}

  /** Starts checkpointing `db`'s file in the background and raises its connection's auto-checkpoint to the backstop. */
  static start(db: Sqlite, intervalMs = 200, faults?: FaultLog): Checkpointer {
    const driver = createRequire(import.meta.url).resolve('better-sqlite3');
    const worker = new Worker(WORKER, {
      eval: true,
      workerData: { file: db.name, driver, intervalMs },
    });
    worker.on('message', (message: { ok?: true; failure?: { code?: string; message: string } }) =>
      message.failure ? faults?.failed(storageFaultOf(message.failure) ?? message.failure) : faults?.succeeded(),
    );
    worker.on('error', (error) => faults?.failed(storageFaultOf(error) ?? error));
    // Never what keeps the process alive.
    worker.unref();
    db.pragma(`wal_autocheckpoint = ${BACKSTOP_PAGES}`);
    return new Checkpointer(worker);
  }

  /** Stops the worker after its current checkpoint and closes its connection. */
  async stop(): Promise<void> {
    const exited = new Promise((resolve) => this.worker.once('exit', resolve));
    // Held by the worker again until it has exited, or the process could end first and skip what follows.
    this.worker.ref();
    this.worker.postMessage('stop');
    await exited;
  }
}
