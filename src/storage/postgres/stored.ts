import type { CopyDestination, StoredDatabase } from '../engine.ts';
import { openPostgres } from './connection.ts';
import { postgresSession } from './session.ts';
import { postgresCopySource } from './copy-source.ts';
import { postgresCopyTarget } from './copy-target.ts';
import { unreachableOf } from './errors.ts';
import { shownUrl } from '../database.ts';
import { NotADatabase } from '../errors.ts';
import { freshBuild } from './build-beside.ts';

/**
 * The PostgreSQL database as it is, on one connection of its own (the snapshot of a verify or a copy is a
 * transaction on it): nothing migrated, nothing left behind. PostgreSQL's own tools back it up.
 */
export function openStoredPostgres(url: string): StoredDatabase {
  const db = openPostgres(url, { poolSize: 1 });
  // A database tradebook never opened holds no log: said so, rather than as the table a statement does not find.
  const refuseWithoutLog = async () => {
    const [{ found }] = await db.pool.sql<{ found: boolean }>("SELECT to_regclass('events') IS NOT NULL AS found");
    if (!found) throw new NotADatabase(shownUrl(url), 'it holds no event log');
  };
  return {
    readOn: postgresSession(() => db.pool),
    fresh: (work) =>
      refuseWithoutLog()
        .then(() => freshBuild(db.session, work))
        .catch((error: unknown) => {
          throw unreachableOf(error, url) ?? error;
        }),
    copySource: async () => {
      await refuseWithoutLog();
      return postgresCopySource(db);
    },
    close: db.close,
  };
}

/** The PostgreSQL database `url` names as a copy's destination: nothing is connected before the copy loads it. */
export function postgresCopyDestination(url: string): CopyDestination {
  const db = openPostgres(url, { poolSize: 1 });
  return { copy: postgresCopyTarget(db), close: db.close };
}
