import { z } from 'zod';
import { DOCUMENT_TYPES } from '../records/document/events.ts';

/** What the changes endpoints answer, as zod schemas (the OpenAPI document's components; tests parse answers with them). */

const seq = z.number().int();

export const changeRecord = z
  .union([
    z.object({ kind: z.enum(['product', 'category', 'brand', 'contractor']), id: z.number().int() }),
    z.object({ kind: z.literal('contractorStatus'), id: z.string().describe("the status's text") }),
    z.object({ kind: z.literal('importRun'), id: z.string().describe("the import run's id (audit keys only)") }),
    z.object({ kind: z.literal('document'), type: z.enum(DOCUMENT_TYPES), id: z.number().int() }),
  ])
  .meta({ id: 'ChangeRecord' });

export const change = z
  .object({
    seq: seq.describe("the change's place in the log: dense from 1, in commit order"),
    type: z.string().describe('the event type, e.g. ProductPricesUpdated'),
    record: changeRecord,
    recordedAt: z.string().describe('UTC, ISO 8601'),
    data: z.record(z.string(), z.unknown()).describe("the event's data in the API's units: money in rubles"),
    meta: z.record(z.string(), z.unknown()).optional().describe('who made it (key id, access token hash, import line): only for keys with the audit scope'),
  })
  .meta({ id: 'Change' });

export const changePage = z
  .object({
    meta: z.object({ after: seq, limit: seq, count: seq, next: seq.describe('the `after` of the next page') }),
    data: z.array(change),
  })
  .meta({ id: 'ChangePage' });
