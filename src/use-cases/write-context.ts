import type { EventStore } from '../events/store.ts';
import type { Result } from '../lib/result.ts';
import type { AccessTokens } from '../tokens/access-tokens.ts';
import type { StateSource } from './batch-state.ts';

/**
 * What the write use cases need of an open tradebook (`Tradebook` is one): the writer, the log, the state
 * commands decide on, the tokens. Declared here, so the use cases depend on what they use, not on the class
 * that puts the service together.
 */
export interface WriteContext {
  readonly state: StateSource;
  readonly store: EventStore;
  readonly tokens: AccessTokens;
  readonly commits: {
    run<T>(work: () => T): Promise<T>;
    durable(): Promise<void>;
    giveTurn(): Promise<void>;
  };
  /** Runs `work` in a savepoint of the writer's next group; a failure result undoes only that work. */
  submit<T>(work: () => Result<T>): Promise<Result<T>>;
  /** Whether the writer's connection is inside a transaction (a storage fault may have ended it). */
  readonly db: { readonly inTransaction: boolean };
}
