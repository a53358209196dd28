/**
 * Values built once for everyone asking alike at about the same moment (the followers one commit wakes at one
 * position): a few, the latest. The log never changes below its head, so a value named by what it was built from
 * is never stale; the bound only caps the memory.
 */
export class LatestKept<T> {
  private readonly kept = new Map<string, T>();

  constructor(private readonly size: number) {}

  of(name: string, build: () => T): T {
    let value = this.kept.get(name);
    if (value === undefined) {
      value = build();
      if (this.kept.size >= this.size) this.kept.delete(this.kept.keys().next().value!);
      this.kept.set(name, value);
    }
    return value;
  }
}
