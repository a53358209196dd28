import type { LogChangeSource, LogSignals } from '../../feed/waker.ts';
import type { Sqlite } from './open.ts';

/**
 * Commits of other processes (an import, a second server) on SQLite, where no message reaches the server: while
 * anyone follows the log, the database's `data_version` is read every `everyMs` through the reader; it moves
 * whenever another connection commits. Nobody following, nothing is read.
 */
export class SqliteLogChanges implements LogChangeSource {
  private timer: NodeJS.Timeout | undefined;

  constructor(
    private readonly reader: Sqlite,
    private readonly everyMs: number,
  ) {}

  start(signals: LogSignals): void {
    const dataVersion = this.reader.prepare('PRAGMA data_version').pluck();
    let seen = dataVersion.get();
    signals.listening();
    this.timer = setInterval(() => {
      if (!signals.waiting || !this.reader.open) return;
      const now = dataVersion.get();
      if (now === seen) return;
      seen = now;
      signals.moved();
    }, this.everyMs);
    // The watch never keeps the process alive: closing the database is what ends it.
    this.timer.unref();
  }

  async stop(): Promise<void> {
    clearInterval(this.timer);
  }
}
