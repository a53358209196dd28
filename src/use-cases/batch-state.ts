import type { DomainEvent } from '../events/registry.ts';
import type { NewEvent } from '../events/store.ts';
import { Answers, type BatchView, Overlay } from '../records/batch-view.ts';
import type { StateSource } from '../records/kind.ts';
import { type CommandState, type Lookups, type RecordState, evolveRecord, lookupReads, recordKindOf, recordKinds } from '../records/registry.ts';

/** A kind's `current`, given every kind's state. */
type CurrentOf = (state: CommandState, event: DomainEvent) => RecordState | undefined;

export type { StateSource };

/**
 * The state a batch is decided on: its records' lookups, unioned and read once in bulk per kind of lookup
 * (`read`), then each record decided once, in order, over those answers and an overlay of the batch's own events
 * (`decideEach`), so a batch may add a group and then its subgroup, or two products with the next ids. Each kind
 * of record answers its part of the state (records/<kind>/kind.ts).
 */
export class BatchState {
  private readonly answers = new Answers();
  private readonly overlay = new Overlay();
  /** What the deciders read: every kind's state over this batch. */
  readonly state: CommandState;

  constructor(private readonly source: StateSource) {
    const view: BatchView = {
      answers: this.answers,
      overlay: this.overlay,
      nextId: (table) => Math.max(this.answers.get<number>('highestIds', table), this.overlay.highestId(table)) + 1,
    };
    this.state = Object.assign({}, ...recordKinds.map((kind) => kind.state?.(view))) as CommandState;
  }

  /** Reads what every record's lookups name, each kind of lookup in one bulk read (none for a kind no record names). */
  async read(all: Lookups[]): Promise<void> {
    const keys = new Map<string, Map<unknown, unknown>>();
    for (const lookups of all) {
      for (const [name, named] of Object.entries(lookups) as [string, unknown[]][]) {
        let wanted = keys.get(name);
        if (wanted === undefined) keys.set(name, (wanted = new Map()));
        const identity = lookupReads.get(name)!.identity;
        for (const key of named) wanted.set(identity === undefined ? key : identity(key as never), key);
      }
    }
    await Promise.all(
      [...keys].filter(([, wanted]) => wanted.size > 0).map(([name, wanted]) => lookupReads.get(name)!.read(this.source, [...wanted.values()] as never[], this.answers)),
    );
  }

  /** Decides each record once, in order, each after the events of the ones before it. */
  decideEach<I, D>(inputs: (I | undefined)[], decide: (input: I, state: CommandState) => D, eventsOf: (decision: D) => NewEvent[] | undefined): (D | undefined)[] {
    return inputs.map((input) => {
      if (input === undefined) return undefined;
      const decision = decide(input, this.state);
      for (const event of eventsOf(decision) ?? []) this.evolve(event);
      return decision;
    });
  }

  /** One event folded into its record by its kind's fold, laid over the state for the records after it. */
  private evolve(newEvent: NewEvent): void {
    const event = newEvent as DomainEvent;
    const kind = recordKindOf(event);
    let before: RecordState | undefined;
    const after = evolveRecord(() => (before = (kind.current as CurrentOf | undefined)?.(this.state, event)), event);
    if (after === undefined) throw new Error(`${event.type} changes ${newEvent.stream}, which its decider did not read`);
    this.overlay.lay(newEvent.stream, before, after, kind.idTable, kind.uniqueKey);
  }
}
