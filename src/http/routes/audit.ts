import { Hono } from 'hono';
import { z } from 'zod';
import { readCompanyDetails } from '../../audit/company-details.ts';
import { logEntry } from '../../audit/log-view.ts';
import type { Company } from '../../company.ts';
import { requireAuditScope } from '../auth.ts';
import type { AppEnv } from '../env.ts';
import type { ReadEndpoint } from '../openapi.ts';
import { readResponses } from '../responses.ts';
import { queryInt, validQuery } from '../query.ts';
import { DOCUMENT_TYPES } from '../../records/document/events.ts';
import { statementLimit, tooManyLines, walkStatement, wholeStatement } from '../../audit/statement.ts';
import { API_CSV, ruStatementCsv, statementCsv } from '../../audit/statement-csv.ts';
import { textStream } from '../../lib/streams.ts';
import { calendarDate } from '../../lib/validation.ts';
import { sendError, sendJson } from '../respond.ts';
import { API_ACT_TEXTS, actOf, partyKind } from '../workbench/act.ts';
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
    .enum(['json', 'csv', 'csv-ru', 'xlsx'], { error: 'must be json, csv, csv-ru or xlsx' })
    .optional()
    .default('json')
    .describe(
      'csv: a CSV file, English headings, commas, decimal points, the signed balance as the API gives it (below zero: the contractor owes the company); ' +
        'csv-ru: a CSV file for Excel in a Russian locale, Russian headings, `;`, decimal commas, each balance on its side as the акт writes it (debit: the contractor owes the company; credit: the company owes the contractor; 0,00 on both when nothing is owed); ' +
        'xlsx: the акт сверки as an Excel workbook, in Russian, laid out as printed. ' +
        `A statement holds at most ${statementLimit.lines} documents in any format: beyond that, ERROR_STATEMENT_TOO_LARGE`,
    ),
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
      "A contractor's reconciliation statement for a period: opening balance, every posted document that moved it (a day's documents of goods before its payments, then by number), closing balance (format=csv or csv-ru: a CSV file; format=xlsx: the акт сверки as an Excel workbook)",
    query: statementQuery,
    codes: statementCodes,
    errors: ['ERROR_STATEMENT_TOO_LARGE'],
    audit: true,
    response: readResponses.statement,
    files: {
      'text/csv': 'format=csv or csv-ru: the statement as a CSV file (UTF-8; csv-ru with a byte-order mark)',
      [XLSX_TYPE]: 'format=xlsx: the акт сверки as an Excel workbook',
    },
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
    const walk = await walkStatement(tb.documents.statement, id, dateFrom, dateTo);
    if (walk.tooLong) return sendError(c, 400, 'ERROR_STATEMENT_TOO_LARGE', tooManyLines());
    const file = (extension: string) => `attachment; filename="statement-${id}-${dateFrom}-${dateTo}.${extension}"`;
    if (format === 'csv' || format === 'csv-ru') {
      const csv = format === 'csv' ? API_CSV : ruStatementCsv((type) => API_ACT_TEXTS.types[type]);
      return c.body(textStream(statementCsv(walk, csv)), 200, { 'Content-Type': 'text/csv; charset=utf-8', 'Content-Disposition': file('csv') });
    }
    if (format === 'xlsx') {
      const act = await actOf(tb, walk, { id, name: contractor.name ?? `#${id}`, inn: contractor.inn, kpp: contractor.kpp, kind: partyKind(contractor.type) });
      return c.body(actXlsx(API_ACT_TEXTS, act), 200, { 'Content-Type': XLSX_TYPE, 'Content-Disposition': file('xlsx') });
    }
    const statement = await wholeStatement(walk);
    const company = (await readCompanyDetails(tb.audit, dateTo)) ?? null;
    return sendJson(c, JSON.stringify({ data: { contractor: { id, name: contractor.name }, company, ...statement } }));
  });

  return app;
}
