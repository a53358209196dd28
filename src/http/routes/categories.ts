import { Hono } from 'hono';
import { AddCategoryInput, EditCategoryInput, categoryCodes, addCategory, editCategory } from '../../records/category/deciders.ts';
import type { Company } from '../../company.ts';
import type { AppEnv } from '../env.ts';
import type { ReadEndpoint } from '../openapi.ts';
import { readResponses, writeResults } from '../responses.ts';
import { sendJson } from '../respond.ts';
import { type WriteEndpoint, writeEndpoint } from '../write-endpoint.ts';

export const categoryReads: ReadEndpoint[] = [{ method: 'get', path: '/api/product-categories', summary: 'The whole product group tree', response: readResponses.categories }];

export const categoryWrites: WriteEndpoint[] = [
  writeEndpoint({ path: '/api/add-product-category', summary: 'Add product groups', wrapper: 'category', maxRecords: 100, record: AddCategoryInput, codes: categoryCodes, result: writeResults.named, decider: addCategory }),
  writeEndpoint({ path: '/api/edit-product-category', summary: 'Edit product groups', wrapper: 'category', maxRecords: 100, record: EditCategoryInput, codes: categoryCodes, result: writeResults.named, decider: editCategory }),
];

export function categoryRoutes(tb: Company): Hono<AppEnv> {
  const app = new Hono<AppEnv>({ strict: false });
  app.get('/api/product-categories', async (c) => {
    const tree = await tb.categories.tree();
    return sendJson(c, JSON.stringify({ meta: { allCount: tree.length }, data: tree }));
  });
  return app;
}
