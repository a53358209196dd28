/**
 * What tells a server that the log may have moved: this server's own commits, and the engine's word of other
 * processes' (PostgreSQL's NOTIFY, SQLite's `data_version`).
 */
export interface LogSignals {
  /** The log may have moved (to `seq`, when known). */
  moved(seq?: number): void;
  /** Other processes' commits can no longer be heard: the waker polls until `listening`. */
  lost(why: string): void;
  /** Other processes' commits are heard (again). */
  listening(): void;
  /** Whether anyone waits: a source that polls need not look while nobody does. */
  readonly waiting: boolean;
}

/** Where an engine tells of commits made by other processes. */
export interface LogChangeSource {
  start(signals: LogSignals): void;
  stop(): Promise<void>;
}
