import type { LogChangeSource, LogSignals } from '../log-changes.ts';
import type { PostgresListener } from './listener.ts';

/** The channel every group that appended announces the log's new last seq on, in its transaction (`PostgresWriter`). */
export const LOG_CHANGES_CHANNEL = 'tradebook_log';

/** The log's commits, by any server or command on the database, heard on the server's listening connection. */
export class PostgresLogChanges implements LogChangeSource {
  constructor(private readonly listener: PostgresListener) {}

  start(signals: LogSignals): void {
    this.listener.add(LOG_CHANGES_CHANNEL, {
      what: "the log's commits",
      notified: (payload) => signals.moved(Number(payload)),
      listening: () => signals.listening(),
      lost: (why) => signals.lost(why),
    });
  }

  stop(): Promise<void> {
    return this.listener.remove(LOG_CHANGES_CHANNEL);
  }
}
