import { Hono } from 'hono';
import { z } from 'zod';
import {
  AddProductInput,
  EditProductInput,
  UpdatePricesInput,
  addProduct,
  editProduct,
  updatePrices,
} from '../../records/product/deciders.ts';
import type { Company } from '../../company.ts';
import type { AppEnv } from '../env.ts';
import { listQuery, pagedList } from '../paged-list.ts';
import { queryInt, validQuery } from '../query.ts';
import { sendError, sendJson } from '../respond.ts';
import { type ReadEndpoint } from '../openapi.ts';
import { readResponses, writeResults } from '../responses.ts';
import { type WriteEndpoint, writeEndpoint } from '../write-endpoint.ts';

export const productQuery = z.object({ id: queryInt(1).optional(), sku: z.string().optional() });

export const productReads: ReadEndpoint[] = [
  { method: 'get', path: '/api/products', summary: 'A page of products in id order', query: listQuery, response: readResponses.products },
  { method: 'get', path: '/api/product', summary: 'One product with every field, by id (wins) or sku', query: productQuery, response: readResponses.product },
];

export const productWrites: WriteEndpoint[] = [
  writeEndpoint({ path: '/api/add-product', summary: 'Add products', wrapper: 'products', maxRecords: 10, record: AddProductInput, codes: {}, result: writeResults.product, decider: addProduct }),
  writeEndpoint({ path: '/api/edit-product', summary: 'Edit products', wrapper: 'products', maxRecords: 10, record: EditProductInput, codes: {}, result: writeResults.product, decider: editProduct }),
  writeEndpoint({
    path: '/api/update-product-prices',
    summary: 'Update product prices by sku',
    wrapper: 'data',
    maxRecords: 100,
    record: UpdatePricesInput,
    codes: {},
    result: writeResults.prices,
    decider: updatePrices,
  }),
];

export function productRoutes(tb: Company): Hono<AppEnv> {
  const app = new Hono<AppEnv>({ strict: false });

  app.get('/api/products', ...pagedList(tb.products));

  app.get('/api/product', validQuery(productQuery), async (c) => {
    const { id, sku } = c.req.valid('query');
    // `id` wins over `sku`; with neither, the spec's answer is ERROR_ID.
    if (id === undefined && (sku === undefined || sku === '')) return sendError(c, 400, 'ERROR_ID', 'give id or sku');
    const json = await (id !== undefined ? tb.products.fullJsonById(id) : tb.products.fullJsonBySku(sku!));
    if (json === undefined) return id !== undefined ? sendError(c, 404, 'ERROR_ID', `no product ${id}`) : sendError(c, 404, 'ERROR_SKU', `no product has sku ${sku}`);
    return sendJson(c, `{"data":${json}}`);
  });

  return app;
}
