import { serve } from '@hono/node-server';
import type { Server } from 'node:http';
import { createApp } from './http/app.ts';
import { log } from './lib/log.ts';
import { Tradebook } from './tradebook.ts';

const file = process.env.TRADEBOOK_DB || 'data/tradebook.db';
const port = Number(process.env.PORT || 3000);

const tb = await Tradebook.open(file, { onRebuilt: (names) => log(`rebuilt projections whose version changed: ${names.join(', ')}`) });

const givenKey = process.env.TRADEBOOK_API_KEY;
if (givenKey) {
  const id = tb.keys.register(givenKey, 'TRADEBOOK_API_KEY');
  log(`API key from TRADEBOOK_API_KEY registered as key ${id}`);
} else if (tb.keys.count() === 0) {
  const { id, key } = tb.keys.create({ name: 'first' });
  // Shown this once; only its hash is stored.
  log(`no API key existed, created key ${id}; keep it, it is not shown again:\n${key}`);
}

const server = serve({ fetch: createApp(tb).fetch, port }, (info) => log(`tradebook listening on port ${info.port}, database ${file}`)) as Server;
// Slow or stalled clients are cut off instead of holding a connection forever.
server.headersTimeout = 10_000;
server.requestTimeout = 30_000;

function shutdown(signal: string) {
  log(`${signal}: finishing requests in flight, then closing`);
  server.close(() => {
    tb.close();
    log('closed');
    process.exit(0);
  });
  server.closeIdleConnections();
}
process.once('SIGTERM', () => shutdown('SIGTERM'));
process.once('SIGINT', () => shutdown('SIGINT'));
