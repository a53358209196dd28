import type { Context } from 'hono';
import type { ContentfulStatusCode } from 'hono/utils/http-status';
import type { DomainError } from '../lib/result.ts';
import type { JoinedPage } from '../projections/joined-page.ts';

export const JSON_TYPE = 'application/json; charset=utf-8';

/** Sends a body that is already JSON text (read models keep records serialised). */
export function sendJson(c: Context, json: string, status: ContentfulStatusCode = 200, headers: Record<string, string> = {}): Response {
  return c.body(json, status, { 'Content-Type': JSON_TYPE, ...headers });
}

/** The body of every error response: `{"errors":[{code, message, index?, field?}]}`. */
export function errorsJson(errors: DomainError[]): string {
  return JSON.stringify({ errors: errors.map(({ code, message, index, field }) => ({ code, message, index, field })) });
}

export function sendErrors(c: Context, status: ContentfulStatusCode, errors: DomainError[], headers?: Record<string, string>): Response {
  return sendJson(c, errorsJson(errors), status, headers);
}

export function sendError(c: Context, status: ContentfulStatusCode, code: string, message: string, headers?: Record<string, string>): Response {
  return sendErrors(c, status, [{ code, message }], headers);
}

const PAGE_END = Buffer.from(']}');

/** The paged list envelope around a page SQLite already joined: the records' bytes go out as they were stored. */
export function sendPage(c: Context, limit: number, offset: number, page: JoinedPage): Response {
  const head = Buffer.from(`{"meta":{"allCount":${page.allCount},"count":${page.count},"limit":${limit},"offset":${offset}},"data":[`);
  return c.body(Buffer.concat([head, page.json, PAGE_END]), 200, { 'Content-Type': JSON_TYPE });
}
