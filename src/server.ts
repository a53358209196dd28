import { Checkpointer } from './storage/sqlite/checkpointer.ts';
import { FaultLog } from './storage/errors.ts';
import { storageFaultOf } from './storage/sqlite/storage-fault.ts';
import { createApp } from './http/app.ts';
import { listen, readServerSettings } from './http/node-server.ts';
import { log } from './lib/log.ts';
import { Tradebook } from './tradebook.ts';

// Checked before the database is opened: a wrong setting changes nothing on disk.
const settings = readServerSettings(process.env);
if (!settings.ok) {
  process.stderr.write(`${settings.problem}\n`);
  process.exit(2);
}

const file = process.env.TRADEBOOK_DB || 'data/tradebook.db';
const port = Number(process.env.PORT || 3000);

/** A database the server cannot write (read-only, no space, no folder) is refused before listening: one line, exit code 2. */
function refuse(error: unknown): never {
  const fault = storageFaultOf(error);
  if (!fault) throw error;
  process.stderr.write(`tradebook: cannot serve ${file}: ${fault.message}\n`);
  process.exit(2);
}

const tb = await Tradebook.open(file, {
  onRebuilt: (names) => log(`rebuilt projections whose version changed: ${names.join(', ')}`),
  onStorageFault: log,
}).catch(refuse);

try {
  const givenKey = process.env.TRADEBOOK_API_KEY;
  if (givenKey) {
    const id = await tb.keys.register(givenKey, 'TRADEBOOK_API_KEY');
    log(`API key from TRADEBOOK_API_KEY registered as key ${id}`);
  } else if ((await tb.keys.count()) === 0) {
    const { id, key } = await tb.keys.create({ name: 'first' });
    // Shown this once; only its hash is stored.
    log(`no API key existed, created key ${id}; keep it, it is not shown again:\n${key}`);
  }
} catch (error) {
  refuse(error);
}

tb.writer.waitForLocksAsynchronously();
// Commits only append to the WAL and fsync it; copying it into the database file happens on another thread.
const checkpointer = Checkpointer.start(tb.db, 200, new FaultLog('background checkpoints', log));

// Slow or stalled clients are cut off (408) instead of holding a connection forever, and connections are
// capped in all and per client address (503).
const server = listen(createApp(tb).fetch, port, settings.settings, (listening) => log(`tradebook listening on port ${listening}, database ${file}`));

function shutdown(signal: string) {
  log(`${signal}: finishing requests in flight, then closing`);
  server.close(async () => {
    await checkpointer.stop();
    tb.close();
    log('closed');
    process.exit(0);
  });
  server.closeIdleConnections();
}
process.once('SIGTERM', () => shutdown('SIGTERM'));
process.once('SIGINT', () => shutdown('SIGINT'));
