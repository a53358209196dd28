import type { KeyCache, KeyChangeSource } from '../../tokens/key-cache.ts';
import type { Sqlite } from './open.ts';

/**
 * Key changes on SQLite, where the command line is another process and no message reaches the server: the
 * database's `data_version` (which moves when any other connection commits) is read every `everyMs`, and when it
 * moved every cached key is forgotten. This server's own writes move it too; a few re-reads a second cost nothing.
 */
export class SqliteKeyChanges implements KeyChangeSource {
  private timer: NodeJS.Timeout | undefined;

  constructor(
    private readonly reader: Sqlite,
    private readonly everyMs: number,
  ) {}

  start(cache: KeyCache): void {
    const version = this.reader.prepare('PRAGMA data_version').pluck();
    let seen = version.get();
    cache.listening();
    this.timer = setInterval(() => {
      if (!this.reader.open) return;
      const now = version.get();
      if (now !== seen) cache.forgetAll();
      seen = now;
    }, this.everyMs);
    // The poll never keeps the process alive: closing the database is what ends it.
    this.timer.unref();
  }

  async stop(): Promise<void> {
    clearInterval(this.timer);
  }
}
