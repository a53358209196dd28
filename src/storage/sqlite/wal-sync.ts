import fs from 'node:fs';
import path from 'node:path';

/** `fs.fsync` looked up at each call (tests hold it to watch what waits for the disk). */
const fsync = (fd: number) => new Promise<void>((resolve, reject) => fs.fsync(fd, (error) => (error ? reject(error) : resolve())));

/**
 * fsyncs a database's write-ahead log on libuv's thread pool, so the event loop goes on serving while the disk
 * works. Callers that ask while an fsync is running share the next one: it starts when the running one ends,
 * so it covers everything written before any of them asked.
 *
 * In WAL mode SQLite's synchronous=FULL is synchronous=NORMAL plus one fsync of the WAL after each commit
 * (the WAL header when the log restarts, and every checkpoint, are synced by SQLite in both modes). A commit
 * made at NORMAL and then `sync()`ed is as durable as a FULL one once the promise resolves. The WAL exists,
 * and keeps its inode, for as long as the connection that asks stays open: SQLite removes it only when the
 * last connection closes.
 */
export class WalSync {
  private fd: number | undefined;
  private running: Promise<void> | undefined;
  private next: Promise<void> | undefined;
  /** How many fsyncs of the WAL ran (observability, and tests of the sharing). */
  syncs = 0;

  constructor(private readonly databaseFile: string) {}

  /** Resolves once everything written to the WAL before this call is on disk. */
  sync(): Promise<void> {
    if (this.next) return this.next;
    if (!this.running) return this.start();
    // The running fsync may have begun before the caller's write: the caller needs the one after it.
    this.next = this.running.then(
      () => this.startQueued(),
      () => this.startQueued(),
    );
    return this.next;
  }

  close(): void {
    if (this.fd !== undefined) fs.closeSync(this.fd);
    this.fd = undefined;
  }

  private startQueued(): Promise<void> {
    this.next = undefined;
    return this.start();
  }

  private start(): Promise<void> {
    const run = this.fsyncWal().finally(() => {
      if (this.running === run) this.running = undefined;
    });
    this.running = run;
    return run;
  }

  private async fsyncWal(): Promise<void> {
    if (this.fd === undefined) {
      // The WAL's directory entry too, once: SQLite syncs the directory of a new WAL at its first sync, which
      // at synchronous=NORMAL would wait for a checkpoint. Like SQLite, a file system that cannot fsync a
      // directory is not an error.
      const dir = fs.openSync(this.directory(), 'r');
      await fsync(dir).catch(() => {});
      fs.closeSync(dir);
      this.fd ??= this.openWal();
    }
    this.syncs++;
    await fsync(this.fd);
  }

  private directory(): string {
    return path.dirname(path.resolve(this.databaseFile));
  }

  private openWal(): number {
    return fs.openSync(`${this.databaseFile}-wal`, 'r');
  }
}
