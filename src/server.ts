import { Checkpointer } from './storage/sqlite/checkpointer.ts';
import { FaultLog, NotADatabase } from './storage/errors.ts';
import { databaseSetting, notYetOnPostgres } from './storage/database.ts';
import { storageFaultOf } from './storage/sqlite/storage-fault.ts';
import { createApp } from './http/app.ts';
import { listen, readServerSettings } from './http/node-server.ts';
import { log, logger } from './lib/log.ts';
import { Tradebook } from './tradebook.ts';

// Checked before the database is opened: a wrong setting changes nothing on disk.
const settings = readServerSettings(process.env);
if (!settings.ok) {
  process.stderr.write(`${settings.problem}\n`);
  process.exit(2);
}

const database = databaseSetting();
// Refused before anything connects, and before a file named like the URL could be created.
if (database.engine === 'postgres') {
  process.stderr.write(`tradebook: ${notYetOnPostgres('serving')}\n`);
  process.exit(2);
}
const { file } = database;

/**
 * A database the server cannot write (read-only, no space, no folder) or a file that is no database is refused
 * before listening: one line, exit code 2.
 */
function refuse(error: unknown): never {
  const fault = error instanceof NotADatabase ? error : storageFaultOf(error);
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
    log(`no API key existed, created key ${id}; the key is on standard error, shown this once`);
    // Shown this once, for the person starting the server, and never in the log: only its hash is stored.
    process.stderr.write(`tradebook: created API key ${id}; keep it, it is not shown again:\n${key}\n`);
  }
} catch (error) {
  refuse(error);
}

tb.writer.waitForLocksAsynchronously();
// Commits only append to the WAL and fsync it; copying it into the database file happens on another thread.
const checkpointer = Checkpointer.start(tb.db, 200, new FaultLog('background checkpoints', log));

// Slow or stalled clients are cut off (408) instead of holding a connection forever, and connections are
// capped in all and per client address (503).
let shuttingDown = false;
const app = createApp(tb, {
  accessLog: settings.settings.accessLog ? (entry) => logger.info(entry, 'request') : undefined,
  shuttingDown: () => shuttingDown,
});
const server = listen(
  app.fetch,
  settings.settings,
  (listening) => log(`tradebook listening on port ${listening}, database ${file}`),
  (error) => {
    // The port taken or the address not this machine's: the operator's to fix, said in one line.
    process.stderr.write(`tradebook: cannot listen on ${settings.settings.host ?? 'every address'} port ${settings.settings.port}: ${error.code ?? error.message}\n`);
    tb.close();
    process.exit(2);
  },
);

function shutdown(signal: string) {
  shuttingDown = true;
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
