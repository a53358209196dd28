import type { Decider } from '../commands/lookups.ts';
import { type DomainError, fail, ok } from '../lib/result.ts';
import { hashSecret } from '../tokens/api-keys.ts';
import { tokenCheck } from '../tokens/access-tokens.ts';
import type { StoredToken } from '../storage/port.ts';
import type { WriteContext } from './write-context.ts';
import { decideBatch } from './decide-batch.ts';

/** Who writes, through which path, with which token and body (the body's hash decides a replay). */
export interface WriteRequest {
  keyId: number;
  path: string;
  token: string;
  bodyHash: string;
}

/** What a POST with a token comes to: refused (401), a replayed or fresh answer, or the batch's problems (400). */
export type WriteOutcome = { status: 'refused' } | { status: 'answered'; response: string } | { status: 'invalid'; errors: DomainError[] };

/**
 * A token for the key and write path, issued through the writer and answered once committed, without waiting for
 * the disk. The POST that spends it commits durably after it, so a write acknowledged is on disk with its token and
 * its replay is still recognised; a token lost in a crash before any later durable commit is refused as unknown,
 * and the client asks for another: nothing was applied with it.
 */
export function issueToken(tb: WriteContext, keyId: number, path: string): Promise<{ token: string; expiresAt: number }> {
  return tb.writer.run(() => tb.tokens.issue(keyId, path), 'committed');
}

/**
 * What a token and body may still do before the batch is parsed, given the token's row (`AccessTokens.usableRow`):
 * refused, or a replay answered with the first answer (once that is on disk), or nothing yet (`undefined`: a fresh
 * token).
 */
export async function answeredBefore(tb: WriteContext, request: WriteRequest, row: StoredToken | undefined): Promise<WriteOutcome | undefined> {
  const check = tokenCheck(row, request.bodyHash);
  if (check.status === 'refused') return { status: 'refused' };
  if (check.status === 'fresh') return undefined;
  // The first answer may still be on its way to disk: the same answer again waits for the same durability.
  await tb.writer.durable();
  return { status: 'answered', response: check.response };
}

/**
 * A body refused before its batch is decided (not JSON, not the wrapper's shape): its token's problem comes first,
 * then a replay of a spent token's body; only a fresh token gets the body's `errors`.
 */
export async function invalidBody(tb: WriteContext, request: WriteRequest, errors: DomainError[]): Promise<WriteOutcome> {
  const row = await tb.tokens.usableRow(request.token, request.keyId, request.path);
  return (await answeredBefore(tb, request, row)) ?? { status: 'invalid', errors };
}

/** The token cannot be honoured (the HTTP answer is 401 with this error). */
export const TOKEN_REFUSED: DomainError = {
  code: 'ERROR_ACCESS_TOKEN',
  message: 'the access token is missing, unknown, expired, already spent on another body, or was issued for another key or path',
};

/**
 * Applies a parsed batch with a token, all or nothing, in the writer's next group: the token is checked again
 * under the write lock (another request or process may have spent it meanwhile), the records are decided
 * batch-level, and the token is spent with the answer. Records that did not parse are `undefined` beside their
 * `known` problems: the others are still decided, so one answer lists every problem.
 */
export async function applyBatch<I, R>(tb: WriteContext, request: WriteRequest, decider: Decider<I, R>, records: (I | undefined)[], known: DomainError[]): Promise<WriteOutcome> {
  const outcome = await tb.write(async () => {
    const now = await tb.tokens.check(request.token, request.keyId, request.path, request.bodyHash);
    if (now.status === 'refused') return fail(TOKEN_REFUSED);
    if (now.status === 'replay') return ok(now.response);
    const applied = await decideBatch(records, decider, tb.state, tb.log, { keyId: request.keyId, tokenHash: hashSecret(request.token) }, known);
    if (!applied.ok) return applied;
    const response = JSON.stringify({ data: applied.value.results });
    await tb.tokens.spend(request.token, request.bodyHash, response);
    return ok(response);
  });
  if (outcome.ok) return { status: 'answered', response: outcome.value };
  return outcome.errors[0] === TOKEN_REFUSED ? { status: 'refused' } : { status: 'invalid', errors: outcome.errors };
}
