import { Hono } from 'hono';
import type { Company } from '../../company.ts';
import type { AppEnv } from '../env.ts';
import { sendError, sendJson } from '../respond.ts';

/** The paths a load balancer or an orchestrator asks, without a key. */
export const HEALTH_PATHS = ['/healthz', '/readyz'];

/** Seconds a client is told to wait before asking a server that is not ready again. */
const NOT_READY_RETRY_S = '5';

/**
 * Liveness (`/healthz`: the process answers) and readiness (`/readyz`: the database can be read, every read
 * table is current, and the server is not shutting down), so traffic goes only to a server that can serve it.
 */
export function healthRoutes(tb: Company, shuttingDown: () => boolean): Hono<AppEnv> {
  const app = new Hono<AppEnv>({ strict: false });
  app.get('/healthz', (c) => sendJson(c, '{"status":"ok"}'));
  app.get('/readyz', async (c) => {
    const notReady = (message: string) => sendError(c, 503, 'ERROR_NOT_READY', message, { 'Retry-After': NOT_READY_RETRY_S });
    if (shuttingDown()) return notReady('the server is shutting down');
    let stale: string[];
    try {
      stale = await tb.staleProjections();
    } catch (error) {
      return notReady(`the database cannot be read: ${error instanceof Error ? error.message : String(error)}`);
    }
    if (stale.length > 0) return notReady(`read tables not current: ${stale.join(', ')}`);
    return sendJson(c, '{"status":"ready"}');
  });
  return app;
}
