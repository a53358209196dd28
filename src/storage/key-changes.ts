/**
 * Key changes made by other processes, as an engine hears of them (SQLite's `data_version`, PostgreSQL's NOTIFY):
 * the engine tells a listener (the server's key cache) `forget` or `forgetAll` for changes, `lost` while changes
 * may be missed, `listening` once they are heard (again).
 */
export interface KeyChangeListener {
  forget(id: number): void;
  forgetAll(): void;
  lost(why: string): void;
  listening(): void;
}

/** Where a listener hears of key changes made by other processes. */
export interface KeyChangeSource {
  start(listener: KeyChangeListener): void;
  stop(): Promise<void>;
}
