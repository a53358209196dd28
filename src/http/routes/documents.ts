import { Hono } from 'hono';
import { z } from 'zod';
import { calendarDate } from '../../lib/validation.ts';
import type { DocumentType } from '../../records/document/events.ts';
import type { Company } from '../../company.ts';
import type { AppEnv } from '../env.ts';
import type { ReadEndpoint } from '../openapi.ts';
import { readResponses } from '../responses.ts';
import { pagingQuery, validQuery } from '../query.ts';
import { sendPage } from '../respond.ts';

export const documentListQuery = pagingQuery(50).extend({
  dateFrom: calendarDate().optional().describe('first date, inclusive'),
  dateTo: calendarDate().optional().describe('last date, inclusive'),
  status: z.enum(['0', '1'], { error: 'must be 0 or 1' }).transform(Number).optional().describe('0 = not posted, 1 = posted'),
});

/** The spec spells these two without the word break the naming rule would put in. */
const documentListCodes = { dateFrom: 'ERROR_DATEFROM', dateTo: 'ERROR_DATETO' };

/** The seven document lists of the API: path and the document type each one shows. */
const documentLists: { path: string; type: DocumentType; summary: string }[] = [
  { path: '/api/customerorders', type: 'customerorder', summary: 'A page of customer orders in id order' },
  { path: '/api/customerinvoices', type: 'customerinvoice', summary: 'A page of customer invoices in id order' },
  { path: '/api/sales', type: 'sale', summary: 'A page of shipments in id order' },
  { path: '/api/cashins', type: 'cashin', summary: 'A page of cash receipts in id order' },
  { path: '/api/paymentins', type: 'paymentin', summary: 'A page of incoming payments in id order' },
  { path: '/api/cashouts', type: 'cashout', summary: 'A page of cash disbursements in id order' },
  { path: '/api/paymentouts', type: 'paymentout', summary: 'A page of outgoing payments in id order' },
];

export const documentReads: ReadEndpoint[] = documentLists.map(({ path, summary }) => ({ method: 'get', path, summary, query: documentListQuery, codes: documentListCodes, response: readResponses.documents }));

export function documentRoutes(tb: Company): Hono<AppEnv> {
  const app = new Hono<AppEnv>({ strict: false });
  for (const { path, type } of documentLists) {
    app.get(path, validQuery(documentListQuery, documentListCodes), async (c) => {
      const { limit, offset, ...filter } = c.req.valid('query');
      return sendPage(c, limit, offset, await tb.documents.page(type, filter, offset, limit));
    });
  }
  return app;
}
