import type { KeyChangeListener, KeyChangeSource } from '../key-changes.ts';
import { watchDataVersion } from './data-version.ts';
import type { Sqlite } from './open.ts';

/**
 * Key changes on SQLite, where the command line is another process and no message reaches the server. Every
 * `everyMs` the database's `data_version` is read: it moves whenever another connection commits, this server's own
 * writer included, so it is only the cheap first look. When it moved, the key version (bumped by every revocation,
 * `SqlKeyStore`) is read, and only when that changed is every cached key forgotten: writes leave the cache whole.
 */
export class SqliteKeyChanges implements KeyChangeSource {
  private timer: NodeJS.Timeout | undefined;

  constructor(
    private readonly reader: Sqlite,
    private readonly everyMs: number,
  ) {}

  start(cache: KeyChangeListener): void {
    // No row until the first revocation.
    const keyVersion = this.reader.prepare('SELECT version FROM key_version WHERE id = 1').pluck();
    // The data version is taken first: a revocation committed before the key version is read moves it again.
    this.timer = watchDataVersion(this.reader, this.everyMs, () => {
      const keys = keyVersion.get();
      if (keys !== seenKeys) cache.forgetAll();
      seenKeys = keys;
    });
    let seenKeys = keyVersion.get();
    cache.listening();
  }

  async stop(): Promise<void> {
    clearInterval(this.timer);
  }
}
