import { DatabaseUnreachable, NotADatabase, StorageFault } from './storage/errors.ts';
import { databaseSetting, shownDatabase } from './storage/database.ts';
import { storageErrorOf } from './storage/open-engine.ts';
import { createApp } from './http/app.ts';
import { accessFields } from './http/access-log.ts';
import { listen, readServerSettings } from './http/node-server.ts';
import { log, logFields, logger } from './lib/log.ts';
import { Company } from './company.ts';

// Checked before the database is opened: a wrong setting changes nothing on disk.
const settings = readServerSettings(process.env);
if (!settings.ok) {
  process.stderr.write(`${settings.problem}\n`);
  process.exit(2);
}

const database = databaseSetting();
const shown = shownDatabase(database);

/**
 * A database the server cannot write (read-only, no space, no folder), a file that is no database or a PostgreSQL
 * server out of reach is refused before listening: one line, exit code 2.
 */
function refuse(error: unknown, faultOf: (error: unknown) => Error | undefined = storageErrorOf): never {
  const fault = error instanceof NotADatabase || error instanceof DatabaseUnreachable || error instanceof StorageFault ? error : faultOf(error);
  if (!fault) throw error;
  process.stderr.write(`tradebook: cannot serve ${shown}: ${fault.message}\n`);
  process.exit(2);
}

const { keyCacheMs } = settings.settings;
const tb = await Company.open(database, {
  onBuilt: log,
  onStorageFault: log,
  stallMs: settings.settings.databaseStallMs,
  keyCache: keyCacheMs > 0 ? { boundMs: keyCacheMs, onTrust: log } : undefined,
}).catch((error) => refuse(error));

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
  refuse(error, tb.storageErrorOf);
}

const background = tb.engine.serve(log);

// Slow or stalled clients are cut off (408) instead of holding a connection forever, and connections are
// capped in all and per client address (503).
let shuttingDown = false;
const app = createApp(tb, {
  accessLog: settings.settings.accessLog ? (entry) => logFields(accessFields(entry), 'request') : undefined,
  shuttingDown: () => shuttingDown,
  sessionIdleMs: settings.settings.sessionIdleMinutes * 60_000,
  trustedProxies: settings.settings.trustedProxies,
  onSignInFailure: (failure) => logger.warn(failure, 'workbench sign-in failed'),
});
const server = listen(
  app.fetch,
  settings.settings,
  (listening) => log(`tradebook listening on port ${listening}, database ${shown}`),
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
    await background.stop();
    await tb.close();
    log('closed');
    process.exit(0);
  });
  server.closeIdleConnections();
}
process.once('SIGTERM', () => shutdown('SIGTERM'));
process.once('SIGINT', () => shutdown('SIGINT'));
