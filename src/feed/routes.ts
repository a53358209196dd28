import { Hono } from 'hono';
import { z } from 'zod';
import type { Company } from '../company.ts';
import type { AppEnv } from '../http/env.ts';
import type { ReadEndpoint } from '../http/openapi.ts';
import { queryInt, validQuery } from '../http/query.ts';
import { closedSignal, requestHeader } from '../http/node-request.ts';
import { SharedJson, sendError, sendJson } from '../http/respond.ts';
import type { KeyScope } from '../storage/port.ts';
import { EVENT_TYPES, RECORD_KINDS, changeJson, visibleTypes } from './change.ts';
import { type ChangePage, changesAfter, eventTypesOf } from './pages.ts';
import { LatestKept } from './kept.ts';
import { changePage } from './schemas.ts';
import { utf8Joined } from './utf8.ts';
import type { ChangeStreams } from './streams.ts';

const MAX_CHANGES_PAGE = 1000;
const DEFAULT_CHANGES_PAGE = 100;
export const MAX_WAIT_S = 60;

/** `types`: event types and record kinds, comma-separated, as the set of event types they stand for. */
export const typesParameter = () =>
  z
    .string()
    .transform((text, context) => {
      const found = eventTypesOf(text.split(',').map((name) => name.trim()));
      if ('types' in found) return found.types;
      context.addIssue({ code: 'custom', message: `${JSON.stringify(found.unknown)} is neither an event type (${EVENT_TYPES.join(', ')}) nor a record kind (${RECORD_KINDS.join(', ')})` });
      return z.NEVER;
    })
    .describe(`event types and record kinds, comma-separated (record kinds: ${RECORD_KINDS.join(', ')}); the changes of any of them`);

export const changesQuery = z.object({
  after: queryInt(0).optional().default(0).describe('the seq of the last change already seen (0: from the start of the log)'),
  limit: queryInt(1, MAX_CHANGES_PAGE).optional().default(DEFAULT_CHANGES_PAGE),
  types: typesParameter().optional(),
  wait: queryInt(0, MAX_WAIT_S)
    .optional()
    .default(0)
    .describe('seconds to hold an empty answer until a change after `after` is committed (a long-poll); 0 answers at once'),
});

export const changesReads: ReadEndpoint[] = [
  {
    method: 'get',
    path: '/api/changes',
    summary:
      "The log's changes after a seq, in seq order, each with the record it concerns and its data in the API's units; `meta.next` is the next page's `after` (also when `types` matched nothing on this page). With `wait`, a long-poll.",
    query: changesQuery,
    response: changePage,
    eventStream: {
      description:
        'With `Accept: text/event-stream`: every change after `after` (or the `Last-Event-ID` header), then each as it is committed, as server-sent events: `id` the seq, `event` the type, `data` the change (the JSON of a `Change`); `limit` and `wait` do not apply. An idle stream gets a comment every 15 s; a client that does not keep up is disconnected and resumes from its last id.',
      headers: [
        { name: 'Accept', description: '`text/event-stream` for a stream of server-sent events' },
        { name: 'Last-Event-ID', description: 'a stream resumes after this seq (an EventSource sends it when it reconnects); it takes the place of `after`' },
      ],
      codes: ['ERROR_LAST_EVENT_ID', 'ERROR_TOO_MANY_STREAMS'],
    },
  },
];

/** The JSON of a page of changes for a key of `scope`, as UTF-8. */
export function changePageJson(page: ChangePage, query: { after: number; limit: number }, scope: KeyScope): Buffer<ArrayBuffer> {
  const parts = [`{"meta":{"after":${query.after},"limit":${query.limit},"count":${page.rows.length},"next":${page.next}},"data":[`];
  page.rows.forEach((row, i) => parts.push(i === 0 ? '' : ',', changeJson(row, scope)));
  parts.push(']}');
  return utf8Joined(parts);
}

/** Answers kept for the long-polls that ask alike: a few, the latest. */
const KEPT_ANSWERS = 64;

/**
 * The answers of pages lately sent, each built (and gzipped) once: the long-polls one commit wakes at one position
 * ask alike. A page is all its query, `next` and the key's scope say.
 */
class PageAnswers {
  private readonly kept = new LatestKept<SharedJson>(KEPT_ANSWERS);

  of(page: ChangePage, query: { after: number; limit: number; types: ReadonlySet<string> | undefined }, scope: KeyScope): SharedJson {
    const name = `${scope} ${query.after} ${query.limit} ${page.next} ${query.types === undefined ? '' : [...query.types].sort().join(',')}`;
    return this.kept.of(name, () => new SharedJson(changePageJson(page, query, scope)));
  }
}

/**
 * A page of changes after `after`; when it is empty and `waitMs` is given, the page once the log moves past it or
 * the time is up (an empty page whose `next` is as far as a filter looked). Every waiter of the server waits on the
 * one waker: nobody reads the database while the log stands still.
 */
export async function pageWhenMoved(tb: Company, after: number, limit: number, types: ReadonlySet<string> | undefined, waitMs: number, signal?: AbortSignal): Promise<ChangePage> {
  const deadline = performance.now() + waitMs;
  for (let position = after; ; ) {
    const mark = tb.waker.mark;
    const page = await changesAfter(tb.engine.readOn, position, limit, types);
    const left = deadline - performance.now();
    if (page.rows.length > 0 || left <= 0 || signal?.aborted) return page;
    position = page.next;
    if (!(await tb.waker.wait(position, mark, left, signal))) return page;
  }
}

/** `Last-Event-ID`, as a reconnecting EventSource sends it: the seq of the last change it received. */
const LAST_EVENT_ID = /^\d{1,15}$/;

export function changesRoutes(tb: Company, streams: ChangeStreams): Hono<AppEnv> {
  const app = new Hono<AppEnv>({ strict: false });
  const answers = new PageAnswers();
  app.get('/api/changes', validQuery(changesQuery), async (c) => {
    const { after, limit, wait } = c.req.valid('query');
    const types = visibleTypes(c.req.valid('query').types, c.get('key').scope);
    if (requestHeader(c, 'accept')?.includes('text/event-stream')) {
      const lastEventId = requestHeader(c, 'last-event-id');
      if (lastEventId !== undefined && !LAST_EVENT_ID.test(lastEventId)) return sendError(c, 400, 'ERROR_LAST_EVENT_ID', 'Last-Event-ID must be the seq of a change, a whole number from 0');
      const refused = streams.refusal(c.get('key').id);
      if (refused !== undefined) return sendError(c, 429, 'ERROR_TOO_MANY_STREAMS', `${refused}; close one or try again later`, { 'Retry-After': '5' });
      return streams.serve(c, tb, lastEventId === undefined ? after : Number(lastEventId), types);
    }
    const page = await pageWhenMoved(tb, after, limit, types, wait * 1000, wait > 0 ? closedSignal(c) : undefined);
    const scope = c.get('key').scope;
    // Only long-polls ask alike (one commit wakes them at one position); a catch-up's pages are each asked once.
    return sendJson(c, wait > 0 ? answers.of(page, { after, limit, types }, scope) : changePageJson(page, { after, limit }, scope));
  });
  return app;
}
