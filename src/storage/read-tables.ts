/**
 * What an engine is handed of the read models above it, and what it hands back: it knows none of them by name.
 * The read models (`read-models/`) build, rebuild, verify and swap their tables through these shapes; the adapters
 * implement the engine's side of them.
 */

/** Told as a build or a rebuild goes: events replayed of all. */
export interface RebuildProgress {
  done: number;
  total: number;
}
