import type { Context } from 'hono';
import { requestIdOf } from './access-log.ts';

/** What the log says of an error the server did not expect: one line, each field bounded, no stack trace. */
export interface UnexpectedError {
  /** The request's id, as its access-log line has it (none when no access log is kept). */
  reqId?: string;
  method: string;
  path: string;
  /** The error's class and message. */
  error: string;
  /** Where it was thrown: the first frame of its stack. */
  at?: string;
}

/** A field's longest text: an error's message can repeat whatever input caused it, of any length. */
const MAX_FIELD = 300;

/** `text` cut to `MAX_FIELD` characters, saying how long it was. */
export const bounded = (text: string) => (text.length <= MAX_FIELD ? text : `${text.slice(0, MAX_FIELD)}… (${text.length} characters)`);

/** The log line's fields for `error`, thrown while answering the request of `c`. */
export function unexpectedError(c: Context, error: unknown): UnexpectedError {
  const described = error instanceof Error ? `${error.name}: ${error.message}` : `thrown: ${String(error)}`;
  const at = error instanceof Error ? /\n\s+at (.*)/.exec(error.stack ?? '')?.[1] : undefined;
  return { reqId: requestIdOf(c), method: c.req.method, path: bounded(c.req.path), error: bounded(described), at: at === undefined ? undefined : bounded(at) };
}
