import { Hono } from 'hono';
import { DatabaseBusyError } from '../db/busy.ts';
import { NotDurableError } from '../db/group-commit.ts';
import { storageFaultOf } from '../db/storage-fault.ts';
import type { Tradebook } from '../tradebook.ts';
import { requireApiKey } from './auth.ts';
import { requestBody } from './node-request.ts';
import type { AppEnv } from './env.ts';
import { type ReadEndpoint, STORAGE_ERRORS, openApiDocument } from './openapi.ts';
import { sendError, sendErrors, sendJson } from './respond.ts';
import { auditReads, auditRoutes } from './routes/audit.ts';
import { brandReads, brandRoutes, brandWrites } from './routes/brands.ts';
import { categoryReads, categoryRoutes, categoryWrites } from './routes/categories.ts';
import { contractorReads, contractorRoutes, contractorWrites } from './routes/contractors.ts';
import { documentReads, documentRoutes } from './routes/documents.ts';
import { productReads, productRoutes, productWrites } from './routes/products.ts';
import { type WriteEndpoint, mountWrite } from './write-endpoint.ts';

export const MAX_BODY_BYTES = 1024 * 1024;

const reads: ReadEndpoint[] = [...productReads, ...categoryReads, ...brandReads, ...contractorReads, ...documentReads, ...auditReads];
const writes: WriteEndpoint[] = [...productWrites, ...categoryWrites, ...brandWrites, ...contractorWrites];

/** The whole HTTP interface over one open tradebook. Paths work with and without a trailing slash. */
export function createApp(tb: Tradebook): Hono<AppEnv> {
  const app = new Hono<AppEnv>({ strict: false });
  const openapi = JSON.stringify(openApiDocument(reads, writes));

  app.get('/api/openapi.json', (c) => sendJson(c, openapi));

  // Only POSTs carry bodies here. Each is read whole, at most MAX_BODY_BYTES, before anything else looks at it.
  app.on('POST', '/api/*', async (c, next) => {
    const body = await requestBody(c, MAX_BODY_BYTES);
    if (body === undefined) {
      // The rest of the body is never read: the connection closes after this answer.
      return sendErrors(c, 413, [{ code: 'ERROR_BODY_TOO_LARGE', message: `the body is larger than ${MAX_BODY_BYTES} bytes` }], { Connection: 'close' });
    }
    c.set('body', body);
    await next();
  });
  app.use('/api/*', requireApiKey(tb.keys));

  app.route('/', productRoutes(tb));
  app.route('/', categoryRoutes(tb));
  app.route('/', brandRoutes(tb));
  app.route('/', auditRoutes(tb));
  app.route('/', contractorRoutes(tb));
  app.route('/', documentRoutes(tb));
  for (const endpoint of writes) mountWrite(app, tb, endpoint);

  // A known path asked with a method it does not answer.
  for (const path of new Set([...reads.map((r) => r.path), ...writes.map((w) => w.path), '/api/openapi.json'])) {
    app.all(path, (c) => sendError(c, 405, 'ERROR_METHOD_NOT_ALLOWED', `${c.req.method} is not allowed on ${path}`));
  }
  app.notFound((c) => sendError(c, 404, 'ERROR_NOT_FOUND', `no such path: ${c.req.path}`));
  app.onError((error, c) => {
    if (error instanceof DatabaseBusyError) return sendError(c, 503, 'ERROR_BUSY', `${error.message}; nothing was applied, try again`);
    // The disk's state, not a bug; the server logs it once, when it starts.
    const fault = storageFaultOf(error);
    if (fault) return sendError(c, 503, STORAGE_ERRORS[fault.kind], `${fault.message}; nothing was applied`);
    console.error(error);
    if (error instanceof NotDurableError) return sendError(c, 500, 'ERROR_INTERNAL', `${error.message}; read it back before sending it again`);
    return sendError(c, 500, 'ERROR_INTERNAL', 'internal error; nothing was applied');
  });
  return app;
}
