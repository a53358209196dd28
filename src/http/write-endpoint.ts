import { hash } from 'node:crypto';
import type { Context, Hono } from 'hono';
import type { z } from 'zod';
import { TOKEN_REFUSED, type WriteOutcome, type WriteRequest, answeredBefore, applyBatch, invalidBody, issueToken } from '../use-cases/two-step-write.ts';
import type { Decider } from '../commands/lookups.ts';
import { type CodeOverrides, parseRecord } from '../lib/validation.ts';
import { canonicalJson } from '../lib/canonical-json.ts';
import { formatMoscow } from '../lib/clock.ts';
import { type DomainError, errorCodeFor, fail, ok, type Result } from '../lib/result.ts';
import type { Company } from '../company.ts';
import type { AppEnv } from './env.ts';
import { type JsonBody, parseJsonBody } from './json-body.ts';
import { sendErrors, sendJson } from './respond.ts';
import { requestHeader } from './node-request.ts';

/** One two-step write path of the spec: GET issues a token, POST applies a batch of records with it. */
export interface WriteEndpoint<S extends z.ZodType = z.ZodType, R = unknown> {
  path: string;
  summary: string;
  /** The body's key holding the records (`products`, `data`, …). */
  wrapper: string;
  maxRecords: number;
  record: S;
  /** Error names that do not follow the field-name rule (`name` → ERROR_BRAND_NAME). */
  codes: CodeOverrides;
  /** Its 200 answer: a result for each record (one of `responses.ts`). */
  result: z.ZodType;
  decider: Decider<z.output<S>, R>;
}

export function writeEndpoint<S extends z.ZodType, R>(endpoint: WriteEndpoint<S, R>): WriteEndpoint {
  return endpoint as unknown as WriteEndpoint;
}

/** A point-in-time copy (`rebuild --until … --into …`) answers reads only. */
function readOnly(untilSeq: number): DomainError {
  return { code: 'ERROR_READ_ONLY', message: `this database is a point-in-time copy of the log up to seq ${untilSeq}; it accepts no writes` };
}

/** The path a token is bound to: the same with or without a trailing slash. */
export function tokenPath(path: string): string {
  return path.length > 1 && path.endsWith('/') ? path.replace(/\/+$/, '') : path;
}

interface ParsedBatch {
  /** Each record's parsed value, or undefined where it did not parse. */
  records: unknown[];
  errors: DomainError[];
}

/** Parses the body into records, collecting every problem; nothing here touches the database. */
function parseBatch(endpoint: WriteEndpoint, body: unknown): Result<ParsedBatch> {
  const wrapperCode = errorCodeFor(endpoint.wrapper);
  const records = body !== null && typeof body === 'object' && !Array.isArray(body) ? (body as Record<string, unknown>)[endpoint.wrapper] : undefined;
  if (!Array.isArray(records) || records.length === 0) {
    return fail({ code: wrapperCode, message: `the body must be {"${endpoint.wrapper}": [records]} with at least one record` });
  }
  if (records.length > endpoint.maxRecords) {
    return fail({ code: wrapperCode, message: `at most ${endpoint.maxRecords} records a batch, got ${records.length}` });
  }
  const errors: DomainError[] = [];
  const values = records.map((record, index) => {
    const parsed = parseRecord(endpoint.record, record, endpoint.codes, wrapperCode, index);
    if (parsed.ok) return parsed.value;
    errors.push(...parsed.errors);
    return undefined;
  });
  return ok({ records: values, errors });
}

/**
 * The body's records parsed and, when the body and the batch's shape allow, decided and applied. A body refused
 * before that is answered as its token allows (`invalidBody`), unless its token was read first and found fresh.
 */
async function parsedAndApplied(tb: Company, endpoint: WriteEndpoint, request: WriteRequest, json: JsonBody, freshToken: boolean): Promise<WriteOutcome> {
  const refused = (errors: DomainError[]): Promise<WriteOutcome> | WriteOutcome => (freshToken ? { status: 'invalid', errors } : invalidBody(tb, request, errors));
  if (!json.ok) return refused([{ code: errorCodeFor(endpoint.wrapper), message: json.problem }]);
  const batch = parseBatch(endpoint, json.value);
  if (!batch.ok) return refused(batch.errors);
  return applyBatch(tb, request, endpoint.decider, batch.value.records, batch.value.errors);
}

/**
 * Bodies larger than this have their token read before they are parsed, so a token that cannot be honoured never
 * costs a large body's parsing and hashing. A smaller one is parsed first (at most a few small requests' worth of
 * work): the check under the write lock decides its token, and a read before it would only repeat that check.
 */
export const TOKEN_READ_FIRST_ABOVE_BYTES = 4096;

export function mountWrite(app: Hono<AppEnv>, tb: Company, endpoint: WriteEndpoint): void {
  app.get(endpoint.path, async (c) => {
    // hono answers HEAD with the GET handler; issuing a token is a side effect HEAD must not have.
    if (c.req.method === 'HEAD') return sendErrors(c, 405, [{ code: 'ERROR_METHOD_NOT_ALLOWED', message: `HEAD is not allowed on ${endpoint.path}` }], { Allow: 'GET, POST' });
    if (tb.pointInTime !== undefined) return sendErrors(c, 403, [readOnly(tb.pointInTime)]);
    const { token, expiresAt } = await issueToken(tb, c.get('key').id, tokenPath(endpoint.path));
    return sendJson(c, JSON.stringify({ data: { access_token: token, expired: formatMoscow(expiresAt) } }));
  });

  app.post(endpoint.path, async (c: Context<AppEnv>) => {
    if (tb.pointInTime !== undefined) return sendErrors(c, 403, [readOnly(tb.pointInTime)]);
    const keyId = c.get('key').id;
    const path = tokenPath(endpoint.path);
    const token = requestHeader(c, 'x-access-token') ?? '';
    const body = c.get('body');
    // A large body's token is read from its header first: one that cannot be honoured whatever the body is refused
    // without parsing or hashing it (only the replay of a spent token depends on the body). That row also tells a replay.
    const readFirst = body.byteLength > TOKEN_READ_FIRST_ABOVE_BYTES;
    const row = readFirst ? await tb.tokens.usableRow(token, keyId, path) : undefined;
    if (readFirst && !row) return sendErrors(c, 401, [TOKEN_REFUSED]);
    const json = parseJsonBody(body);
    const bodyHash = json.ok ? hash('sha256', canonicalJson(json.value), 'hex') : '';

    const request = { keyId, path, token, bodyHash };
    // A row read first that answers nothing yet is a fresh token's.
    const outcome = (row && (await answeredBefore(tb, request, row))) ?? (await parsedAndApplied(tb, endpoint, request, json, row !== undefined));
    if (outcome.status === 'answered') return sendJson(c, outcome.response);
    return outcome.status === 'refused' ? sendErrors(c, 401, [TOKEN_REFUSED]) : sendErrors(c, 400, outcome.errors);
  });
}
