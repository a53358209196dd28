import { Hono } from 'hono';
import { z } from 'zod';
import { logEntry } from '../../audit/log-view.ts';
import type { Company } from '../../company.ts';
import { requireAuditScope } from '../auth.ts';
import type { AppEnv } from '../env.ts';
import type { ReadEndpoint } from '../openapi.ts';
import { readResponses, writeResults } from '../responses.ts';
import { queryInt, validQuery } from '../query.ts';
import { DOCUMENT_TYPES } from '../../events/documents.ts';
import { statementCsv, statementOf } from '../../audit/statement.ts';
import { calendarDate } from '../../commands/documents.ts';
import { sendError, sendJson } from '../respond.ts';
import { API_ACT_TEXTS, actOf } from '../workbench/act.ts';
import { XLSX_TYPE, actXlsx } from '../workbench/act-files.ts';

const MAX_EVENTS_PAGE = 1000;

export const eventsQuery = z.object({
  after: queryInt(0).optional().default(0),
  limit: queryInt(1, MAX_EVENTS_PAGE).optional().default(MAX_EVENTS_PAGE),
});
const MAX_HISTORY_PAGE = 1000;

export const historyQuery = z.object({
  stream: z.string().min(1, 'give the stream, e.g. product-42'),
  after: queryInt(0).optional().default(0).describe('the stream version the page follows'),
  limit: queryInt(1, MAX_HISTORY_PAGE).optional().default(MAX_HISTORY_PAGE),
});
export const statementQuery = z.object({
  contractor: queryInt(1).describe('the contractor id'),
  dateFrom: calendarDate().describe('the first day of the period, YYYY-MM-DD'),
  dateTo: calendarDate().describe('the last day of the period, YYYY-MM-DD'),
  format: z
    .enum(['json', 'csv', 'xlsx'], { error: 'must be json, csv or xlsx' })
    .optional()
    .default('json')
    .describe('csv: the statement as a CSV file; xlsx: the акт сверки as an Excel workbook, in Russian, laid out as printed'),
});
const statementCodes = { dateFrom: 'ERROR_DATEFROM', dateTo: 'ERROR_DATETO' };

export const documentQuery = z.object({
  type: z.enum(DOCUMENT_TYPES, { error: `must be one of ${DOCUMENT_TYPES.join(', ')}` }).describe('the document type, e.g. sale'),
  id: queryInt(1).describe('the document id'),
});

export const auditReads: ReadEndpoint[] = [
  { method: 'get', path: '/api/events', summary: 'The event log as stored, in seq order, after a seq', query: eventsQuery, audit: true, response: readResponses.events },
  {
    method: 'get',
    path: '/api/history',
    summary: 'The events of one record (stream) after a version, a page at a time, with time, key name and each field it changed, before and after',
    query: historyQuery,
    audit: true,
    response: readResponses.history,
  },
  { method: 'get', path: '/api/audit/document', summary: 'One document of any type by type and id, as the document lists show it', query: documentQuery, audit: true, response: readResponses.document },
  {
    method: 'get',
    path: '/api/audit/statement',
    summary:
      "A contractor's reconciliation statement for a period: opening balance, every posted document that moved it, closing balance (format=csv: a CSV file; format=xlsx: the акт сверки as an Excel workbook)",
    query: statementQuery,
    codes: statementCodes,
    audit: true,
    response: readResponses.statement,
  },
];

export function auditRoutes(tb: Company): Hono<AppEnv> {
  const app = new Hono<AppEnv>({ strict: false });
  for (const { path } of auditReads) app.use(path, requireAuditScope);

  app.get('/api/events', validQuery(eventsQuery), async (c) => {
    const { after, limit } = c.req.valid('query');
    const rows = await tb.audit.eventsAfter(after, limit);
    const data = rows.map((row) => JSON.stringify(logEntry(row)));
    // `next` is the `after` of the following page; the page is the last one when `count` < `limit`.
    const next = rows.at(-1)?.seq ?? after;
    return sendJson(c, `{"meta":{"after":${after},"limit":${limit},"count":${data.length},"next":${next}},"data":[${data.join(',')}]}`);
  });

  app.get('/api/history', validQuery(historyQuery), async (c) => {
    const { stream, after, limit } = c.req.valid('query');
    const length = await tb.audit.streamLength(stream);
    if (length === 0) return sendError(c, 404, 'ERROR_STREAM', `no events in stream ${stream}`);
    const history = await tb.audit.history(stream, after + 1, Math.min(length, after + limit));
    // `next` is the `after` of the following page; the page is the last one when `count` < `limit`.
    const next = history.at(-1)?.streamVersion ?? after;
    return sendJson(c, JSON.stringify({ meta: { stream, after, limit, count: history.length, next }, data: history }));
  });

  app.get('/api/audit/document', validQuery(documentQuery), async (c) => {
    const { type, id } = c.req.valid('query');
    const json = await tb.documents.listJson(type, id);
    if (json === undefined) return sendError(c, 404, 'ERROR_ID', `no ${type} ${id}`);
    return sendJson(c, `{"data":${json}}`);
  });

  app.get('/api/audit/statement', validQuery(statementQuery, statementCodes), async (c) => {
    const { contractor: id, dateFrom, dateTo, format } = c.req.valid('query');
    if (dateTo < dateFrom) return sendError(c, 400, 'ERROR_DATETO', 'dateTo must not be before dateFrom');
    const contractor = await tb.contractors.byId(id);
    if (contractor === undefined) return sendError(c, 404, 'ERROR_CONTRACTOR', `no contractor ${id}`);
    const statement = statementOf(await tb.documents.postedOfContractor(id), dateFrom, dateTo);
    if (format === 'csv') {
      return c.body(statementCsv(statement), 200, {
        'Content-Type': 'text/csv; charset=utf-8',
        'Content-Disposition': `attachment; filename="statement-${id}-${dateFrom}-${dateTo}.csv"`,
      });
    }
    if (format === 'xlsx') {
      const act = await actOf(tb, statement, { id, name: contractor.name ?? `#${id}`, inn: contractor.inn, kpp: contractor.kpp }, API_ACT_TEXTS);
      return c.body(await actXlsx(API_ACT_TEXTS, act), 200, {
        'Content-Type': XLSX_TYPE,
        'Content-Disposition': `attachment; filename="statement-${id}-${dateFrom}-${dateTo}.xlsx"`,
      });
    }
    return sendJson(c, JSON.stringify({ data: { contractor: { id, name: contractor.name }, ...statement } }));
  });

  return app;
}
