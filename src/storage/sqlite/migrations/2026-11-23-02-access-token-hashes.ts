import { createHash } from 'node:crypto';
import type { Kysely } from 'kysely';
import { sql } from '../kysely.ts';

// Migrations never import application code: they describe tables as they were on their date.
export async function up(db: Kysely<unknown>): Promise<void> {
  // Access tokens are kept only as SHA-256 (hex) hashes. Tokens issued before (alive for at most a minute) are
  // hashed in place rather than dropped, so a client holding one, or retrying a spent one, is answered as before.
  // One transaction: SQLite's DDL is transactional, so the column is never renamed with clear tokens left in it.
  await db.transaction().execute(async (trx) => {
    await sql`ALTER TABLE access_tokens RENAME COLUMN token TO token_hash`.execute(trx);
    const { rows } = await sql<{ token_hash: string }>`SELECT token_hash FROM access_tokens`.execute(trx);
    for (const { token_hash: token } of rows) {
      const hash = createHash('sha256').update(token).digest('hex');
      await sql`UPDATE access_tokens SET token_hash = ${hash} WHERE token_hash = ${token}`.execute(trx);
    }
  });
}

export async function down(db: Kysely<unknown>): Promise<void> {
  // A hash cannot be turned back into its token: the tokens (one minute's worth) are dropped.
  await db.transaction().execute(async (trx) => {
    await sql`DELETE FROM access_tokens`.execute(trx);
    await sql`ALTER TABLE access_tokens RENAME COLUMN token_hash TO token`.execute(trx);
  });
}
