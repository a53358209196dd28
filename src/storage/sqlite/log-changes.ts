import type { LogChangeSource, LogSignals } from '../log-changes.ts';
import { watchDataVersion } from './data-version.ts';
import type { Sqlite } from './open.ts';

/**
 * Commits of other processes (an import, a second server) on SQLite, where no message reaches the server: while
 * anyone follows the log, the database's `data_version` is looked at every `everyMs`. Nobody following, nothing is read.
 */
export class SqliteLogChanges implements LogChangeSource {
  private timer: NodeJS.Timeout | undefined;

  constructor(
    private readonly reader: Sqlite,
    private readonly everyMs: number,
  ) {}

  start(signals: LogSignals): void {
    this.timer = watchDataVersion(this.reader, this.everyMs, () => signals.moved(), () => signals.waiting);
    signals.listening();
  }

  async stop(): Promise<void> {
    clearInterval(this.timer);
  }
}
