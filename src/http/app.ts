import { Hono } from 'hono';
import { NotDurableError, ReadModelsDifferError, StorageBusyError } from '../storage/errors.ts';
import type { Company } from '../company.ts';
import { logger } from '../lib/log.ts';
import { DEFAULT_IDLE_MS } from '../tokens/audit-sessions.ts';
import { AbortedRequests } from './aborts.ts';
import { type AccessEntry, accessLogged, commonHeaders } from './access-log.ts';
import { HEALTH_PATHS, healthRoutes } from './routes/health.ts';
import { DOCS_PATHS, docsRoutes } from './routes/docs.ts';
import { workbenchRoutes } from './workbench/routes.ts';
import { requireApiKey, requireWriteScope } from './auth.ts';
import { BODY_LIMITS, closeAfterUnreadBody, takeBody } from './body-limit.ts';
import { ClientClosedError } from './node-request.ts';
import type { AppEnv } from './env.ts';
import { type ReadEndpoint, STORAGE_ERRORS, openApiDocument } from './openapi.ts';
import { sendError, sendJson } from './respond.ts';
import { TrustedProxies } from './trusted-proxies.ts';
import { type UnexpectedError, unexpectedError } from './unexpected-error.ts';
import { auditReads, auditRoutes } from './routes/audit.ts';
import { brandReads, brandRoutes, brandWrites } from './routes/brands.ts';
import { categoryReads, categoryRoutes, categoryWrites } from './routes/categories.ts';
import { contractorReads, contractorRoutes, contractorWrites } from './routes/contractors.ts';
import { documentReads, documentRoutes } from './routes/documents.ts';
import { productReads, productRoutes, productWrites } from './routes/products.ts';
import { type WriteEndpoint, mountWrite } from './write-endpoint.ts';
import { changesReads, changesRoutes } from '../feed/routes.ts';
import { ChangeStreams } from '../feed/streams.ts';

export const MAX_BODY_BYTES = BODY_LIMITS.api;

const reads: ReadEndpoint[] = [...productReads, ...categoryReads, ...brandReads, ...contractorReads, ...documentReads, ...auditReads, ...changesReads];
const writes: WriteEndpoint[] = [...productWrites, ...categoryWrites, ...brandWrites, ...contractorWrites];

export interface AppOptions {
  /** Where each request's access-log entry goes (none: not logged). */
  accessLog?: (entry: AccessEntry) => void;
  /** Whether the server is shutting down: readiness says so, so no new traffic is sent here. */
  shuttingDown?: () => boolean;
  /** A workbench session unused this long has ended (default 30 minutes). */
  sessionIdleMs?: number;
  /** The reverse proxies believed for the client's address, host and scheme (X-Forwarded-*); none by default. */
  trustedProxies?: TrustedProxies;
  /** Where each failed workbench sign-in is told, with the client's address (none: not told). */
  onSignInFailure?: (failure: { client: string; reason: string }) => void;
  /** The server's change streams (its shutdown ends them); a new set with the default bounds when not given. */
  streams?: ChangeStreams;
  /** Where an error the server did not expect is told, one bounded line each (default: the server's log). */
  onUnexpectedError?: (failure: UnexpectedError) => void;
}

/** Seconds a client is told to wait before trying again after a 503 for a busy or faulty database. */
const RETRY_BUSY_S = '1';
const RETRY_STORAGE_FAULT_S = '30';

/** The methods each known path answers (HEAD wherever GET is), for the `Allow` of a 405. */
function allowedMethods(): Map<string, string> {
  const methods = new Map<string, Set<string>>();
  const allow = (path: string, ...names: string[]) => names.forEach((name) => methods.set(path, (methods.get(path) ?? new Set()).add(name)));
  for (const read of reads) allow(read.path, ...(read.method === 'get' ? ['GET', 'HEAD'] : ['POST']));
  for (const write of writes) allow(write.path, 'GET', 'POST');
  for (const path of ['/api/openapi.json', ...HEALTH_PATHS, ...DOCS_PATHS]) allow(path, 'GET', 'HEAD');
  return new Map([...methods].map(([path, names]) => [path, [...names].join(', ')]));
}

/**
 * The OpenAPI document's text, built at its first request and kept: it depends on the code alone, and building it
 * (every schema turned into JSON Schema) took a tenth of a server's start and of every app a test makes.
 */
let openapiText: string | undefined;
const openapiJson = () => (openapiText ??= JSON.stringify(openApiDocument(reads, writes)));

/** The whole HTTP interface over one open tradebook. Paths work with and without a trailing slash. */
export function createApp(tb: Company, options: AppOptions = {}): Hono<AppEnv> {
  const app = new Hono<AppEnv>({ strict: false });
  const proxies = options.trustedProxies ?? TrustedProxies.NONE;

  app.use('*', closeAfterUnreadBody);
  app.route('/', healthRoutes(tb, options.shuttingDown ?? (() => false)));
  app.route('/', docsRoutes());
  // The auditor's pages have sessions of their own, not the API's bearer keys.
  app.route(
    '/',
    workbenchRoutes(tb, { idleMs: options.sessionIdleMs ?? DEFAULT_IDLE_MS, proxies, onSignInFailure: options.onSignInFailure ?? (() => {}) }),
  );
  app.get('/api/openapi.json', (c) => sendJson(c, openapiJson()));

  // The key is checked before anything else, from the headers alone: no byte of a body is read for a request
  // without a valid key. Its 401 closes the connection, so the server stops receiving that body. Then the body.
  app.use('/api/*', requireApiKey(tb.keys), takeBody(BODY_LIMITS.api));

  app.route('/', productRoutes(tb));
  app.route('/', categoryRoutes(tb));
  app.route('/', brandRoutes(tb));
  app.route('/', auditRoutes(tb));
  app.route('/', contractorRoutes(tb));
  app.route('/', documentRoutes(tb));
  app.route('/', changesRoutes(tb, options.streams ?? new ChangeStreams()));
  for (const endpoint of writes) {
    app.use(endpoint.path, requireWriteScope);
    mountWrite(app, tb, endpoint);
  }

  // A known path asked with a method it does not answer.
  for (const [path, allowed] of allowedMethods()) {
    app.all(path, (c) => sendError(c, 405, 'ERROR_METHOD_NOT_ALLOWED', `${c.req.method} is not allowed on ${path}`, { Allow: allowed }));
  }
  app.notFound((c) => sendError(c, 404, 'ERROR_NOT_FOUND', `no such path: ${c.req.path}`));
  const aborted = new AbortedRequests();
  const onUnexpected = options.onUnexpectedError ?? ((failure) => logger.error(failure, 'unexpected error'));
  app.onError((error, c) => {
    // An answer that failed carries no cookie set on the way to it (a session started just before, say).
    c.header('Set-Cookie', undefined);
    if (error instanceof ClientClosedError) {
      // Nobody is left to answer; a stack trace per abort would let any client flood the log.
      aborted.record(c.req.method, c.req.path);
      return sendError(c, 400, 'ERROR_BAD_REQUEST', error.message);
    }
    // The storage's state, not a bug (the server logs a fault once, when it starts).
    const storage = error instanceof StorageBusyError ? error : tb.storageErrorOf(error);
    if (storage instanceof StorageBusyError) return sendError(c, 503, 'ERROR_BUSY', `${storage.message}; nothing was applied, try again`, { 'Retry-After': RETRY_BUSY_S });
    if (storage) return sendError(c, 503, STORAGE_ERRORS[storage.kind], `${storage.message}; nothing was applied`, { 'Retry-After': RETRY_STORAGE_FAULT_S });
    // A server of another release beside this database's (a rolling deploy): not a bug, and nothing was applied.
    if (error instanceof ReadModelsDifferError) return sendError(c, 503, 'ERROR_READ_MODELS_DIFFER', `${error.message}; nothing was applied`, { 'Retry-After': RETRY_STORAGE_FAULT_S });
    // One bounded line, never a stack trace: what an outsider can provoke must not flood the log.
    onUnexpected(unexpectedError(c, error));
    if (error instanceof NotDurableError) return sendError(c, 500, 'ERROR_INTERNAL', `${error.message}; read it back before sending it again`);
    return sendError(c, 500, 'ERROR_INTERNAL', 'internal error; nothing was applied');
  });
  // Around the app's fetch rather than as middleware: what every request pays (docs/performance.md).
  const served = commonHeaders(app.fetch);
  app.fetch = options.accessLog ? accessLogged(served, options.accessLog, (request) => app.getPath(request), proxies) : served;
  return app;
}
