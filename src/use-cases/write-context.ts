import type { Result } from '../lib/result.ts';
import type { EventLog, Writer } from '../storage/port.ts';
import type { AccessTokens } from '../tokens/access-tokens.ts';
import type { StateSource } from './batch-state.ts';

/**
 * What the write use cases need of an open tradebook (`Tradebook` is one): the writer, the log, the state
 * commands decide on, the tokens. Declared here, so the use cases depend on what they use, not on the class
 * that puts the service together.
 */
export interface WriteContext {
  readonly writer: Writer;
  readonly log: EventLog;
  readonly state: StateSource;
  readonly tokens: AccessTokens;
  /** Runs `work` as a unit of the writer's next group; a failure result undoes only that work. */
  write<T>(work: () => Promise<Result<T>>): Promise<Result<T>>;
}
