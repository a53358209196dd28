import { Hono } from 'hono';
import { AddBrandInput, EditBrandInput, brandCodes, addBrand, editBrand } from '../../records/brand/deciders.ts';
import type { Company } from '../../company.ts';
import type { AppEnv } from '../env.ts';
import type { ReadEndpoint } from '../openapi.ts';
import { readResponses, writeResults } from '../responses.ts';
import { sendJson } from '../respond.ts';
import { type WriteEndpoint, writeEndpoint } from '../write-endpoint.ts';

export const brandReads: ReadEndpoint[] = [{ method: 'get', path: '/api/product-brands', summary: 'Every brand, no paging', response: readResponses.brands }];

export const brandWrites: WriteEndpoint[] = [
  writeEndpoint({ path: '/api/add-product-brand', summary: 'Add brands', wrapper: 'brand', maxRecords: 100, record: AddBrandInput, codes: brandCodes, result: writeResults.named, decider: addBrand }),
  writeEndpoint({ path: '/api/edit-product-brand', summary: 'Edit brands', wrapper: 'brand', maxRecords: 100, record: EditBrandInput, codes: brandCodes, result: writeResults.named, decider: editBrand }),
];

export function brandRoutes(tb: Company): Hono<AppEnv> {
  const app = new Hono<AppEnv>({ strict: false });
  app.get('/api/product-brands', async (c) => {
    const brands = await tb.brands.allJson();
    return sendJson(c, `{"meta":{"allCount":${brands.length}},"data":[${brands.join(',')}]}`);
  });
  return app;
}
