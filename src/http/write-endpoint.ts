import { createHash } from 'node:crypto';
import type { Context, Hono } from 'hono';
import type { z } from 'zod';
import { decideBatch } from '../use-cases/decide-batch.ts';
import type { CommandState } from '../commands/command-state.ts';
import type { Decide } from '../commands/decision.ts';
import { type CodeOverrides, parseRecord } from '../lib/validation.ts';
import { canonicalJson } from '../lib/canonical-json.ts';
import { formatMoscow } from '../lib/clock.ts';
import { type DomainError, errorCodeFor, fail, ok, type Result } from '../lib/result.ts';
import type { Tradebook } from '../tradebook.ts';
import type { AppEnv } from './env.ts';
import { parseJsonBody } from './json-body.ts';
import { sendErrors, sendJson } from './respond.ts';
import { discardBody, requestBody, requestHeader } from './node-request.ts';
import { hashSecret } from '../tokens/api-keys.ts';

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
  decide: Decide<z.output<S>, CommandState, R>;
}

export function writeEndpoint<S extends z.ZodType, R>(endpoint: WriteEndpoint<S, R>): WriteEndpoint {
  return endpoint as unknown as WriteEndpoint;
}

const TOKEN_REFUSED: DomainError = { code: 'ERROR_ACCESS_TOKEN', message: 'the access token is missing, unknown, expired, already spent on another body, or was issued for another key or path' };

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

export function mountWrite(app: Hono<AppEnv>, tb: Tradebook, endpoint: WriteEndpoint): void {
  app.get(endpoint.path, async (c) => {
    // hono answers HEAD with the GET handler; issuing a token is a side effect HEAD must not have.
    if (c.req.method === 'HEAD') return sendErrors(c, 405, [{ code: 'ERROR_METHOD_NOT_ALLOWED', message: `HEAD is not allowed on ${endpoint.path}` }], { Allow: 'GET, POST' });
    if (tb.pointInTime !== undefined) return sendErrors(c, 403, [readOnly(tb.pointInTime)]);
    const { token, expiresAt } = await tb.commits.run(() => tb.tokens.issue(c.get('key').id, tokenPath(endpoint.path)));
    return sendJson(c, JSON.stringify({ data: { access_token: token, expired: formatMoscow(expiresAt) } }));
  });

  app.post(endpoint.path, async (c: Context<AppEnv>) => {
    if (tb.pointInTime !== undefined) return sendErrors(c, 403, [readOnly(tb.pointInTime)]);
    const keyId = c.get('key').id;
    const path = tokenPath(endpoint.path);
    const token = requestHeader(c, 'x-access-token') ?? '';
    // A token that cannot be honoured whatever the body is refused from its header: the body is neither kept,
    // parsed nor hashed (only the replay of a spent token depends on it).
    if (!tb.tokens.usable(token, keyId, path)) return (await discardBody(c)) ?? sendErrors(c, 401, [TOKEN_REFUSED]);
    const body = await requestBody(c);
    if (body instanceof Response) return body;
    const json = parseJsonBody(body);
    const bodyHash = json.ok ? createHash('sha256').update(canonicalJson(json.value)).digest('hex') : '';

    const early = tb.tokens.check(token, keyId, path, bodyHash);
    if (early.status === 'refused') return sendErrors(c, 401, [TOKEN_REFUSED]);
    if (early.status === 'replay') {
      // The first answer may still be on its way to disk: the same answer again waits for the same durability.
      await tb.commits.durable();
      return sendJson(c, early.response);
    }

    if (!json.ok) return sendErrors(c, 400, [{ code: errorCodeFor(endpoint.wrapper), message: json.problem }]);
    const batch = parseBatch(endpoint, json.value);
    if (!batch.ok) return sendErrors(c, 400, batch.errors);

    const outcome = await tb.submit(() => {
      // Checked again under the write lock: another request or process may have spent the token meanwhile.
      const now = tb.tokens.check(token, keyId, path, bodyHash);
      if (now.status === 'refused') return fail(TOKEN_REFUSED);
      if (now.status === 'replay') return ok(now.response);
      // Records that parsed are still decided when others did not, so one answer lists every problem.
      const applied = decideBatch(batch.value.records, endpoint.decide, tb.state, tb.store, { keyId, tokenHash: hashSecret(token) }, batch.value.errors);
      if (!applied.ok) return applied;
      const response = JSON.stringify({ data: applied.value });
      tb.tokens.spend(token, bodyHash, response);
      return ok(response);
    });
    if (outcome.ok) return sendJson(c, outcome.value);
    return sendErrors(c, outcome.errors[0] === TOKEN_REFUSED ? 401 : 400, outcome.errors);
  });
}
