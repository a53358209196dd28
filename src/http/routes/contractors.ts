import { Hono } from 'hono';
import { z } from 'zod';
import { AddContractorInput, EditContractorInput, contractorCodes, addContractor, editContractor } from '../../records/contractor/deciders.ts';
import type { Company } from '../../company.ts';
import type { AppEnv } from '../env.ts';
import type { ReadEndpoint } from '../openapi.ts';
import { readResponses, writeResults } from '../responses.ts';
import { parseJsonBody } from '../json-body.ts';
import { listQuery, pagedList } from '../paged-list.ts';
import { sendError, sendJson } from '../respond.ts';
import { type WriteEndpoint, writeEndpoint } from '../write-endpoint.ts';
import { requestQuery } from '../node-request.ts';

/** The lookup keys as the OpenAPI document shows them; `lookupOf` reads and checks them (body first, then query). */
const lookupKeys = z.object({
  id: z.union([z.number(), z.string()]).optional().describe('a contractor id (wins over inn and phone)'),
  inn: z.union([z.string(), z.number()]).optional().describe('taxpayer number (wins over phone)'),
  phone: z.union([z.string(), z.number()]).optional().describe('phone1 or phone2, digits compared, a leading 8 counts as 7'),
});

export const contractorReads: ReadEndpoint[] = [
  { method: 'get', path: '/api/contractors', summary: 'A page of contractors in id order', query: listQuery, response: readResponses.contractors },
  { method: 'post', path: '/api/contractor', summary: 'One contractor by id, inn or phone (body first, then query)', query: lookupKeys, body: lookupKeys, response: readResponses.contractor },
];

export const contractorWrites: WriteEndpoint[] = [
  writeEndpoint({ path: '/api/add-contractor', summary: 'Add contractors', wrapper: 'contractors', maxRecords: 100, record: AddContractorInput, codes: contractorCodes, result: writeResults.named, decider: addContractor }),
  writeEndpoint({ path: '/api/edit-contractor', summary: 'Edit contractors', wrapper: 'contractors', maxRecords: 100, record: EditContractorInput, codes: contractorCodes, result: writeResults.named, decider: editContractor }),
];

/** A key counts as given when it is not absent, null or an empty string. */
const given = (v: unknown) => v !== undefined && v !== null && v !== '';

/** `find` answers the contractor's ready JSON, or undefined when none matches. */
type Lookup = { ok: true; key: 'id' | 'inn' | 'phone'; find: (tb: Company) => Promise<string | undefined> } | { ok: false; code: string; message: string };

/** Picks the key the lookup goes by (decisions.md section 3) and checks it. */
function lookupOf(body: Record<string, unknown>, query: Record<string, string>): Lookup {
  const pick = (name: string) => (given(body[name]) ? body[name] : query[name]);
  const [id, inn, phone] = [pick('id'), pick('inn'), pick('phone')];
  if (given(id)) {
    const n = typeof id === 'number' ? id : typeof id === 'string' && /^\d{1,16}$/.test(id) ? Number(id) : NaN;
    if (!Number.isSafeInteger(n) || n < 1) return { ok: false, code: 'ERROR_ID', message: 'id must be a whole number from 1' };
    return { ok: true, key: 'id', find: (tb) => tb.contractors.jsonById(n) };
  }
  if (given(inn)) {
    const text = String(inn);
    if (typeof inn === 'object' || !/^\d{10}(\d{2})?$/.test(text)) return { ok: false, code: 'ERROR_INN', message: 'inn must be 10 or 12 digits' };
    return { ok: true, key: 'inn', find: (tb) => tb.contractors.jsonByInn(text) };
  }
  if (given(phone)) {
    const text = String(phone);
    if (typeof phone === 'object' || !/^\d{10,15}$/.test(text.replace(/\D/g, ''))) return { ok: false, code: 'ERROR_PHONE', message: 'phone must hold 10 to 15 digits' };
    return { ok: true, key: 'phone', find: (tb) => tb.contractors.jsonByPhone(text) };
  }
  return { ok: false, code: 'ERROR_ID', message: 'give id, inn or phone' };
}

export function contractorRoutes(tb: Company): Hono<AppEnv> {
  const app = new Hono<AppEnv>({ strict: false });

  app.get('/api/contractors', ...pagedList(tb.contractors));

  app.post('/api/contractor', async (c) => {
    // An empty or missing body counts as {} (the query string is then read).
    const bytes = c.get('body');
    const blank = bytes.every((b) => b === 0x20 || b === 0x09 || b === 0x0a || b === 0x0d);
    const parsed = blank ? { ok: true as const, value: {} } : parseJsonBody(bytes);
    if (!parsed.ok) return sendError(c, 400, 'ERROR_ID', parsed.problem);
    const body = parsed.value;
    if (body === null || typeof body !== 'object' || Array.isArray(body)) return sendError(c, 400, 'ERROR_ID', 'the body must be a JSON object');
    const lookup = lookupOf(body as Record<string, unknown>, requestQuery(c));
    if (!lookup.ok) return sendError(c, 400, lookup.code, lookup.message);
    const json = await lookup.find(tb);
    if (json === undefined) return sendError(c, 404, `ERROR_${lookup.key.toUpperCase()}`, `no contractor with this ${lookup.key}`);
    return sendJson(c, `{"data":${json}}`);
  });

  return app;
}
