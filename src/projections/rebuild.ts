/** Told as a build or a rebuild goes: events replayed of all. */
export interface RebuildProgress {
  done: number;
  total: number;
}
